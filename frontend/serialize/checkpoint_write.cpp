// Writing a checkpoint: the whole file is laid out in memory, then written
// to a temporary file beside the target, fsync'ed and renamed over it, so a
// reader sees either the old file or the complete new one.
#include <cerrno>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <kiln/error.h>

#include "frontend/serialize/checkpoint_file.h"
#include "frontend/serialize/entry.h"

namespace kiln::serialize::detail {

namespace {

using Bytes = std::vector<unsigned char>;

template <class T>
void put(Bytes& out, T value) {
  const auto* p = reinterpret_cast<const unsigned char*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

std::size_t align_up(std::size_t n) { return (n + kDataAlignment - 1) / kDataAlignment * kDataAlignment; }

DtypeCode code_of(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return DtypeCode::Bool;
    case ScalarType::Int32: return DtypeCode::Int32;
    case ScalarType::Int64: return DtypeCode::Int64;
    case ScalarType::Float32: return DtypeCode::Float32;
    case ScalarType::Float64: return DtypeCode::Float64;
  }
  KILN_CHECK(false, "unknown dtype");
}

Bytes layout(const Entries& entries) {
  std::size_t index_bytes = 0;
  for (const auto& [name, e] : entries) index_bytes += kRecordFixedBytes + name.size() + 8 * e->sizes.size();
  Bytes index;
  index.reserve(index_bytes);
  std::size_t end = kHeaderBytes + index_bytes;
  for (const auto& [name, e] : entries) {
    const std::size_t offset = align_up(end);
    put(index, static_cast<std::uint32_t>(name.size()));
    index.insert(index.end(), name.begin(), name.end());
    put(index, static_cast<std::uint8_t>(e->kind));
    put(index, static_cast<std::uint8_t>(code_of(e->dtype)));
    put(index, std::uint16_t{0});
    put(index, static_cast<std::uint32_t>(e->sizes.size()));
    for (std::int64_t s : e->sizes) put(index, s);
    put(index, static_cast<std::uint64_t>(offset));
    put(index, static_cast<std::uint64_t>(e->bytes.size()));
    put(index, static_cast<std::uint64_t>(XXH3_64bits(e->bytes.data(), e->bytes.size())));
    end = offset + e->bytes.size();
  }
  Bytes file(std::begin(kMagic), std::end(kMagic));
  file.reserve(end);
  put(file, kFormatVersion);
  put(file, std::uint32_t{0});
  put(file, static_cast<std::uint64_t>(entries.size()));
  put(file, static_cast<std::uint64_t>(index.size()));
  put(file, index_checksum(file.data(), index.data(), index.size()));
  file.insert(file.end(), index.begin(), index.end());
  for (const auto& [name, e] : entries) {
    file.resize(align_up(file.size()), 0);
    file.insert(file.end(), e->bytes.begin(), e->bytes.end());
  }
  return file;
}

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw IOError(kiln::detail::cat("[save] ", path, ": ", what, ": ", std::strerror(err)));
}

bool write_all(int fd, const Bytes& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Makes the rename itself durable; a folder that cannot be opened or synced
// (some file systems) leaves the file written, so this is best effort.
void sync_parent(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_checkpoint(const std::string& path, const Entries& entries) {
  const Bytes file = layout(entries);
  std::string tmp = path + ".tmp-XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) fail(path, "cannot create a temporary file beside it", errno);
  int err = 0;
  if (::fchmod(fd, 0644) != 0 || !write_all(fd, file) || ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(path, kiln::detail::cat("cannot write ", file.size(), " bytes through ", tmp), err);
  }
  sync_parent(path);
}

}  // namespace kiln::serialize::detail

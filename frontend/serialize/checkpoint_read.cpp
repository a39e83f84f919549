// Reading a checkpoint: the whole file is read and validated (header, index
// checksum, every record, every entry's checksum, the file length) before
// any entry is handed out, so a bad file never loads partially.
#include <cerrno>
#include <algorithm>
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

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  template <class... A>
  [[noreturn]] void fail(const A&... a) const {
    throw IOError(kiln::detail::cat("[load] ", path_, ": ", a...));
  }

  Bytes read_file() const {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open the checkpoint: ", std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      fail("not a regular file");
    }
    Bytes bytes(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int err = n < 0 ? errno : EIO;
        ::close(fd);
        fail("cannot read the checkpoint: ", std::strerror(err));
      }
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return bytes;
  }

  // Reads a T at `pos` of the index, advancing; a record running past the
  // index means the index is malformed (its checksum matched, so not noise).
  template <class T>
  T take(const Bytes& file, std::size_t& pos, std::size_t index_end) const {
    if (pos + sizeof(T) > index_end) fail("malformed index: a record runs past the end of the index");
    T value;
    std::memcpy(&value, file.data() + pos, sizeof(T));
    pos += sizeof(T);
    return value;
  }

  Entries parse(const Bytes& file) const {
    const std::size_t size = file.size();
    const std::size_t magic_bytes = std::min(size, sizeof kMagic);
    if (magic_bytes > 0 && std::memcmp(file.data(), kMagic, magic_bytes) != 0)
      fail("not a kiln checkpoint (bad magic bytes; expected \"KILNCKPT\")");
    if (size < kHeaderBytes) fail("truncated: ", size, " bytes, but the header alone is ", kHeaderBytes);
    std::size_t pos = sizeof kMagic;
    const auto version = take<std::uint32_t>(file, pos, kHeaderBytes);
    if (version > kFormatVersion)
      fail("format version ", version, " is newer than this kiln reads (up to ", kFormatVersion, ")");
    if (version == 0) fail("invalid format version 0");
    const auto flags = take<std::uint32_t>(file, pos, kHeaderBytes);
    const auto count = take<std::uint64_t>(file, pos, kHeaderBytes);
    const auto index_bytes = take<std::uint64_t>(file, pos, kHeaderBytes);
    const auto checksum = take<std::uint64_t>(file, pos, kHeaderBytes);
    if (index_bytes > size - kHeaderBytes)
      fail("truncated: the index needs ", index_bytes, " bytes after the header, the file has ", size - kHeaderBytes);
    const std::size_t index_end = kHeaderBytes + index_bytes;
    if (index_checksum(file.data(), file.data() + kHeaderBytes, index_bytes) != checksum)
      fail("corrupted: the header/index checksum does not match");
    if (flags != 0) fail("unknown flags ", flags, " in the header");

    Entries entries;
    std::vector<std::pair<std::size_t, std::string>> extents;  // (offset, name) of every entry's data
    for (std::uint64_t i = 0; i < count; ++i) {
      auto [name, entry] = parse_record(file, pos, index_end);
      extents.emplace_back(parse_extent_and_data(file, pos, index_end, name, *entry), name);
      if (!entries.emplace(name, std::move(entry)).second) fail("malformed index: entry '", name, "' appears twice");
    }
    if (pos != index_end) fail("malformed index: ", index_end - pos, " bytes after the last record");
    check_padding(file, index_end, extents, entries);
    return entries;
  }

 private:
  std::pair<std::string, std::shared_ptr<Entry>> parse_record(const Bytes& file, std::size_t& pos,
                                                              std::size_t index_end) const {
    const auto name_len = take<std::uint32_t>(file, pos, index_end);
    if (name_len > index_end - pos) fail("malformed index: a name runs past the end of the index");
    std::string name(reinterpret_cast<const char*>(file.data() + pos), name_len);
    pos += name_len;
    auto e = std::make_shared<Entry>();
    const auto kind = take<std::uint8_t>(file, pos, index_end);
    const auto code = take<std::uint8_t>(file, pos, index_end);
    take<std::uint16_t>(file, pos, index_end);
    if (kind > static_cast<std::uint8_t>(EntryKind::Number))
      fail("entry '", name, "' has an unknown kind ", int(kind), " (written by a newer kiln?)");
    if (code >= kNumDtypeCodes)
      fail("entry '", name, "' has an unknown dtype code ", int(code), " (written by a newer kiln?)");
    e->kind = static_cast<EntryKind>(kind);
    e->dtype = static_cast<ScalarType>(code);  // the codes follow ScalarType's order (static_asserts below)
    const auto ndim = take<std::uint32_t>(file, pos, index_end);
    if (ndim > (index_end - pos) / 8) fail("malformed index: entry '", name, "' has ", ndim, " dims");
    for (std::uint32_t d = 0; d < ndim; ++d) {
      e->sizes.push_back(take<std::int64_t>(file, pos, index_end));
      if (e->sizes.back() < 0) fail("malformed index: entry '", name, "' has a negative size");
    }
    if (e->kind == EntryKind::Number && ndim != 0) fail("malformed index: number entry '", name, "' has dims");
    return {std::move(name), std::move(e)};
  }

  // The bytes between the index and the entries' data, and between entries,
  // are zero padding, the data do not overlap, and nothing follows the last.
  void check_padding(const Bytes& file, std::size_t index_end,
                     std::vector<std::pair<std::size_t, std::string>>& extents, const Entries& entries) const {
    std::sort(extents.begin(), extents.end());
    std::size_t cursor = index_end;
    for (const auto& [offset, name] : extents) {
      if (offset < cursor) fail("malformed index: the data of entry '", name, "' overlaps another entry's");
      for (std::size_t b = cursor; b < offset; ++b)
        if (file[b] != 0) fail("corrupted: nonzero padding byte at offset ", b);
      cursor = offset + entries.at(name)->bytes.size();
    }
    if (file.size() > cursor) fail("corrupted: ", file.size() - cursor, " bytes after the last entry");
  }

  // Checks the record's extent against the file and its checksum; returns where its data starts.
  std::size_t parse_extent_and_data(const Bytes& file, std::size_t& pos, std::size_t index_end,
                                    const std::string& name, Entry& e) const {
    const auto offset = take<std::uint64_t>(file, pos, index_end);
    const auto length = take<std::uint64_t>(file, pos, index_end);
    const auto checksum = take<std::uint64_t>(file, pos, index_end);
    std::uint64_t expected = element_size(e.dtype);
    bool overflow = false;
    for (std::int64_t s : e.sizes)
      overflow |= __builtin_mul_overflow(expected, static_cast<std::uint64_t>(s), &expected);
    if (overflow || expected != length)
      fail("malformed index: entry '", name, "' has ", length, " bytes, which its dtype ", e.dtype, " and shape ",
           IntArrayRef(e.sizes), " do not give");
    if (offset < index_end) fail("malformed index: entry '", name, "' starts inside the header or index");
    if (offset > file.size() || length > file.size() - offset)
      fail("truncated: entry '", name, "' needs bytes up to ", offset + length, " but the file has ", file.size());
    if (XXH3_64bits(file.data() + offset, length) != checksum)
      fail("corrupted: the checksum of entry '", name, "' does not match");
    e.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(offset),
                   file.begin() + static_cast<std::ptrdiff_t>(offset + length));
    const auto not_a_bool = [](unsigned char b) { return b > 1; };
    if (e.dtype == ScalarType::Bool && std::any_of(e.bytes.begin(), e.bytes.end(), not_a_bool))
      fail("corrupted: Bool entry '", name, "' holds a byte other than 0 and 1");
    return offset;
  }

  std::string path_;
};

static_assert(static_cast<int>(DtypeCode::Bool) == static_cast<int>(ScalarType::Bool) &&
              static_cast<int>(DtypeCode::Int32) == static_cast<int>(ScalarType::Int32) &&
              static_cast<int>(DtypeCode::Int64) == static_cast<int>(ScalarType::Int64) &&
              static_cast<int>(DtypeCode::Float32) == static_cast<int>(ScalarType::Float32) &&
              static_cast<int>(DtypeCode::Float64) == static_cast<int>(ScalarType::Float64) &&
              kNumDtypeCodes == kNumScalarTypes);

}  // namespace

Entries read_checkpoint(const std::string& path) {
  Reader reader(path);
  return reader.parse(reader.read_file());
}

}  // namespace kiln::serialize::detail

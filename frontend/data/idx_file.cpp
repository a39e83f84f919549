#include "frontend/data/idx_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <kiln/error.h>

namespace kiln::data::detail {

namespace {

using kiln::detail::cat;

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

std::string locate(const std::string& stem, const char* op) {
  if (std::filesystem::exists(stem)) return stem;
  if (std::filesystem::exists(stem + ".gz")) return stem + ".gz";
  throw IOError(cat("[", op, "] cannot find ", stem, " (nor ", stem, ".gz)"));
}

// zlib reads a file that is not gzip-compressed as it is, so one reader
// serves both kinds. Reads up to `n` bytes; fewer only at the end of the data.
std::size_t read_some(gzFile_s* file, std::uint8_t* out, std::size_t n, const std::string& path, const char* op) {
  std::size_t done = 0;
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 20));
    const int got = gzread(file, out + done, chunk);
    if (got < 0) {
      int code = Z_OK;
      const char* message = gzerror(file, &code);
      // A gzip stream cut short reports Z_BUF_ERROR: that is a truncated file.
      if (code == Z_BUF_ERROR) return done;
      throw IOError(cat("[", op, "] cannot read ", path, ": ", code == Z_ERRNO ? std::strerror(errno) : message));
    }
    if (got == 0) return done;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

}  // namespace

IdxFile read_idx(const std::string& stem, int ndims, const char* op) {
  IdxFile idx;
  idx.path = locate(stem, op);
  GzFile file(gzopen(idx.path.c_str(), "rb"));
  if (!file) throw IOError(cat("[", op, "] cannot open ", idx.path, ": ", std::strerror(errno)));

  const std::size_t header_size = 4 * static_cast<std::size_t>(1 + ndims);
  std::vector<std::uint8_t> header(header_size);
  const std::size_t header_read = read_some(file.get(), header.data(), header_size, idx.path, op);
  if (header_read < header_size)
    throw IOError(cat("[", op, "] ", idx.path, " is truncated: it ends after ", header_read,
                      " bytes, inside its header of ", header_size, " bytes"));
  auto big_endian = [&](std::size_t at) {
    return (std::uint32_t{header[at]} << 24) | (std::uint32_t{header[at + 1]} << 16) |
           (std::uint32_t{header[at + 2]} << 8) | std::uint32_t{header[at + 3]};
  };
  const std::uint32_t magic = big_endian(0), expected = 0x800u | static_cast<std::uint32_t>(ndims);
  if (magic != expected) {
    char found[16], wanted[16];
    std::snprintf(found, sizeof found, "0x%08x", magic);
    std::snprintf(wanted, sizeof wanted, "0x%08x", expected);
    throw IOError(cat("[", op, "] ", idx.path, " has magic number ", found, ", expected ", wanted,
                      " (an IDX file of unsigned bytes with ", ndims, " dimensions)"));
  }

  std::size_t total = 1;
  for (int d = 0; d < ndims; ++d) {
    const std::uint32_t size = big_endian(4 * static_cast<std::size_t>(1 + d));
    idx.sizes.push_back(size);
    if (__builtin_mul_overflow(total, std::size_t{size}, &total))
      throw IOError(cat("[", op, "] ", idx.path, " has a header whose sizes multiply past 2^64 bytes"));
  }
  // Grown as data arrives, so a corrupt header cannot make us allocate what the file does not hold.
  constexpr std::size_t kStep = std::size_t{16} << 20;
  while (idx.bytes.size() < total) {
    const std::size_t before = idx.bytes.size(), want = std::min(kStep, total - before);
    idx.bytes.resize(before + want);
    const std::size_t got = read_some(file.get(), idx.bytes.data() + before, want, idx.path, op);
    if (got < want)
      throw IOError(cat("[", op, "] ", idx.path, " is truncated: its header announces ", total,
                        " bytes of data, the file holds ", before + got));
  }
  std::uint8_t extra = 0;
  if (read_some(file.get(), &extra, 1, idx.path, op) != 0)
    throw IOError(cat("[", op, "] ", idx.path, " goes on after the ", total, " bytes of data its header announces"));
  return idx;
}

}  // namespace kiln::data::detail

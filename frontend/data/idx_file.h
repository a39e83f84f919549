// Reading IDX files (the format of the MNIST distribution): a big-endian
// header, magic 0x0000 08 <ndims> for unsigned bytes, then ndims sizes,
// then the bytes in row-major order. Plain or gzip-compressed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::data::detail {

struct IdxFile {
  std::string path;  // the file read: `stem` or `stem.gz`
  std::vector<std::int64_t> sizes;
  std::vector<std::uint8_t> bytes;
};

/// Reads the IDX file of unsigned bytes with `ndims` dims at `stem`, or at
/// `stem.gz` if only that exists. kiln::IOError, its message starting with
/// `op`, when neither exists, the file cannot be read or decompressed, its
/// magic number is not the expected one, it ends before the bytes its header
/// announces or goes on after them.
IdxFile read_idx(const std::string& stem, int ndims, const char* op);

}  // namespace kiln::data::detail

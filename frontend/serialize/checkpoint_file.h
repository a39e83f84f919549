// Reading and writing kiln's checkpoint file format (docs/checkpoint-format.md).
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <xxhash.h>

#include <kiln/serialize/archive.h>

namespace kiln::serialize::detail {

static_assert(std::endian::native == std::endian::little,
              "kiln checkpoints are little-endian and written with the machine's byte order");

/// The file's first 8 bytes.
inline constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'C', 'K', 'P', 'T'};
/// The current (and newest readable) format version.
inline constexpr std::uint32_t kFormatVersion = 1;
/// magic, version, flags, entry count, index length, index checksum.
inline constexpr std::size_t kHeaderBytes = 40;
/// The header bytes covered by the index checksum (all but the checksum).
inline constexpr std::size_t kChecksummedHeaderBytes = 32;
/// Entry data starts at multiples of this.
inline constexpr std::size_t kDataAlignment = 64;
/// Fixed part of an index record: name length, kind, dtype, reserved, ndim, offset, length, checksum.
inline constexpr std::size_t kRecordFixedBytes = 4 + 1 + 1 + 2 + 4 + 8 + 8 + 8;
/// dtype codes in the file, independent of ScalarType's numbering.
enum class DtypeCode : std::uint8_t { Bool = 0, Int32 = 1, Int64 = 2, Float32 = 3, Float64 = 4 };
inline constexpr std::uint8_t kNumDtypeCodes = 5;

/// The header/index checksum: XXH3-64 of the header's first
/// kChecksummedHeaderBytes followed by the index.
inline std::uint64_t index_checksum(const unsigned char* header, const unsigned char* index, std::size_t index_bytes) {
  std::vector<unsigned char> covered(header, header + kChecksummedHeaderBytes);
  covered.insert(covered.end(), index, index + index_bytes);
  return XXH3_64bits(covered.data(), covered.size());
}

/// Writes `entries` to `path` atomically (temporary file, fsync, rename).
/// IOError naming the file on failure; an existing file stays intact.
void write_checkpoint(const std::string& path, const Entries& entries);

/// Reads and validates a whole checkpoint. IOError naming the file and the
/// problem (missing, truncated, foreign, newer version, corrupted, unknown dtype).
Entries read_checkpoint(const std::string& path);

}  // namespace kiln::serialize::detail

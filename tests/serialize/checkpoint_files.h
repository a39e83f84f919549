// Helpers of the checkpoint tests: a scratch folder per test, and reading,
// patching and re-sealing the bytes of a checkpoint file.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "tests/errors/expect_error.h"

namespace ckpt {

/// The message of the exact E that `f` throws (kerr::throws); a failure
/// and an empty string otherwise.
template <class E>
std::string expect_throw(const std::function<void()>& f) {
  ::testing::AssertionResult thrown = kerr::throws<E>(f);
  EXPECT_TRUE(thrown);
  return thrown ? thrown.message() : std::string();
}

/// A fresh folder under the system's temporary folder, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln_serialize_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string path(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& root() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

/// Header fields (docs/checkpoint-format.md): version at 8, index length at
/// 24, the index checksum at 32, the index from 40.
inline constexpr std::size_t kVersionAt = 8, kIndexBytesAt = 24, kChecksumAt = 32, kIndexAt = 40;

/// Recomputes the header/index checksum after a test changed header or index bytes.
inline void reseal(std::vector<unsigned char>& bytes) {
  std::uint64_t index_bytes = 0;
  std::memcpy(&index_bytes, bytes.data() + kIndexBytesAt, 8);
  std::vector<unsigned char> covered(bytes.begin(), bytes.begin() + kChecksumAt);
  covered.insert(covered.end(), bytes.begin() + kIndexAt, bytes.begin() + kIndexAt + static_cast<long>(index_bytes));
  const std::uint64_t sum = XXH3_64bits(covered.data(), covered.size());
  std::memcpy(bytes.data() + kChecksumAt, &sum, 8);
}

/// Recomputes the first entry's data checksum (its data at `offset`, `length`
/// bytes) and then the header/index checksum.
inline void reseal_entry(std::vector<unsigned char>& bytes, std::size_t offset, std::size_t length) {
  std::uint32_t name_len = 0, ndim = 0;
  std::memcpy(&name_len, bytes.data() + kIndexAt, 4);
  const std::size_t ndim_at = kIndexAt + 4 + name_len + 4;
  std::memcpy(&ndim, bytes.data() + ndim_at, 4);
  const std::size_t checksum_at = ndim_at + 4 + 8 * ndim + 16;
  const std::uint64_t sum = XXH3_64bits(bytes.data() + offset, length);
  std::memcpy(bytes.data() + checksum_at, &sum, 8);
  reseal(bytes);
}

/// Where the first record's dtype byte is: name length (4), name, kind (1).
inline std::size_t first_dtype_at(const std::vector<unsigned char>& bytes) {
  std::uint32_t name_len = 0;
  std::memcpy(&name_len, bytes.data() + kIndexAt, 4);
  return kIndexAt + 4 + name_len + 1;
}

}  // namespace ckpt

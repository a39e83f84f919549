// Small IDX files written by the tests themselves, plain or gzip-compressed,
// in a directory of their own that is removed afterwards.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kdata {

inline constexpr std::uint32_t kImagesMagic = 0x803, kLabelsMagic = 0x801;

/// An empty directory named after the running test.
class TempDir {
 public:
  TempDir() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("kiln_data_" + std::string(test->test_suite_name()) + "_" + test->name() + "_" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string str() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Header (magic, sizes; big-endian) followed by `data`.
inline std::vector<std::uint8_t> idx(std::uint32_t magic, const std::vector<std::uint32_t>& sizes,
                                     const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> out;
  auto put = [&](std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
  };
  put(magic);
  for (std::uint32_t s : sizes) put(s);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

inline void write_plain(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

inline void write_gzip(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  EXPECT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(f), Z_OK) << path;
}

/// `count` 28x28 images: pixel p of image i is (7 * i + p) % 256.
inline std::vector<std::uint8_t> pixels(std::uint32_t count) {
  std::vector<std::uint8_t> out(count * 28 * 28);
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t p = 0; p < 28 * 28; ++p) out[i * 28 * 28 + p] = static_cast<std::uint8_t>((7 * i + p) % 256);
  return out;
}

/// Writes `bytes` to `name` in `dir`, gzip-compressed when the name ends in ".gz".
inline void write(const TempDir& dir, const std::string& name, const std::vector<std::uint8_t>& bytes) {
  if (name.ends_with(".gz"))
    write_gzip(dir.file(name), bytes);
  else
    write_plain(dir.file(name), bytes);
}

/// An images file of `count` images made by pixels().
inline void write_images(const TempDir& dir, const std::string& name, std::uint32_t count) {
  write(dir, name, idx(kImagesMagic, {count, 28, 28}, pixels(count)));
}

/// A labels file holding `labels`.
inline void write_labels(const TempDir& dir, const std::string& name, const std::vector<std::uint8_t>& labels) {
  write(dir, name, idx(kLabelsMagic, {static_cast<std::uint32_t>(labels.size())}, labels));
}

}  // namespace kdata

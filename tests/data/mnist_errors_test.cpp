// datasets::MNIST on broken files: each is a kiln::IOError (exactly) whose
// message names the file and says what was expected and what was found.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <typeinfo>
#include <vector>

#include <kiln/kiln.h>

#include "tests/data/idx_files.h"

namespace {

using MNIST = kiln::data::datasets::MNIST;

/// The message of the kiln::IOError that reading `root` throws.
std::string io_error(const std::string& root) {
  try {
    MNIST ds(root);
  } catch (const kiln::IOError& e) {
    EXPECT_EQ(typeid(e), typeid(kiln::IOError));
    EXPECT_EQ(std::string(e.what()).rfind("[MNIST] ", 0), 0u) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "MNIST(" << root << ") did not throw";
  return "";
}

void write_labels(const kdata::TempDir& dir, std::size_t count) {
  kdata::write_labels(dir, "train-labels-idx1-ubyte", std::vector<std::uint8_t>(count, 1));
}

TEST(MNISTErrors, MissingFileNamesBothForms) {
  kdata::TempDir dir;
  const std::string what = io_error(dir.str());
  EXPECT_NE(what.find("cannot find " + dir.file("train-images-idx3-ubyte") + " (nor " +
                      dir.file("train-images-idx3-ubyte") + ".gz)"),
            std::string::npos)
      << what;
}

TEST(MNISTErrors, MissingLabelsAfterGoodImages) {
  kdata::TempDir dir;
  kdata::write_images(dir, "train-images-idx3-ubyte", 2);
  EXPECT_NE(io_error(dir.str()).find(dir.file("train-labels-idx1-ubyte")), std::string::npos);
}

TEST(MNISTErrors, TruncatedDataSaysHowMuchIsMissing) {
  kdata::TempDir dir;
  std::vector<std::uint8_t> data = kdata::pixels(3);
  data.resize(2000);
  kdata::write_plain(dir.file("train-images-idx3-ubyte"), kdata::idx(kdata::kImagesMagic, {3, 28, 28}, data));
  write_labels(dir, 3);
  const std::string what = io_error(dir.str());
  EXPECT_NE(what.find(dir.file("train-images-idx3-ubyte") + " is truncated: its header announces 2352 bytes of data, "
                      "the file holds 2000"),
            std::string::npos)
      << what;
}

TEST(MNISTErrors, TruncatedHeader) {
  kdata::TempDir dir;
  kdata::write_plain(dir.file("train-images-idx3-ubyte"), {0, 0, 8, 3, 0, 0});
  const std::string what = io_error(dir.str());
  EXPECT_NE(what.find("is truncated: it ends after 6 bytes, inside its header of 16 bytes"), std::string::npos) << what;
}

TEST(MNISTErrors, TruncatedGzipStream) {
  kdata::TempDir dir;
  const std::string gz = dir.file("train-images-idx3-ubyte.gz");
  kdata::write_gzip(gz, kdata::idx(kdata::kImagesMagic, {3, 28, 28}, kdata::pixels(3)));
  std::filesystem::resize_file(gz, std::filesystem::file_size(gz) / 2);
  write_labels(dir, 3);
  const std::string what = io_error(dir.str());
  EXPECT_NE(what.find(gz + " is truncated"), std::string::npos) << what;
}

TEST(MNISTErrors, BadMagicShowsFoundAndExpected) {
  kdata::TempDir dir;
  kdata::write_images(dir, "train-images-idx3-ubyte", 1);
  kdata::write_plain(dir.file("train-labels-idx1-ubyte"), kdata::idx(kdata::kImagesMagic, {1}, {1}));
  const std::string what = io_error(dir.str());
  EXPECT_NE(what.find(dir.file("train-labels-idx1-ubyte") + " has magic number 0x00000803, expected 0x00000801"),
            std::string::npos)
      << what;
}

TEST(MNISTErrors, ImageAndLabelCountsDisagree) {
  kdata::TempDir dir;
  kdata::write_images(dir, "train-images-idx3-ubyte", 3);
  write_labels(dir, 2);
  const std::string what = io_error(dir.str());
  EXPECT_NE(what.find(dir.file("train-images-idx3-ubyte") + " holds 3 images but " +
                      dir.file("train-labels-idx1-ubyte") + " holds 2 labels"),
            std::string::npos)
      << what;
}

TEST(MNISTErrors, BytesAfterTheAnnouncedData) {
  kdata::TempDir dir;
  kdata::write_images(dir, "train-images-idx3-ubyte", 1);
  kdata::write_plain(dir.file("train-labels-idx1-ubyte"), kdata::idx(kdata::kLabelsMagic, {1}, {4, 4}));
  const std::string what = io_error(dir.str());
  EXPECT_NE(what.find(dir.file("train-labels-idx1-ubyte") + " goes on after the 1 bytes of data"), std::string::npos)
      << what;
}

TEST(MNISTErrors, NotAGzipStreamAtAll) {
  kdata::TempDir dir;
  // A gzip magic followed by garbage: zlib cannot decompress it.
  kdata::write_plain(dir.file("train-images-idx3-ubyte.gz"),
                     {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff});
  const std::string what = io_error(dir.str());
  EXPECT_NE(what.find(dir.file("train-images-idx3-ubyte.gz")), std::string::npos) << what;
}

}  // namespace

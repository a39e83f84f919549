// A checkpoint that is missing, truncated, corrupted, foreign, from a newer
// format version or with an unknown dtype is a kiln::IOError naming the file
// and the problem, and the tensor being loaded is left alone. A failed save
// leaves an existing file intact.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/serialize/checkpoint_files.h"

namespace {

using kiln::Tensor;

class SerializeFileErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_.path("model.kiln");
    const Tensor a = torch::arange(12, torch::kFloat32).reshape({3, 4}), b = torch::ones({5}, torch::kInt64);
    torch::save(std::vector<Tensor>{a, b}, file_);
    bytes_ = ckpt::read_bytes(file_);
    ASSERT_GT(bytes_.size(), 100u);
  }

  // Loads file_ (as rewritten by the test) and returns the IOError's message.
  std::string load_error(const std::string& path) {
    std::vector<Tensor> target = {torch::zeros({1})};
    const Tensor untouched = target[0];
    try {
      torch::load(target, path);
      ADD_FAILURE() << "expected kiln::IOError";
    } catch (const kiln::IOError& e) {
      EXPECT_EQ(target.size(), 1u);
      EXPECT_TRUE(target[0].is_same(untouched));
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      return msg;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "wrong exception type: " << e.what();
    }
    return {};
  }
  std::string rewrite_and_load() {
    ckpt::write_bytes(file_, bytes_);
    return load_error(file_);
  }

  ckpt::ScratchDir dir_;
  std::string file_;
  std::vector<unsigned char> bytes_;
};

TEST_F(SerializeFileErrors, MissingFile) {
  const std::string msg = load_error(dir_.path("absent.kiln"));
  EXPECT_NE(msg.find("cannot open the checkpoint: No such file or directory"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, ADirectoryIsNotACheckpoint) {
  const std::string msg = load_error(dir_.root().string());
  EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, TruncatedAnywhere) {
  const std::vector<unsigned char> whole = bytes_;
  // Inside the magic, the header, the index, the padding, an entry's data.
  for (std::size_t keep = 0; keep < whole.size(); ++keep) {
    SCOPED_TRACE(keep);
    bytes_.assign(whole.begin(), whole.begin() + static_cast<long>(keep));
    const std::string msg = rewrite_and_load();
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  }
}

TEST_F(SerializeFileErrors, EveryFlippedByteIsCaught) {
  const std::vector<unsigned char> whole = bytes_;
  for (std::size_t at = 0; at < whole.size(); ++at) {
    bytes_ = whole;
    bytes_[at] ^= 0x10;
    ckpt::write_bytes(file_, bytes_);
    std::vector<Tensor> target;
    EXPECT_THROW(torch::load(target, file_), kiln::IOError) << "byte " << at;
    EXPECT_TRUE(target.empty());
  }
}

TEST_F(SerializeFileErrors, FlippedDataByteFailsTheEntryChecksum) {
  bytes_[bytes_.size() - 3] ^= 0x01;
  const std::string msg = rewrite_and_load();
  EXPECT_NE(msg.find("corrupted: the checksum of entry '1' does not match"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, FlippedIndexByteFailsTheHeaderChecksum) {
  bytes_[ckpt::kIndexAt + 2] ^= 0x40;
  const std::string msg = rewrite_and_load();
  EXPECT_NE(msg.find("corrupted: the header/index checksum does not match"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, ForeignFileHasBadMagic) {
  bytes_[0] = 'P';
  bytes_[1] = 'K';
  std::string msg = rewrite_and_load();
  EXPECT_NE(msg.find("not a kiln checkpoint (bad magic bytes"), std::string::npos) << msg;
  bytes_.assign({'h', 'i'});
  msg = rewrite_and_load();
  EXPECT_NE(msg.find("not a kiln checkpoint"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, NewerFormatVersion) {
  bytes_[ckpt::kVersionAt] = 2;
  ckpt::reseal(bytes_);
  const std::string msg = rewrite_and_load();
  EXPECT_NE(msg.find("format version 2 is newer than this kiln reads (up to 1)"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, UnknownDtype) {
  bytes_[ckpt::first_dtype_at(bytes_)] = 9;
  ckpt::reseal(bytes_);
  const std::string msg = rewrite_and_load();
  EXPECT_NE(msg.find("entry '0' has an unknown dtype code 9"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, BoolElementOtherThanZeroOrOne) {
  torch::save(torch::tensor({true, false}), file_);
  bytes_ = ckpt::read_bytes(file_);
  bytes_[bytes_.size() - 1] = 2;
  ckpt::reseal_entry(bytes_, bytes_.size() - 2, 2);
  const std::string msg = rewrite_and_load();
  EXPECT_NE(msg.find("corrupted: Bool entry '0' holds a byte other than 0 and 1"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, TrailingBytes) {
  bytes_.push_back(0);
  const std::string msg = rewrite_and_load();
  EXPECT_NE(msg.find("1 bytes after the last entry"), std::string::npos) << msg;
}

TEST_F(SerializeFileErrors, WriteFailingMidwayKeepsTheOldFileAndRemovesTheTemporary) {
  // A file size limit below the new checkpoint's size makes write() fail
  // with EFBIG after the temporary file was created and partly written.
  const Tensor big = torch::zeros({1 << 16}, torch::kFloat64);
  ASSERT_EQ(big.sum().item<double>(), 0.0);  // computed before the limit is set
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string msg;
  try {
    torch::save(big, file_);
  } catch (const kiln::IOError& e) {
    msg = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(msg.find("[save] " + file_ + ": cannot write "), std::string::npos) << msg;
  EXPECT_NE(msg.find("File too large"), std::string::npos) << msg;
  EXPECT_EQ(ckpt::read_bytes(file_), bytes_);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_.root())) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"model.kiln"});
}

TEST_F(SerializeFileErrors, FailedSaveUnderAFileAsFolder) {
  const std::string path = file_ + "/inner.kiln";
  try {
    torch::save(torch::zeros({2}), path);
    ADD_FAILURE() << "expected kiln::IOError";
  } catch (const kiln::IOError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("Not a directory"), std::string::npos) << msg;
  }
  EXPECT_EQ(ckpt::read_bytes(file_), bytes_);
}

TEST_F(SerializeFileErrors, FailedRenameOntoADirectoryLeavesNoTemporaryFile) {
  const std::string target = dir_.path("taken");
  std::filesystem::create_directory(target);
  std::filesystem::create_directory(target + "/child");
  EXPECT_THROW(torch::save(torch::zeros({2}), target), kiln::IOError);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_.root())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"model.kiln", "taken"}));
  EXPECT_EQ(ckpt::read_bytes(file_), bytes_);
}

}  // namespace

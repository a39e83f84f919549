// datasets::MNIST on IDX files the test writes (plain and gzip), and on the
// real Fashion-MNIST files of Debian's dataset-fashion-mnist package.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <vector>

#include <kiln/torch.h>

#include "tests/data/idx_files.h"

namespace {

using kiln::Tensor;
using MNIST = torch::data::datasets::MNIST;

constexpr const char* kFashion = "/usr/share/datasets/fashion-mnist";

void expect_three_examples(const MNIST& ds) {
  EXPECT_EQ(ds.size(), std::optional<std::size_t>(3));
  EXPECT_EQ(ds.images().sizes(), (std::vector<std::int64_t>{3, 1, 28, 28}));
  EXPECT_EQ(ds.images().dtype(), kiln::kFloat32);
  EXPECT_EQ(ds.targets().dtype(), kiln::kInt64);
  const std::vector<std::uint8_t> bytes = kdata::pixels(3);
  const std::vector<float> got = ds.images().to_vector<float>();
  ASSERT_EQ(got.size(), bytes.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<float>(bytes[i]) / 255.0f) << i;
  EXPECT_EQ(ds.targets().to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 0, 9}));
}

TEST(MNIST, ReadsPlainTrainingFiles) {
  kdata::TempDir dir;
  kdata::write_images(dir, "train-images-idx3-ubyte", 3);
  kdata::write_labels(dir, "train-labels-idx1-ubyte", {3, 0, 9});
  MNIST ds(dir.str());
  EXPECT_TRUE(ds.is_train());
  expect_three_examples(ds);

  auto example = ds.get(2);
  EXPECT_EQ(example.data.sizes(), (std::vector<std::int64_t>{1, 28, 28}));
  EXPECT_EQ(example.data.to_vector<float>()[5], static_cast<float>(14 + 5) / 255.0f);
  EXPECT_EQ(example.target.item<std::int64_t>(), 9);
}

TEST(MNIST, ReadsGzipTestFiles) {
  kdata::TempDir dir;
  kdata::write_images(dir, "t10k-images-idx3-ubyte.gz", 3);
  kdata::write_labels(dir, "t10k-labels-idx1-ubyte.gz", {3, 0, 9});
  MNIST ds(dir.str() + "/", MNIST::Mode::kTest);
  EXPECT_FALSE(ds.is_train());
  expect_three_examples(ds);
}

TEST(MNIST, MixesPlainAndGzipFiles) {
  kdata::TempDir dir;
  kdata::write_images(dir, "train-images-idx3-ubyte.gz", 3);
  kdata::write_labels(dir, "train-labels-idx1-ubyte", {3, 0, 9});
  expect_three_examples(MNIST(dir.str()));
}

void check_fashion_split(MNIST::Mode mode, std::size_t count) {
  MNIST ds(kFashion, mode);
  ASSERT_EQ(ds.size(), std::optional<std::size_t>(count));
  EXPECT_EQ(ds.images().sizes(), (std::vector<std::int64_t>{static_cast<std::int64_t>(count), 1, 28, 28}));
  EXPECT_EQ(ds.images().min().item<float>(), 0.0f);
  EXPECT_EQ(ds.images().max().item<float>(), 1.0f);
  // Fashion-MNIST is balanced: every one of the 10 classes has a tenth of the examples.
  std::vector<std::size_t> per_class(10, 0);
  for (std::int64_t label : ds.targets().to_vector<std::int64_t>()) {
    ASSERT_GE(label, 0);
    ASSERT_LE(label, 9);
    ++per_class[static_cast<std::size_t>(label)];
  }
  for (std::size_t c = 0; c < 10; ++c) EXPECT_EQ(per_class[c], count / 10) << "class " << c;
}

TEST(MNIST, RealFashionMnistTrainingSplit) {
  if (!std::filesystem::exists(kFashion)) GTEST_SKIP() << kFashion << " is missing (Debian: dataset-fashion-mnist)";
  check_fashion_split(MNIST::Mode::kTrain, 60000);
}

TEST(MNIST, RealFashionMnistTestSplit) {
  if (!std::filesystem::exists(kFashion)) GTEST_SKIP() << kFashion << " is missing (Debian: dataset-fashion-mnist)";
  check_fashion_split(MNIST::Mode::kTest, 10000);
}

// LibTorch's cpp/mnist example, as far as data goes.
TEST(MNIST, LibTorchExamplePipelineOverFashionMnist) {
  if (!std::filesystem::exists(kFashion)) GTEST_SKIP() << kFashion << " is missing (Debian: dataset-fashion-mnist)";
  auto test_dataset = torch::data::datasets::MNIST(kFashion, torch::data::datasets::MNIST::Mode::kTest)
                          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                          .map(torch::data::transforms::Stack<>());
  const size_t test_dataset_size = test_dataset.size().value();
  auto test_loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(test_dataset), 1000);
  std::size_t seen = 0, batches = 0;
  for (const auto& batch : *test_loader) {
    EXPECT_EQ(batch.data.sizes(), (std::vector<std::int64_t>{1000, 1, 28, 28}));
    EXPECT_EQ(batch.target.sizes(), (std::vector<std::int64_t>{1000}));
    seen += static_cast<std::size_t>(batch.data.size(0));
    ++batches;
  }
  EXPECT_EQ(seen, test_dataset_size);
  EXPECT_EQ(batches, 10u);

  MNIST raw(kFashion, MNIST::Mode::kTest);
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      raw.map(torch::data::transforms::Normalize<>(0.1307, 0.3081)).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(2).workers(2));
  auto first = loader->begin();
  const float pixel = raw.images().to_vector<float>()[200];
  EXPECT_FLOAT_EQ(first->data.to_vector<float>()[200], (pixel - 0.1307f) / 0.3081f);
}

}  // namespace

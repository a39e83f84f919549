// make_data_loader: batch sizes, drop_last, every example once per epoch,
// epochs, identical batches with and without workers, errors from workers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <kiln/torch.h>

namespace {

using kiln::Tensor;
namespace data = torch::data;

/// Example i: data [i, i] (float), target i; get(fail_at) throws.
struct Counting : data::datasets::Dataset<Counting> {
  explicit Counting(std::size_t n, std::optional<std::size_t> fail_at = std::nullopt) : n(n), fail_at(fail_at) {}
  data::Example<> get(std::size_t index) override {
    if (fail_at == index) throw kiln::ValueError("[Counting] example " + std::to_string(index) + " is broken");
    return {kiln::full({2}, static_cast<double>(index)), kiln::scalar_tensor(static_cast<std::int64_t>(index))};
  }
  std::optional<std::size_t> size() const override { return n; }
  std::size_t n;
  std::optional<std::size_t> fail_at;
};

/// A dataset that cannot say how many examples it has.
struct Unsized : data::datasets::Dataset<Unsized> {
  data::Example<> get(std::size_t) override { return {}; }
  std::optional<std::size_t> size() const override { return std::nullopt; }
};

using Batches = std::vector<std::vector<std::int64_t>>;

/// The targets of each batch of one epoch, checking that data matches them.
template <class Loader>
Batches epoch(Loader& loader) {
  Batches out;
  for (auto& batch : loader) {
    std::vector<std::int64_t> targets = batch.target.template to_vector<std::int64_t>();
    std::vector<float> values = batch.data.template to_vector<float>();
    EXPECT_EQ(batch.data.sizes(), (std::vector<std::int64_t>{static_cast<std::int64_t>(targets.size()), 2}));
    for (std::size_t i = 0; i < targets.size(); ++i) EXPECT_EQ(values[2 * i], static_cast<float>(targets[i]));
    out.push_back(std::move(targets));
  }
  return out;
}

std::vector<std::size_t> sizes(const Batches& batches) {
  std::vector<std::size_t> out;
  for (const auto& b : batches) out.push_back(b.size());
  return out;
}

std::vector<std::int64_t> sorted_union(const Batches& batches) {
  std::vector<std::int64_t> all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<std::int64_t> iota(std::int64_t n) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(DataLoader, SequentialBatchesWithAShortLastOne) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Counting(10).map(data::transforms::Stack<>()), 4);
  EXPECT_EQ(epoch(*loader), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  EXPECT_EQ(loader->options().batch_size(), 4u);
}

TEST(DataLoader, DropLastDropsTheShortBatch) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Counting(10).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).drop_last(true));
  EXPECT_EQ(sizes(epoch(*loader)), (std::vector<std::size_t>{4, 4}));
  auto exact = data::make_data_loader<data::samplers::SequentialSampler>(
      Counting(8).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).drop_last(true));
  EXPECT_EQ(sizes(epoch(*exact)), (std::vector<std::size_t>{4, 4}));
}

TEST(DataLoader, RandomEpochsSeeEveryExampleOnceInNewOrders) {
  kiln::manual_seed(1);
  auto loader = data::make_data_loader(Counting(50).map(data::transforms::Stack<>()), data::DataLoaderOptions(8));
  Batches first = epoch(*loader), second = epoch(*loader);
  EXPECT_EQ(sizes(first), (std::vector<std::size_t>{8, 8, 8, 8, 8, 8, 2}));
  EXPECT_EQ(sorted_union(first), iota(50));
  EXPECT_EQ(sorted_union(second), iota(50));
  EXPECT_NE(first, second);
}

TEST(DataLoader, WorkersGiveTheSameBatchesInTheSameOrder) {
  auto run = [](std::size_t workers, std::optional<std::size_t> max_jobs) {
    kiln::manual_seed(7);
    auto loader = data::make_data_loader(Counting(45).map(data::transforms::Stack<>()),
                                         data::DataLoaderOptions(4).workers(workers).max_jobs(max_jobs));
    Batches first = epoch(*loader);
    Batches second = epoch(*loader);
    first.insert(first.end(), second.begin(), second.end());
    return first;
  };
  const Batches serial = run(0, std::nullopt);
  EXPECT_EQ(serial.size(), 24u);
  EXPECT_EQ(run(2, std::nullopt), serial);
  EXPECT_EQ(run(2, 1), serial);
  EXPECT_EQ(run(3, 7), serial);
}

TEST(DataLoader, UnbatchedExamplesComeAsVectors) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Counting(5), data::DataLoaderOptions(2).workers(2));
  std::vector<std::size_t> sizes;
  std::int64_t next = 0;
  for (std::vector<data::Example<>>& batch : *loader) {
    sizes.push_back(batch.size());
    for (auto& example : batch) EXPECT_EQ(example.target.item<std::int64_t>(), next++);
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 2, 1}));
}

TEST(DataLoader, AnAbandonedEpochDoesNotLeakIntoTheNextOne) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Counting(20).map(data::transforms::Stack<>()), data::DataLoaderOptions(3).workers(2));
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2}));
    break;
  }
  EXPECT_EQ(sorted_union(epoch(*loader)), iota(20));
}

void expect_error_at_third_batch(std::size_t workers) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Counting(10, 5).map(data::transforms::Stack<>()), data::DataLoaderOptions(2).workers(workers));
  auto it = loader->begin();
  EXPECT_EQ(it->target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1}));
  ++it;
  EXPECT_EQ(it->target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 3}));
  try {
    ++it;
    ADD_FAILURE() << "the broken batch {4, 5} was delivered";
  } catch (const kiln::ValueError& e) {
    EXPECT_STREQ(e.what(), "[Counting] example 5 is broken");
  }
  ++it;  // the loader goes on with the batch after the broken one
  EXPECT_EQ(it->target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{6, 7}));
}

TEST(DataLoader, AnErrorInABatchReachesTheConsumerAtThatBatch) { expect_error_at_third_batch(0); }

TEST(DataLoader, AnErrorOnAWorkerReachesTheConsumerAtThatBatch) { expect_error_at_third_batch(2); }

TEST(DataLoader, IteratorPastTheEndAndBadOptions) {
  auto loader =
      data::make_data_loader<data::samplers::SequentialSampler>(Counting(1).map(data::transforms::Stack<>()), 4);
  auto it = loader->begin();
  EXPECT_NE(it, loader->end());
  ++it;
  EXPECT_EQ(it, loader->end());
  EXPECT_THROW(*it, kiln::IndexError);

  EXPECT_THROW(data::make_data_loader(Counting(3), data::DataLoaderOptions(0)), kiln::ValueError);
  EXPECT_THROW(data::make_data_loader(Counting(3), data::DataLoaderOptions(1).workers(2).max_jobs(0)),
               kiln::ValueError);
  EXPECT_THROW(data::make_data_loader(Unsized(), 2), kiln::ValueError);
}

}  // namespace

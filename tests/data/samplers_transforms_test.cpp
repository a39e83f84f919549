// Samplers (order, permutation, reproducibility), transforms (Normalize,
// Stack, lambdas) and the in-memory datasets they apply to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <kiln/torch.h>

namespace {

using kiln::Tensor;
namespace data = torch::data;

template <class Sampler>
std::vector<std::size_t> drain(Sampler& sampler, std::size_t batch_size) {
  std::vector<std::size_t> all;
  while (auto batch = sampler.next(batch_size)) {
    EXPECT_LE(batch->size(), batch_size);
    all.insert(all.end(), batch->begin(), batch->end());
  }
  return all;
}

std::vector<std::size_t> iota(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

TEST(Samplers, SequentialGivesIndicesInOrderAndRestartsOnReset) {
  data::samplers::SequentialSampler sampler(10);
  EXPECT_EQ(sampler.next(4), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(sampler.next(4), (std::vector<std::size_t>{4, 5, 6, 7}));
  EXPECT_EQ(sampler.next(4), (std::vector<std::size_t>{8, 9}));
  EXPECT_EQ(sampler.index(), 10u);
  EXPECT_FALSE(sampler.next(4).has_value());
  sampler.reset();
  EXPECT_EQ(drain(sampler, 3), iota(10));
  sampler.reset(5);
  EXPECT_EQ(drain(sampler, 100), iota(5));
}

TEST(Samplers, RandomIsAPermutationReproducibleWithManualSeed) {
  kiln::manual_seed(42);
  data::samplers::RandomSampler a(100);
  std::vector<std::size_t> first = drain(a, 7);
  EXPECT_NE(first, iota(100));
  std::vector<std::size_t> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, iota(100));

  a.reset();
  std::vector<std::size_t> second = drain(a, 7);
  EXPECT_NE(second, first);  // a new permutation every epoch

  kiln::manual_seed(42);
  data::samplers::RandomSampler b(100);
  EXPECT_EQ(drain(b, 13), first);
  b.reset();
  EXPECT_EQ(drain(b, 13), second);

  b.reset(3);
  std::vector<std::size_t> small = drain(b, 2);
  std::sort(small.begin(), small.end());
  EXPECT_EQ(small, iota(3));
}

TEST(Samplers, RandomRejectsANegativeSize) {
  EXPECT_THROW(data::samplers::RandomSampler(-1), kiln::ValueError);
}

TEST(Transforms, NormalizeWithOneValueForAllChannels) {
  data::transforms::Normalize<> normalize(0.5, 0.25);
  auto out = normalize.apply({kiln::tensor({0.0f, 0.5f, 1.0f, 0.25f}).reshape({1, 2, 2}), kiln::tensor({7})});
  EXPECT_EQ(out.data.sizes(), (std::vector<std::int64_t>{1, 2, 2}));
  EXPECT_EQ(out.data.to_vector<float>(), (std::vector<float>{-2, 0, 2, -1}));
  EXPECT_EQ(out.target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{7}));
}

TEST(Transforms, NormalizePerChannel) {
  data::transforms::Normalize<> normalize({1.0, 2.0}, {2.0, 4.0});
  Tensor image = kiln::tensor({3.0f, 5.0f, 2.0f, 10.0f}).reshape({2, 1, 2});
  EXPECT_EQ(normalize(image).to_vector<float>(), (std::vector<float>{1, 2, 0, 2}));
}

TEST(Transforms, StackCollatesDataAndTargets) {
  std::vector<data::Example<>> examples;
  for (int i = 0; i < 3; ++i)
    examples.emplace_back(kiln::full({2}, static_cast<double>(i)), kiln::scalar_tensor(10 + i));
  data::Example<> batch = data::transforms::Stack<>().apply_batch(examples);
  EXPECT_EQ(batch.data.sizes(), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(batch.data.to_vector<float>(), (std::vector<float>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(batch.target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{10, 11, 12}));
}

TEST(Transforms, StackOfExamplesWithoutTargets) {
  std::vector<data::TensorExample> examples{kiln::tensor({1, 2}), kiln::tensor({3, 4})};
  Tensor batch = data::transforms::Stack<data::TensorExample>().apply_batch(examples);
  EXPECT_EQ(batch.sizes(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(batch.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4}));
}

TEST(Datasets, TensorDatasetSlicesDimZero) {
  data::datasets::TensorDataset ds(kiln::arange(12).reshape({4, 3}));
  EXPECT_EQ(ds.size(), std::optional<std::size_t>(4));
  EXPECT_EQ(ds.get(2).data.to_vector<std::int64_t>(), (std::vector<std::int64_t>{6, 7, 8}));

  data::datasets::TensorDataset stacked(std::vector<Tensor>{kiln::tensor({1, 2}), kiln::tensor({3, 4})});
  EXPECT_EQ(stacked.tensor.sizes(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_THROW(data::datasets::TensorDataset(kiln::scalar_tensor(1)), kiln::ShapeError);
}

TEST(Datasets, MapChainsLambdasAndLeavesAnLvalueSourceAlone) {
  data::datasets::TensorDataset source(kiln::arange(6, kiln::kFloat32).reshape({3, 2}));
  auto doubled = source.map(data::transforms::Lambda<data::TensorExample>([](data::TensorExample e) {
    return data::TensorExample(e.data * 2);
  }));
  auto batched = std::move(doubled).map(data::transforms::Stack<data::TensorExample>());
  EXPECT_EQ(batched.size(), std::optional<std::size_t>(3));
  Tensor batch = batched.get_batch({2, 0});
  EXPECT_EQ(batch.to_vector<float>(), (std::vector<float>{8, 10, 0, 2}));
  EXPECT_EQ(source.get(2).data.to_vector<float>(), (std::vector<float>{4, 5}));
}

TEST(Datasets, TensorLambdaMapsDataAndKeepsTheTarget) {
  data::transforms::TensorLambda<> negate([](Tensor t) { return -t; });
  auto out = negate.apply({kiln::tensor({1.0f, -2.0f}), kiln::tensor({5})});
  EXPECT_EQ(out.data.to_vector<float>(), (std::vector<float>{-1, 2}));
  EXPECT_EQ(out.target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{5}));
}

}  // namespace

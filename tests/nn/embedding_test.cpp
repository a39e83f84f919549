// Embedding and embedding against plain loops over std::vector: lookups,
// the weight's gradient (central differences in float64 for repeated
// indices, a scatter-add reference with the padding row left out), the
// initialization, from_pretrained, LibTorch's defaults and printing, and
// the errors for bad indices and unsupported options.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/autograd/gradcheck.h"
#include "tests/nn/nn_helpers.h"

namespace {

using knn::dbl;
using knn::expect_error;
using knn::printed;
using knn::values;
using gradcheck::Input;
using kiln::Tensor;
namespace F = torch::nn::functional;

Tensor longs(const std::vector<std::int64_t>& v, const std::vector<std::int64_t>& shape) {
  return torch::tensor(v, torch::kInt64).reshape(shape);
}

// The rows of a [rows, dim] row-major weight picked by `indices`, one after the other.
std::vector<double> lookup(const std::vector<double>& weight, std::size_t dim, const std::vector<std::int64_t>& idx) {
  std::vector<double> out;
  for (std::int64_t i : idx)
    for (std::size_t j = 0; j < dim; ++j) out.push_back(weight[static_cast<std::size_t>(i) * dim + j]);
  return out;
}

const std::vector<double> kWeight = gradcheck::random_values(15, 5);  // [5, 3]

TEST(Embedding, LookupsMatchTheReference) {
  const std::vector<std::int64_t> idx = {1, 4, 1, 0, 3, 3};
  Tensor y = torch::embedding(dbl(kWeight, {5, 3}), longs(idx, {2, 3}));
  EXPECT_EQ(y.sizes(), (kiln::IntArrayRef{2, 3, 3}));
  EXPECT_EQ(values(y), lookup(kWeight, 3, idx));
  // Int indices, a 0-dim index, and the functional form.
  Tensor ints = torch::tensor(std::vector<int>{4, 2}, torch::kInt32);
  EXPECT_EQ(values(F::embedding(ints, dbl(kWeight, {5, 3}))), lookup(kWeight, 3, {4, 2}));
  Tensor one = torch::embedding(dbl(kWeight, {5, 3}), longs({2}, {}));
  EXPECT_EQ(one.sizes(), (kiln::IntArrayRef{3}));
  EXPECT_EQ(values(one), lookup(kWeight, 3, {2}));
}

TEST(Embedding, ModuleHasLibTorchsDefaultsAndInitialization) {
  torch::nn::EmbeddingOptions o(10, 3);
  EXPECT_EQ(o.num_embeddings(), 10);
  EXPECT_EQ(o.embedding_dim(), 3);
  EXPECT_FALSE(o.padding_idx().has_value());
  EXPECT_FALSE(o.max_norm().has_value());
  EXPECT_EQ(o.norm_type(), 2.0);
  EXPECT_FALSE(o.scale_grad_by_freq());
  EXPECT_FALSE(o.sparse());

  torch::nn::Embedding emb(10, 3);
  EXPECT_EQ(emb->named_parameters().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(emb->weight.sizes(), (kiln::IntArrayRef{10, 3}));
  EXPECT_TRUE(emb->weight.requires_grad());

  // N(0, 1): the sample mean and standard deviation of 20000 draws.
  torch::manual_seed(1);
  torch::nn::Embedding big(1000, 20);
  std::vector<double> w = values(big->weight);
  double mean = 0, sq = 0;
  for (double v : w) mean += v / static_cast<double>(w.size());
  for (double v : w) sq += (v - mean) * (v - mean) / static_cast<double>(w.size());
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(std::sqrt(sq), 1.0, 0.03);
}

TEST(Embedding, ModuleForwardAndPaddingRow) {
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(6, 4).padding_idx(-2));
  EXPECT_EQ(emb->options.padding_idx(), std::optional<std::int64_t>(4));
  std::vector<double> w = values(emb->weight);
  for (std::size_t j = 0; j < 4; ++j) EXPECT_EQ(w[4 * 4 + j], 0.0);
  const std::vector<std::int64_t> idx = {5, 4, 0};
  Tensor y = emb(longs(idx, {3}));
  EXPECT_EQ(y.sizes(), (kiln::IntArrayRef{3, 4}));
  EXPECT_EQ(values(y), lookup(w, 4, idx));
  emb->reset_parameters();
  w = values(emb->weight);
  for (std::size_t j = 0; j < 4; ++j) EXPECT_EQ(w[4 * 4 + j], 0.0);
}

TEST(Embedding, GradientOfTheWeightWithARepeatedIndex) {
  const Tensor idx = longs({2, 0, 2, 4, 2, 1}, {3, 2});
  auto fn = [idx](const std::vector<Tensor>& in) { return torch::embedding(in[0], idx); };
  EXPECT_TRUE(gradcheck::check(fn, {Input{kWeight, {5, 3}}}));
  auto functional = [idx](const std::vector<Tensor>& in) { return F::embedding(idx, in[0]); };
  EXPECT_TRUE(gradcheck::check(functional, {Input{kWeight, {5, 3}}}));
}

TEST(Embedding, PaddingRowGetsNoGradientAndKeepsItsValue) {
  // The scatter-add of the output gradient over the indices, skipping the padding row.
  const std::vector<std::int64_t> idx = {2, 0, 2, 4, 2, 1, 0};
  const std::int64_t pad = 2;
  const std::vector<double> g = gradcheck::random_values(21, 6);  // [7, 3]
  std::vector<double> want(15, 0.0);
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (idx[k] != pad)
      for (std::size_t j = 0; j < 3; ++j) want[static_cast<std::size_t>(idx[k]) * 3 + j] += g[k * 3 + j];

  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(5, 3).padding_idx(pad));
  emb->to(torch::kFloat64);
  {
    torch::NoGradGuard no_grad;
    emb->weight.copy_(dbl(kWeight, {5, 3}));  // a nonzero padding row: looked up as it is
  }
  Tensor y = emb(longs(idx, {7}));
  EXPECT_EQ(values(y), lookup(kWeight, 3, idx));
  (y * dbl(g, {7, 3})).sum().backward();
  EXPECT_EQ(values(emb->weight.grad()), want);

  Tensor w = dbl(kWeight, {5, 3}).requires_grad_(true);
  (F::embedding(longs(idx, {7}), w, F::EmbeddingFuncOptions().padding_idx(pad - 5)) * dbl(g, {7, 3})).sum().backward();
  EXPECT_EQ(values(w.grad()), want);
}

TEST(Embedding, FromPretrained) {
  Tensor pretrained = dbl(kWeight, {5, 3});
  torch::nn::Embedding frozen = torch::nn::Embedding::from_pretrained(pretrained);
  EXPECT_EQ(frozen->options.num_embeddings(), 5);
  EXPECT_EQ(frozen->options.embedding_dim(), 3);
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_EQ(values(frozen->weight), kWeight);
  EXPECT_EQ(values(frozen(longs({3, 1}, {2}))), lookup(kWeight, 3, {3, 1}));

  torch::nn::Embedding trained = torch::nn::Embedding::from_pretrained(
      dbl(kWeight, {5, 3}), torch::nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(0));
  EXPECT_TRUE(trained->weight.requires_grad());
  EXPECT_EQ(values(trained->weight), kWeight);  // the padding row is not zeroed in a given weight
  EXPECT_EQ(printed(*trained), "kiln::nn::Embedding(num_embeddings=5, embedding_dim=3, padding_idx=0)");

  expect_error<kiln::ValueError>([] { torch::nn::Embedding::from_pretrained(torch::zeros({2, 3, 4})); },
                                 {"[nn::Embedding::from_pretrained]", "2-D", "[2, 3, 4]"});
}

TEST(Embedding, PrintsAsLibTorch) {
  EXPECT_EQ(printed(*torch::nn::Embedding(10, 3)), "kiln::nn::Embedding(num_embeddings=10, embedding_dim=3)");
  EXPECT_EQ(printed(*torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 3).padding_idx(-1).norm_type(1))),
            "kiln::nn::Embedding(num_embeddings=10, embedding_dim=3, padding_idx=9, norm_type=1)");
}

TEST(Embedding, OutOfRangeIndicesAreIndexErrorsNamingTheIndex) {
  torch::nn::Embedding emb(10, 3);
  expect_error<kiln::IndexError>([&] { emb(longs({1, 10, 2}, {3})); },
                                 {"[embedding]", "index 10", "num_embeddings=10", "[3]", "[10, 3]"});
  expect_error<kiln::IndexError>([&] { emb(longs({0, -1}, {1, 2})); }, {"index -1", "num_embeddings=10", "[1, 2]"});
  expect_error<kiln::DtypeError>([&] { emb(torch::zeros({2, 2})); }, {"[embedding]", "Long or Int", "[2, 2]"});
  expect_error<kiln::ShapeError>([] { torch::embedding(torch::zeros({10}), longs({1}, {1})); },
                                 {"[embedding]", "2-D", "[10]"});
}

TEST(Embedding, UnsupportedOptionsAndBadPaddingIdxAreValueErrors) {
  expect_error<kiln::ValueError>([] { torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 3).max_norm(1.0)); },
                                 {"[nn::Embedding]", "max_norm is not supported"});
  expect_error<kiln::ValueError>([] { torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 3).sparse(true)); },
                                 {"[nn::Embedding]", "sparse=true"});
  expect_error<kiln::ValueError>(
      [] { torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 3).scale_grad_by_freq(true)); },
      {"[nn::Embedding]", "scale_grad_by_freq=true"});
  expect_error<kiln::ValueError>([] { torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 3).padding_idx(10)); },
                                 {"[nn::Embedding]", "padding_idx 10", "num_embeddings=10"});
  expect_error<kiln::ValueError>([] { torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 3).padding_idx(-11)); },
                                 {"padding_idx -11"});
  Tensor w = torch::zeros({4, 2}), idx = longs({1}, {1});
  expect_error<kiln::ValueError>([&] { F::embedding(idx, w, F::EmbeddingFuncOptions().max_norm(2.0)); },
                                 {"[nn::functional::embedding]", "max_norm"});
  expect_error<kiln::ValueError>([&] { F::embedding(idx, w, F::EmbeddingFuncOptions().padding_idx(4)); },
                                 {"[nn::functional::embedding]", "padding_idx 4", "num_embeddings=4"});
  expect_error<kiln::ValueError>([&] { torch::embedding(w, idx, -1, false, true); }, {"[embedding]", "sparse=true"});
  expect_error<kiln::ShapeError>(
      [] { torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 3)._weight(torch::zeros({3, 10}))); },
      {"[nn::Embedding]", "[3, 10]", "[10, 3]"});
}

}  // namespace

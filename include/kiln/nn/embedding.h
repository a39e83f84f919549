// Embeddings, as LibTorch's torch::nn::Embedding, its functional form
// nn::functional::embedding and the free function kiln::embedding: a lookup
// of rows of a weight [num_embeddings, embedding_dim] by integer indices of
// any shape, giving [*indices.shape, embedding_dim]. Built on index_select,
// so the weight's gradient scatter-adds (a repeated index sums its rows'
// gradients); the padding_idx row gets no gradient.
//
// Where kiln differs: max_norm, scale_grad_by_freq and sparse are not
// supported; giving them (max_norm at all, the others as true) is a
// ValueError rather than a silently different result.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>

#include <kiln/nn/module.h>
#include <kiln/nn/options.h>

namespace kiln {

/// LibTorch's torch::embedding: rows of `weight` picked by `indices` (Long
/// or Int). padding_idx -1 means none; otherwise that row's gradient is zero.
/// An index outside [0, num_embeddings) is an IndexError naming it.
Tensor embedding(const Tensor& weight, const Tensor& indices, std::int64_t padding_idx = -1,
                 bool scale_grad_by_freq = false, bool sparse = false);

}  // namespace kiln

namespace kiln::nn {

struct EmbeddingOptions {
  EmbeddingOptions(std::int64_t num_embeddings, std::int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  /// The number of rows of the weight (the vocabulary size).
  KILN_ARG(std::int64_t, num_embeddings);
  /// The size of each row.
  KILN_ARG(std::int64_t, embedding_dim);
  /// A row that gets no gradient and starts as zeros; negative counts from
  /// the end (-1 is the last row).
  KILN_ARG(std::optional<std::int64_t>, padding_idx) = std::nullopt;
  /// Unsupported: setting it is a ValueError.
  KILN_ARG(std::optional<double>, max_norm) = std::nullopt;
  KILN_ARG(double, norm_type) = 2.;
  /// Unsupported: true is a ValueError.
  KILN_ARG(bool, scale_grad_by_freq) = false;
  /// Unsupported: true is a ValueError.
  KILN_ARG(bool, sparse) = false;
  /// A weight to use instead of a fresh N(0, 1) one (shape [num_embeddings, embedding_dim]).
  KILN_ARG(Tensor, _weight) = {};
};

/// Options of Embedding::from_pretrained.
struct EmbeddingFromPretrainedOptions {
  /// The weight does not require grad (is not trained).
  KILN_ARG(bool, freeze) = true;
  KILN_ARG(std::optional<std::int64_t>, padding_idx) = std::nullopt;
  KILN_ARG(std::optional<double>, max_norm) = std::nullopt;
  KILN_ARG(double, norm_type) = 2.;
  KILN_ARG(bool, scale_grad_by_freq) = false;
  KILN_ARG(bool, sparse) = false;
};

namespace functional {

struct EmbeddingFuncOptions {
  KILN_ARG(std::optional<std::int64_t>, padding_idx) = std::nullopt;
  KILN_ARG(std::optional<double>, max_norm) = std::nullopt;
  KILN_ARG(double, norm_type) = 2.;
  KILN_ARG(bool, scale_grad_by_freq) = false;
  KILN_ARG(bool, sparse) = false;
};

/// LibTorch's F::embedding(input, weight, options): negative padding_idx
/// counts from the end; out of [-num_embeddings, num_embeddings) is a ValueError.
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});

}  // namespace functional

class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(std::int64_t num_embeddings, std::int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);

  /// Indices of any shape -> [*indices.shape, embedding_dim].
  Tensor forward(const Tensor& indices);
  /// Draws the weight from N(0, 1) again and zeros the padding_idx row.
  void reset_parameters();
  /// "kiln::nn::Embedding(num_embeddings=10, embedding_dim=3)", with
  /// ", padding_idx=..." when set, LibTorch's layout.
  void pretty_print(std::ostream& stream) const override;

  /// padding_idx is stored non-negative, as LibTorch.
  EmbeddingOptions options;
  Tensor weight;  // [num_embeddings, embedding_dim]
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;

  /// An Embedding holding `embeddings` (2-D, ValueError otherwise) as its
  /// weight; with freeze (the default) the weight does not require grad.
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

}  // namespace kiln::nn

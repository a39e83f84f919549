// Embeddings: kiln::embedding, nn::functional::embedding and nn::Embedding.
#include <kiln/nn/embedding.h>

#include <ostream>
#include <vector>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>
#include <kiln/nn/init.h>

namespace kiln {

namespace {

// kiln computes plain lookups only: the options that change the result or its gradient's layout are refused.
void reject_unsupported(const std::optional<double>& max_norm, bool scale_grad_by_freq, bool sparse, const char* op) {
  if (max_norm)
    throw ValueError(kiln::detail::cat("[", op, "] max_norm is not supported (got max_norm=", *max_norm, ")"));
  if (scale_grad_by_freq || sparse)
    throw ValueError(kiln::detail::cat("[", op, "] scale_grad_by_freq and sparse are not supported (got ",
                                       "scale_grad_by_freq=", scale_grad_by_freq ? "true" : "false",
                                       ", sparse=", sparse ? "true" : "false", ")"));
}

// padding_idx in [-num_embeddings, num_embeddings), made non-negative.
std::int64_t resolve_padding_idx(std::int64_t padding_idx, std::int64_t num_embeddings, const char* op) {
  if (padding_idx >= num_embeddings || padding_idx < -num_embeddings)
    throw ValueError(kiln::detail::cat("[", op, "] padding_idx ", padding_idx, " must be within num_embeddings=",
                                       num_embeddings));
  return padding_idx < 0 ? padding_idx + num_embeddings : padding_idx;
}

void check_weight(const Tensor& weight, const char* op) {
  if (!weight.defined() || weight.dim() != 2)
    throw ShapeError(kiln::detail::cat("[", op, "] expected a 2-D weight [num_embeddings, embedding_dim], got ",
                                       weight.defined() ? weight.sizes() : IntArrayRef{}));
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, std::int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  reject_unsupported(std::nullopt, scale_grad_by_freq, sparse, "embedding");
  check_weight(weight, "embedding");
  if (!indices.defined()) throw ValueError("[embedding] called with undefined indices");
  if (indices.dtype() != kInt64 && indices.dtype() != kInt32)
    throw DtypeError(kiln::detail::cat("[embedding] indices must be Long or Int, got ", indices.dtype(),
                                       " indices of shape ", indices.sizes()));
  const std::int64_t num_embeddings = weight.size(0);
  const Tensor flat = indices.to(kInt64).reshape({-1});
  if (flat.numel() > 0) {
    // The range is checked against the values: one materialization of the smallest and largest index.
    const std::vector<std::int64_t> range = stack({flat.min(), flat.max()}).to_vector<std::int64_t>();
    const std::int64_t lo = range[0], hi = range[1];
    if (lo < 0 || hi >= num_embeddings)
      throw IndexError(kiln::detail::cat("[embedding] index ", lo < 0 ? lo : hi, " is out of range for num_embeddings=",
                                         num_embeddings, " (indices of shape ", indices.sizes(), ", weight ",
                                         weight.sizes(), ")"));
  }
  Tensor rows = weight.index_select(0, flat);
  // The padding row's value is looked up as any other, but its positions pass no gradient back.
  if (padding_idx >= 0 && rows.requires_grad()) rows = where(flat.ne(padding_idx).unsqueeze(1), rows, rows.detach());
  std::vector<std::int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.size(1));
  return rows.reshape(shape);
}

}  // namespace kiln

namespace kiln::nn {

namespace functional {
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  const char* op = "nn::functional::embedding";
  reject_unsupported(options.max_norm(), options.scale_grad_by_freq(), options.sparse(), op);
  check_weight(weight, op);
  const std::int64_t padding_idx =
      options.padding_idx() ? resolve_padding_idx(*options.padding_idx(), weight.size(0), op) : -1;
  return kiln::embedding(weight, input, padding_idx);
}
}  // namespace functional

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_)
    : Module("kiln::nn::Embedding"), options(std::move(options_)) {
  const char* op = "nn::Embedding";
  const std::int64_t n = options.num_embeddings(), d = options.embedding_dim();
  if (n < 0 || d < 0)
    throw ValueError(kiln::detail::cat("[", op, "] num_embeddings and embedding_dim must be non-negative, got ", n,
                                       " and ", d));
  reject_unsupported(options.max_norm(), options.scale_grad_by_freq(), options.sparse(), op);
  if (options.padding_idx()) options.padding_idx(resolve_padding_idx(*options.padding_idx(), n, op));
  if (options._weight().defined()) {
    if (!(options._weight().sizes() == IntArrayRef{n, d}))
      throw ShapeError(kiln::detail::cat("[", op, "] _weight of shape ", options._weight().sizes(),
                                         " does not match [num_embeddings, embedding_dim] = [", n, ", ", d, "]"));
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", empty({n, d}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (!options.padding_idx()) return;
  NoGradGuard no_grad;
  weight.select(0, *options.padding_idx()).fill_(0);
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return kiln::embedding(weight, indices, options.padding_idx().value_or(-1));
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << name() << "(num_embeddings=" << options.num_embeddings() << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  stream << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options) {
  if (!embeddings.defined() || embeddings.dim() != 2)
    throw ValueError(kiln::detail::cat("[nn::Embedding::from_pretrained] embeddings must be 2-D, got ",
                                       embeddings.defined() ? embeddings.sizes() : IntArrayRef{}));
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings)
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.set_requires_grad(!options.freeze());
  return embedding;
}

}  // namespace kiln::nn

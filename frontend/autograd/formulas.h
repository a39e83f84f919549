// The gradient table: one entry per primitive of trace/ops.def, keyed by
// OpId (DESIGN's "one op, one definition"). A formula is written with
// kiln's own ops, so the backward it records is deferred, fused and
// compiled like any forward code, and differentiable again (higher order).
#pragma once

#include <cstdint>

#include <kiln/autograd.h>

#include "trace/node.h"

namespace kiln::autograd {

class OpNode;

/// What a formula may read: the operands and result it asked to save, the
/// operands' shapes, the op's attributes.
class GradContext {
 public:
  GradContext(const OpNode& node, std::shared_ptr<Node> self) : node_(node), self_(std::move(self)) {}
  /// Tensor operand k as saved (the formula must have asked for it).
  Tensor input(int k) const;
  /// Operand k when it was a number.
  Scalar scalar(int k) const;
  bool is_tensor(int k) const;
  /// The op's result as saved.
  Tensor result() const;
  /// Whether operand k needs a gradient (a formula may skip the others).
  bool needs(int k) const;
  IntArrayRef input_shape(int k) const;
  /// Whether tensor operand k's last two dims were stored column by column
  /// (a transposed view, as linear's weight is read).
  bool input_is_column_major(int k) const;
  IntArrayRef output_shape() const;
  const trace::Attrs& attrs() const;
  trace::OpId op() const;
  /// g * operand k, for a tensor or a number operand.
  Tensor times(const Tensor& g, int k) const;

 private:
  const OpNode& node_;
  std::shared_ptr<Node> self_;
};

/// grads[k] gets the gradient of operand k in the result's shape and the
/// gradient's dtype (the node reduces broadcast dims and casts), or stays
/// undefined.
using FormulaFn = void (*)(const GradContext& c, const Tensor& grad, Tensor* grads);

inline constexpr std::uint8_t kSavesResult = 1u << trace::kMaxArity;
inline constexpr std::uint8_t saves_operand(int k) { return static_cast<std::uint8_t>(1u << k); }

struct GradFormula {
  const char* node_name;  // LibTorch's name of the backward node
  std::uint8_t saves;     // operands (saves_operand(k)) and kSavesResult the formula reads
  FormulaFn fn;           // null: the op has no gradient
};

/// Whether results of `op` can carry a gradient: everything but creation,
/// comparisons, logical ops and index results (argmax/argmin).
bool is_differentiable(trace::OpId op);
const GradFormula& grad_formula(trace::OpId op);

/// `g` summed over the dims broadcasting added, down to `shape`.
Tensor sum_to(const Tensor& g, IntArrayRef shape);
/// The gradient of a reduction over the dims in `mask` (keepdim or not),
/// expanded back to `shape`.
Tensor expand_reduced(const Tensor& g, IntArrayRef shape, std::int64_t mask, bool keepdim);

}  // namespace kiln::autograd

// The gradient formula of every primitive in trace/ops.def. Each receives
// the gradient of the op's result and writes the gradient of each tensor
// operand, in the result's shape; OpNode reduces broadcast dims and casts.
#include "frontend/autograd/formulas.h"

#include <cmath>
#include <numbers>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>

#include "frontend/autograd/op_node.h"
#include "frontend/cumulative.h"
#include "frontend/handle.h"
#include "frontend/window.h"

namespace kiln::autograd {

using trace::OpId;

namespace {

// The dims in a reduction's bit mask, in ascending order.
std::vector<std::int64_t> mask_dims(std::int64_t mask, std::size_t ndim) {
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < ndim; ++d)
    if (mask >> d & 1) dims.push_back(static_cast<std::int64_t>(d));
  return dims;
}

// --- Unary ---------------------------------------------------------------
void copy_grad(const GradContext&, const Tensor& g, Tensor* gi) { gi[0] = g; }
void neg_grad(const GradContext&, const Tensor& g, Tensor* gi) { gi[0] = -g; }
void abs_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  Tensor x = c.input(0);
  gi[0] = where(x > 0, g, where(x < 0, -g, 0));
}
void exp_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = g * c.result(); }
void log_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = g / c.input(0); }
void log1p_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = g / (c.input(0) + 1); }
void sqrt_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = g / (c.result() * 2); }
void rsqrt_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = g * c.result().pow(3) * -0.5; }
void reciprocal_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = -g * c.result() * c.result(); }
void sin_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = g * c.input(0).cos(); }
void cos_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = -(g * c.input(0).sin()); }
void tanh_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  Tensor y = c.result();
  gi[0] = g * (1 - y * y);
}
void sigmoid_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  Tensor y = c.result();
  gi[0] = g * y * (1 - y);
}
void relu_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = where(c.result() > 0, g, 0); }
void gelu_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  Tensor x = c.input(0);
  if (c.attrs().i[0] == 1) {  // 0.5 x (1 + tanh(k (x + 0.044715 x^3)))
    const double k = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
    Tensor x2 = x * x;
    Tensor t = ((x + x * x2 * 0.044715) * k).tanh();
    gi[0] = g * ((t + 1) * 0.5 + x * (1 - t * t) * (x2 * (3 * 0.044715) + 1) * (0.5 * k));
  } else {  // Phi(x) + x phi(x)
    Tensor cdf = ((x * (std::numbers::sqrt2 / 2)).erf() + 1) * 0.5;
    Tensor pdf = (x * x * -0.5).exp() * (std::numbers::inv_sqrtpi / std::numbers::sqrt2);
    gi[0] = g * (cdf + x * pdf);
  }
}
// floor, ceil, round, trunc: piecewise constant, LibTorch's gradient is zeros.
void zero_grad(const GradContext&, const Tensor& g, Tensor* gi) { gi[0] = zeros_like(g); }
void erf_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  Tensor x = c.input(0);
  gi[0] = g * (x * x).neg().exp() * (2 * std::numbers::inv_sqrtpi);
}

// --- Binary and ternary --------------------------------------------------
void add_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  if (c.needs(0)) gi[0] = g;
  if (c.needs(1)) gi[1] = g;
}
void sub_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  if (c.needs(0)) gi[0] = g;
  if (c.needs(1)) gi[1] = -g;
}
void mul_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  if (c.needs(0)) gi[0] = c.times(g, 1);
  if (c.needs(1)) gi[1] = c.times(g, 0);
}
void div_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  // a / b: g / b and -g a / b^2, written with the result y = a / b.
  Tensor gb = c.is_tensor(1) ? g / c.input(1) : g / c.scalar(1);
  if (c.needs(0)) gi[0] = gb;
  if (c.needs(1)) gi[1] = -(gb * c.result());
}
// a - q b with q = trunc(a / b) (fmod) or floor(a / b) (remainder): g for
// a, -g q for b, as LibTorch's.
void fmod_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  if (c.needs(0)) gi[0] = g;
  if (c.needs(1)) {
    Tensor q = c.is_tensor(0) ? c.input(0) / c.input(1) : c.scalar(0) / c.input(1);
    gi[1] = -g * (c.op() == trace::OpId::Fmod ? q.trunc() : q.floor());
  }
}
void pow_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  if (c.needs(0)) {  // b a^(b-1), zero where b == 0 (also at a == 0)
    if (c.is_tensor(1)) {
      Tensor a = c.input(0), b = c.input(1);
      gi[0] = where(b == 0, 0, g * b * a.pow(b - 1));
    } else {
      Scalar e = c.scalar(1);
      gi[0] = e.to_double() == 0 ? g * 0 : g * e * c.input(0).pow(e.to_double() - 1);
    }
  }
  if (c.needs(1)) {  // a^b log(a), zero where a == 0 and b >= 0
    Tensor b = c.input(1);
    Tensor y = c.result();
    if (c.is_tensor(0)) {
      Tensor a = c.input(0);
      gi[1] = where((a == 0).logical_and(b >= 0), 0, g * y * a.log());
    } else {
      double a = c.scalar(0).to_double();
      gi[1] = a == 0 ? where(b >= 0, 0, g * y * -INFINITY) : g * y * std::log(a);
    }
  }
}
// maximum / minimum of two tensors split the gradient evenly at ties, as
// LibTorch does; against a number (clamp) the bound is inclusive.
void extremum_grad(const GradContext& c, const Tensor& g, Tensor* gi, bool is_max) {
  Tensor a = c.input(0);
  if (!c.is_tensor(1)) {
    gi[0] = where(is_max ? a >= c.scalar(1) : a <= c.scalar(1), g, 0);
    return;
  }
  Tensor b = c.input(1);
  Tensor half = where(a == b, g / 2, g);
  if (c.needs(0)) gi[0] = where(is_max ? a < b : a > b, 0, half);
  if (c.needs(1)) gi[1] = where(is_max ? a > b : a < b, 0, half);
}
void maximum_grad(const GradContext& c, const Tensor& g, Tensor* gi) { extremum_grad(c, g, gi, true); }
void minimum_grad(const GradContext& c, const Tensor& g, Tensor* gi) { extremum_grad(c, g, gi, false); }
void where_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  Tensor cond = c.input(0);
  if (c.needs(1)) gi[1] = where(cond, g, 0);
  if (c.needs(2)) gi[2] = where(cond, 0, g);
}

// --- Reductions (attr i0: dim mask, i1: keepdim) --------------------------
Tensor expand_grad(const GradContext& c, const Tensor& t) {
  return expand_reduced(t, c.input_shape(0), c.attrs().i[0], c.attrs().i[1] != 0);
}
void sum_grad(const GradContext& c, const Tensor& g, Tensor* gi) { gi[0] = expand_grad(c, g); }
void prod_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  // y / x where x has no zero; with one zero in a slice, that element gets
  // the product of the others and the rest 0; with more, every element 0.
  Tensor x = c.input(0);
  std::vector<std::int64_t> dims = mask_dims(c.attrs().i[0], x.dim());
  Tensor gy = expand_grad(c, g), y = expand_grad(c, c.result());
  Tensor zero = x == 0;
  Tensor zeros_in_slice = zero.to(x.dtype()).sum(dims, true);
  Tensor others = frontend::reduce(OpId::Prod, where(zero, 1, x), dims, true);
  gi[0] = gy * where(zeros_in_slice == 0, y / x, where(zero.logical_and(zeros_in_slice == 1), others, 0));
}
void extremum_reduce_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  // Split evenly between the elements that attain the extremum.
  Tensor x = c.input(0);
  Tensor hit = (x == expand_grad(c, c.result())).to(g.dtype());
  std::vector<std::int64_t> dims = mask_dims(c.attrs().i[0], x.dim());
  Tensor count = dims.empty() ? hit.sum() : hit.sum(dims, true);
  gi[0] = expand_grad(c, g) * hit / count;
}

// --- Matrix product and indexing -----------------------------------------
// An operand of a batched matmul that was broadcast over some batch dims
// of the result (a convolution's weight over the batch, a linear layer's
// weight over a 3-d input) gets, per result batch, a product that its
// gradient then sums (sum_to). Those dims are moved into the contraction
// instead: one product per kept batch over (broadcast dims x the matrix
// dim), and nothing to sum (a DCGAN step spent 34% in the sums of its
// convolutions' weight gradients).
struct BroadcastSplit {
  std::vector<std::int64_t> kept, folded;  // result batch dims
  std::int64_t folded_numel = 1;
};

// The result batch dims of `g` that `shape` (an operand's) keeps, and those
// it was broadcast over.
BroadcastSplit split_batch(const Tensor& g, IntArrayRef shape) {
  BroadcastSplit s;
  const std::int64_t batch = g.dim() - 2, lead = batch - static_cast<std::int64_t>(shape.size() - 2);
  for (std::int64_t d = 0; d < batch; ++d) {
    const bool has = d >= lead && shape[static_cast<std::size_t>(d - lead)] == g.size(d);
    (has ? s.kept : s.folded).push_back(d);
    if (!has) s.folded_numel *= g.size(d);
  }
  return s;
}

// `x` (broadcast to the result's batch dims) as [kept..., rows, folded x
// cols] (`folded_inner`) or [kept..., folded x rows, cols].
Tensor fold_batch(const Tensor& x, const Tensor& g, const BroadcastSplit& s, bool folded_inner) {
  const std::int64_t batch = g.dim() - 2;
  std::vector<std::int64_t> full(g.sizes().begin(), g.sizes().end() - 2);
  full.push_back(x.size(-2));
  full.push_back(x.size(-1));
  std::vector<std::int64_t> order = s.kept, shape;
  for (std::int64_t d : s.kept) shape.push_back(g.size(d));
  if (folded_inner) {
    order.push_back(batch);
    order.insert(order.end(), s.folded.begin(), s.folded.end());
    shape.push_back(x.size(-2));
    shape.push_back(s.folded_numel * x.size(-1));
  } else {
    order.insert(order.end(), s.folded.begin(), s.folded.end());
    order.push_back(batch);
    shape.push_back(s.folded_numel * x.size(-2));
    shape.push_back(x.size(-1));
  }
  order.push_back(batch + 1);
  return x.expand(full).permute(order).reshape(shape);
}

// An operand stored column by column (linear's weight, read as W.t()) gets
// its gradient computed transposed, in the same layout, as LibTorch does:
// the view's backward transposes it back into a contiguous gradient
// instead of a strided copy of it (measured on the MLP 784-512-512-10
// training step, 1 thread: the three transposing copies took about a fifth).
void matmul_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  auto t = [](const Tensor& m) { return m.transpose(-1, -2); };
  auto grad_a = [&](const Tensor& gm, const Tensor& b) {
    return c.input_is_column_major(0) ? t(matmul(b, t(gm))) : matmul(gm, t(b));
  };
  auto grad_b = [&](const Tensor& a, const Tensor& gm) {
    return c.input_is_column_major(1) ? t(matmul(t(gm), a)) : matmul(t(a), gm);
  };
  for (int k = 0; k < 2; ++k) {
    if (!c.needs(k)) continue;
    const IntArrayRef shape = c.input_shape(k);
    const BroadcastSplit s = g.dim() > 2 && shape.size() >= 2 ? split_batch(g, shape) : BroadcastSplit{};
    if (s.folded_numel == 1) {
      gi[k] = k == 0 ? grad_a(g, c.input(1)) : grad_b(c.input(0), g);
      continue;
    }
    const Tensor r = k == 0 ? grad_a(fold_batch(g, g, s, true), fold_batch(c.input(1), g, s, true))
                            : grad_b(fold_batch(c.input(0), g, s, false), fold_batch(g, g, s, false));
    gi[k] = r.sizes() == shape ? r : r.reshape(shape);
  }
}
// index_select and gather send the gradient back to the positions read
// with scatter_add (repeated positions add up); scatter_add's own gradient
// reads it back with gather.
void index_select_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  IntArrayRef src_shape = c.input_shape(0);
  if (src_shape.empty()) {  // a zero-dim source: the one element read
    gi[0] = g.reshape({});
    return;
  }
  const std::int64_t dim = c.attrs().i[0];
  std::vector<std::int64_t> along(src_shape.size(), 1);
  along[static_cast<std::size_t>(dim)] = -1;
  const Tensor index = c.input(1).to(kInt64).reshape(along).expand(g.sizes());
  gi[0] = zeros(src_shape, g.dtype()).scatter_add(dim, index, g);
}
void gather_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  IntArrayRef src_shape = c.input_shape(0);
  if (src_shape.empty()) {
    gi[0] = g.reshape({});
    return;
  }
  gi[0] = zeros(src_shape, g.dtype()).scatter_add(c.attrs().i[0], c.input(1), g);
}
void scatter_add_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  if (c.needs(0)) gi[0] = g;
  if (!c.needs(2)) return;
  IntArrayRef src_shape = c.input_shape(2);
  if (src_shape.empty()) {
    gi[2] = g.reshape({});
    return;
  }
  Tensor r = g.gather(c.attrs().i[0], c.input(1));
  for (std::int64_t d = 0; d < r.dim(); ++d)  // src elements beyond the index's extent were not added
    if (r.size(d) < src_shape[d]) {
      std::vector<std::int64_t> pad = r.sizes().vec();
      pad[d] = src_shape[d] - r.size(d);
      r = cat({r, zeros(pad, r.dtype())}, d);
    }
  gi[2] = r;
}
// A running sum's gradient is the running sum of g taken from the other end.
void cumsum_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  gi[0] = frontend::cumulative(OpId::Cumsum, g, c.attrs().i[0], c.attrs().i[1] == 0);
}
// x_k's gradient is the sum over j >= k of g_j times the product of x_0..x_j
// without x_k: before a line's first zero, the tail sum of g * y divided by
// x_k; at the first zero, the tail sum of g times the running product with
// that zero read as 1; after it, 0 (every such product holds the zero).
void cumprod_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  const std::int64_t dim = c.attrs().i[0];
  const Tensor x = c.input(0), zero = x == 0;
  const Tensor zeros_so_far = frontend::cumulative(OpId::Cumsum, zero.to(kInt64), dim);
  const Tensor before = zeros_so_far == 0, first = logical_and(zero, zeros_so_far == 1);
  auto tail_sum = [dim](const Tensor& t) { return frontend::cumulative(OpId::Cumsum, t, dim, true); };
  const Tensor first_as_one = frontend::cumulative(OpId::Cumprod, x.masked_fill(first, 1), dim);
  gi[0] = where(before, tail_sum(g * c.result()) / x.masked_fill(zeros_so_far != 0, 1),
                where(first, tail_sum(g * first_as_one), 0));
}

// im2col and col2im are each other's adjoint: each one's gradient is the other.
void im2col_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  const IntArrayRef shape = c.input_shape(0);
  const std::int64_t size[2] = {shape[2], shape[3]};
  gi[0] = frontend::col2im(g, size, trace::Window2d::from(c.attrs()), "Im2ColBackward0");
}
void col2im_grad(const GradContext& c, const Tensor& g, Tensor* gi) {
  gi[0] = frontend::im2col(g, trace::Window2d::from(c.attrs()), "Col2ImBackward0");
}

}  // namespace

bool is_differentiable(OpId op) {
  const trace::OpInfo& oi = trace::info(op);
  if (oi.kind == trace::OpKind::Creation) return false;
  // floor_divide's result never requires grad in LibTorch either.
  return oi.rule != trace::DtypeRule::Compare && oi.rule != trace::DtypeRule::Logical &&
         oi.rule != trace::DtypeRule::Index && op != OpId::FloorDivide;
}

const GradFormula& grad_formula(OpId op) {
  // No default: -Wswitch names an op added to ops.def without an entry here.
  static constexpr GradFormula kNone{nullptr, 0, nullptr};
  constexpr std::uint8_t x = saves_operand(0), y = kSavesResult, both = saves_operand(0) | saves_operand(1);
  switch (op) {
    case OpId::Fill:
    case OpId::Iota:
    case OpId::Linspace:
    case OpId::Eye:
    case OpId::RandUniform:
    case OpId::RandNormal:
    case OpId::LogicalNot:
    case OpId::Eq:
    case OpId::Ne:
    case OpId::Lt:
    case OpId::Le:
    case OpId::Gt:
    case OpId::Ge:
    case OpId::LogicalAnd:
    case OpId::LogicalOr:
    case OpId::Argmax:
    case OpId::Argmin:
    case OpId::Argsort:
    case OpId::FloorDivide: return kNone;
    case OpId::Copy: { static constexpr GradFormula f{"CopyBackwards", 0, copy_grad}; return f; }
    case OpId::Neg: { static constexpr GradFormula f{"NegBackward0", 0, neg_grad}; return f; }
    case OpId::Abs: { static constexpr GradFormula f{"AbsBackward0", x, abs_grad}; return f; }
    case OpId::Exp: { static constexpr GradFormula f{"ExpBackward0", y, exp_grad}; return f; }
    case OpId::Log: { static constexpr GradFormula f{"LogBackward0", x, log_grad}; return f; }
    case OpId::Log1p: { static constexpr GradFormula f{"Log1PBackward0", x, log1p_grad}; return f; }
    case OpId::Sqrt: { static constexpr GradFormula f{"SqrtBackward0", y, sqrt_grad}; return f; }
    case OpId::Rsqrt: { static constexpr GradFormula f{"RsqrtBackward0", y, rsqrt_grad}; return f; }
    case OpId::Reciprocal: { static constexpr GradFormula f{"ReciprocalBackward0", y, reciprocal_grad}; return f; }
    case OpId::Sin: { static constexpr GradFormula f{"SinBackward0", x, sin_grad}; return f; }
    case OpId::Cos: { static constexpr GradFormula f{"CosBackward0", x, cos_grad}; return f; }
    case OpId::Tanh: { static constexpr GradFormula f{"TanhBackward0", y, tanh_grad}; return f; }
    case OpId::Sigmoid: { static constexpr GradFormula f{"SigmoidBackward0", y, sigmoid_grad}; return f; }
    case OpId::Relu: { static constexpr GradFormula f{"ReluBackward0", y, relu_grad}; return f; }
    case OpId::Gelu: { static constexpr GradFormula f{"GeluBackward0", x, gelu_grad}; return f; }
    case OpId::Erf: { static constexpr GradFormula f{"ErfBackward0", x, erf_grad}; return f; }
    case OpId::Floor: { static constexpr GradFormula f{"FloorBackward0", 0, zero_grad}; return f; }
    case OpId::Ceil: { static constexpr GradFormula f{"CeilBackward0", 0, zero_grad}; return f; }
    case OpId::Round: { static constexpr GradFormula f{"RoundBackward0", 0, zero_grad}; return f; }
    case OpId::Trunc: { static constexpr GradFormula f{"TruncBackward0", 0, zero_grad}; return f; }
    case OpId::Add: { static constexpr GradFormula f{"AddBackward0", 0, add_grad}; return f; }
    case OpId::Sub: { static constexpr GradFormula f{"SubBackward0", 0, sub_grad}; return f; }
    case OpId::Mul: { static constexpr GradFormula f{"MulBackward0", both, mul_grad}; return f; }
    case OpId::Div: { static constexpr GradFormula f{"DivBackward0", saves_operand(1) | y, div_grad}; return f; }
    case OpId::Pow: { static constexpr GradFormula f{"PowBackward0", both | y, pow_grad}; return f; }
    case OpId::Fmod: { static constexpr GradFormula f{"FmodBackward1", both, fmod_grad}; return f; }
    case OpId::Remainder: { static constexpr GradFormula f{"RemainderBackward1", both, fmod_grad}; return f; }
    case OpId::Maximum: { static constexpr GradFormula f{"MaximumBackward0", both, maximum_grad}; return f; }
    case OpId::Minimum: { static constexpr GradFormula f{"MinimumBackward0", both, minimum_grad}; return f; }
    case OpId::Where: { static constexpr GradFormula f{"WhereBackward0", x, where_grad}; return f; }
    case OpId::Sum: { static constexpr GradFormula f{"SumBackward1", 0, sum_grad}; return f; }
    case OpId::Prod: { static constexpr GradFormula f{"ProdBackward1", x | y, prod_grad}; return f; }
    case OpId::Amax: { static constexpr GradFormula f{"AmaxBackward0", x | y, extremum_reduce_grad}; return f; }
    case OpId::Amin: { static constexpr GradFormula f{"AminBackward0", x | y, extremum_reduce_grad}; return f; }
    case OpId::MatMul: { static constexpr GradFormula f{"MmBackward0", both, matmul_grad}; return f; }
    case OpId::IndexSelect: {
      static constexpr GradFormula f{"IndexSelectBackward0", saves_operand(1), index_select_grad};
      return f;
    }
    case OpId::Gather: { static constexpr GradFormula f{"GatherBackward0", saves_operand(1), gather_grad}; return f; }
    case OpId::ScatterAdd: {
      static constexpr GradFormula f{"ScatterAddBackward0", saves_operand(1), scatter_add_grad};
      return f;
    }
    case OpId::Cumsum: { static constexpr GradFormula f{"CumsumBackward0", 0, cumsum_grad}; return f; }
    case OpId::Cumprod: { static constexpr GradFormula f{"CumprodBackward0", x | y, cumprod_grad}; return f; }
    case OpId::Im2col: { static constexpr GradFormula f{"Im2ColBackward0", 0, im2col_grad}; return f; }
    case OpId::Col2im: { static constexpr GradFormula f{"Col2ImBackward0", 0, col2im_grad}; return f; }
  }
  return kNone;
}

Tensor sum_to(const Tensor& g, IntArrayRef shape) {
  if (g.sizes() == shape) return g;
  std::int64_t lead = g.dim() - static_cast<std::int64_t>(shape.size());
  std::vector<std::int64_t> dims;
  for (std::int64_t d = 0; d < g.dim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && g.size(d) != 1)) dims.push_back(d);
  Tensor r = dims.empty() ? g : g.sum(dims, true);
  return r.reshape(shape);
}

Tensor expand_reduced(const Tensor& g, IntArrayRef shape, std::int64_t mask, bool keepdim) {
  Tensor r = g;
  if (!keepdim && !shape.empty()) {
    std::vector<std::int64_t> kept(shape.begin(), shape.end());
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (mask >> d & 1) kept[d] = 1;
    r = r.reshape(kept);
  }
  return r.expand(shape);
}

}  // namespace kiln::autograd

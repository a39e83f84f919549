// gradcheck for every differentiable op of the op table (swept by OpId, so
// a new op without a case here does not compile), for the composite ops
// with gradients of their own, and for views and in-place writes; second
// order for the ops LibTorch differentiates twice.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

#include "frontend/autograd/formulas.h"
#include "tests/autograd/gradcheck.h"
#include "trace/op.h"

namespace {

using gradcheck::Input;
using kiln::Tensor;
using kiln::trace::OpId;
using V = std::vector<Tensor>;

// Values in [lo, hi] whose magnitude is at least `gap` (away from kinks at 0).
Input values(std::vector<std::int64_t> shape, std::uint32_t seed, double lo = -1.5, double hi = 1.5, double gap = 0.2) {
  std::vector<double> v = gradcheck::random_values(gradcheck::numel(shape), seed, lo, hi);
  for (double& x : v)
    if (std::abs(x) < gap) x = x < 0 ? -gap - std::abs(x) : gap + x;
  return {v, shape};
}
Input positive(std::vector<std::int64_t> shape, std::uint32_t seed) { return values(shape, seed, 0.3, 2.0); }
// Values at least 0.1 from every multiple of 0.5 (the jumps of floor ... round).
Input off_grid(std::vector<std::int64_t> shape, std::uint32_t seed) {
  Input in = values(shape, seed, -3, 3);
  for (double& x : in.values) x = std::floor(x * 2) / 2 + 0.1 + 0.3 * (x * 2 - std::floor(x * 2));
  return in;
}
// Dividends whose quotient by any divisor in [1.9, 2.1] (or [-2.1, -1.9]) is
// at least 0.19 from a whole number: fmod and remainder jump there.
Input between_multiples_of_two(std::vector<std::int64_t> shape, std::uint32_t seed) {
  Input in = values(shape, seed, -2, 2);
  for (double& x : in.values) x = 2 * std::floor(x) + 0.5 + (x - std::floor(x));
  return in;
}
Input indices(std::vector<double> v, std::vector<std::int64_t> shape) { return {v, shape, false, false}; }
Input transposed(Input in) {
  in.transposed = true;
  return in;
}

struct Case {
  std::string name;
  gradcheck::Fn fn;
  std::vector<Input> inputs;
};

Tensor as_long(const Tensor& t) { return t.to(kiln::kInt64); }

// The cases of one primitive: its call through the public API, over shapes
// that broadcast, non-contiguous views and zero-size tensors where it applies.
std::vector<Case> cases(OpId op) {
  auto unary = [](std::string name, gradcheck::Fn fn, Input in) {
    Input t = in;
    return std::vector<Case>{{name, fn, {in}}, {name + "_noncontiguous", fn, {transposed(t)}},
                             {name + "_empty", fn, {Input{{}, {0, 3}}}}};
  };
  auto binary = [](std::string name, gradcheck::Fn fn, Input a, Input b) {
    Input col = b;
    col.shape = {3, 1};
    col.values.resize(3);
    Input row = b;
    row.shape = {4};
    row.values.resize(4);
    return std::vector<Case>{{name, fn, {a, b}},
                             {name + "_broadcast_row", fn, {a, row}},
                             {name + "_broadcast_col", fn, {col, a}},
                             {name + "_noncontiguous", fn, {transposed(a), b}}};
  };
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
    case OpId::FloorDivide: return {};
    case OpId::Copy: return unary("clone", [](const V& x) { return x[0].clone(); }, values({3, 4}, 1));
    case OpId::Neg: return unary("neg", [](const V& x) { return -x[0]; }, values({3, 4}, 2));
    case OpId::Abs: return unary("abs", [](const V& x) { return x[0].abs(); }, values({3, 4}, 3));
    case OpId::Exp: return unary("exp", [](const V& x) { return x[0].exp(); }, values({3, 4}, 4));
    case OpId::Log: return unary("log", [](const V& x) { return x[0].log(); }, positive({3, 4}, 5));
    case OpId::Log1p: return unary("log1p", [](const V& x) { return x[0].log1p(); }, positive({3, 4}, 6));
    case OpId::Sqrt: return unary("sqrt", [](const V& x) { return x[0].sqrt(); }, positive({3, 4}, 7));
    case OpId::Rsqrt: return unary("rsqrt", [](const V& x) { return x[0].rsqrt(); }, positive({3, 4}, 8));
    case OpId::Reciprocal:
      return unary("reciprocal", [](const V& x) { return x[0].reciprocal(); }, positive({3, 4}, 30));
    case OpId::Sin: return unary("sin", [](const V& x) { return x[0].sin(); }, values({3, 4}, 9));
    case OpId::Cos: return unary("cos", [](const V& x) { return x[0].cos(); }, values({3, 4}, 10));
    case OpId::Tanh: return unary("tanh", [](const V& x) { return x[0].tanh(); }, values({3, 4}, 11));
    case OpId::Sigmoid: return unary("sigmoid", [](const V& x) { return x[0].sigmoid(); }, values({3, 4}, 12));
    case OpId::Relu: return unary("relu", [](const V& x) { return x[0].relu(); }, values({3, 4}, 13));
    case OpId::Erf: return unary("erf", [](const V& x) { return x[0].erf(); }, values({3, 4}, 14));
    // Piecewise constant: values away from whole numbers and halves, gradient 0.
    case OpId::Floor: return unary("floor", [](const V& x) { return x[0].floor(); }, off_grid({3, 4}, 17));
    case OpId::Ceil: return unary("ceil", [](const V& x) { return kiln::ceil(x[0]); }, off_grid({3, 4}, 18));
    case OpId::Round: return unary("round", [](const V& x) { return x[0].round(); }, off_grid({3, 4}, 19));
    case OpId::Trunc: return unary("trunc", [](const V& x) { return x[0].trunc(); }, off_grid({3, 4}, 20));
    case OpId::Gelu: {
      auto c = unary("gelu", [](const V& x) { return kiln::gelu(x[0]); }, values({3, 4}, 15));
      auto t = unary("gelu_tanh", [](const V& x) { return kiln::gelu(x[0], "tanh"); }, values({3, 4}, 16));
      c.insert(c.end(), t.begin(), t.end());
      return c;
    }
    case OpId::Add: {
      auto c = binary("add", [](const V& x) { return x[0] + x[1]; }, values({3, 4}, 20), values({3, 4}, 21));
      c.push_back({"add_alpha_scalar", [](const V& x) { return x[0].add(x[1], 2.5) + 1.5; },
                   {values({3, 4}, 22), values({3, 4}, 23)}});
      return c;
    }
    case OpId::Sub: {
      auto c = binary("sub", [](const V& x) { return x[0] - x[1]; }, values({3, 4}, 24), values({3, 4}, 25));
      c.push_back({"rsub_scalar", [](const V& x) { return 2.0 - x[0]; }, {values({3, 4}, 26)}});
      return c;
    }
    case OpId::Mul: {
      auto c = binary("mul", [](const V& x) { return x[0] * x[1]; }, values({3, 4}, 27), values({3, 4}, 28));
      c.push_back({"mul_scalar", [](const V& x) { return x[0] * 3.0; }, {values({3, 4}, 29)}});
      c.push_back({"mul_self", [](const V& x) { return x[0] * x[0]; }, {values({3, 4}, 30)}});
      return c;
    }
    case OpId::Div: {
      auto c = binary("div", [](const V& x) { return x[0] / x[1]; }, values({3, 4}, 31), values({3, 4}, 32));
      c.push_back({"rdiv_scalar", [](const V& x) { return 2.0 / x[0]; }, {values({3, 4}, 33)}});
      return c;
    }
    case OpId::Pow: {
      auto c = binary("pow", [](const V& x) { return x[0].pow(x[1]); }, positive({3, 4}, 34), positive({3, 4}, 35));
      c.push_back({"pow_scalar", [](const V& x) { return x[0].pow(3); }, {values({3, 4}, 36)}});
      c.push_back({"pow_fractional", [](const V& x) { return x[0].pow(0.5); }, {positive({3, 4}, 37)}});
      c.push_back({"pow_scalar_base", [](const V& x) { return kiln::pow(2.0, x[0]); }, {values({3, 4}, 38)}});
      return c;
    }
    // Divisors near +-2 and dividends between its multiples: the quotient's
    // truncation (fmod) or floor (remainder) is constant around each point.
    case OpId::Fmod:
      return {{"fmod", [](const V& x) { return x[0].fmod(x[1]); },
               {between_multiples_of_two({3, 4}, 100), values({3, 4}, 101, 1.9, 2.1)}},
              {"fmod_broadcast_negative_divisor", [](const V& x) { return kiln::fmod(x[0], x[1]); },
               {between_multiples_of_two({3, 4}, 102), values({4}, 103, -2.1, -1.9)}},
              {"fmod_noncontiguous", [](const V& x) { return x[0].fmod(x[1]); },
               {transposed(between_multiples_of_two({3, 4}, 104)), values({3, 4}, 105, 1.9, 2.1)}},
              {"fmod_scalar", [](const V& x) { return x[0].fmod(-2.0); }, {between_multiples_of_two({3, 4}, 106)}}};
    case OpId::Remainder:
      return {{"remainder", [](const V& x) { return x[0].remainder(x[1]); },
               {between_multiples_of_two({3, 4}, 107), values({3, 4}, 108, -2.1, -1.9)}},
              {"remainder_operator_broadcast", [](const V& x) { return x[0] % x[1]; },
               {between_multiples_of_two({3, 4}, 109), values({3, 1}, 110, 1.9, 2.1)}},
              {"remainder_noncontiguous", [](const V& x) { return x[0].remainder(x[1]); },
               {transposed(between_multiples_of_two({3, 4}, 111)), values({3, 4}, 112, -2.1, -1.9)}},
              {"remainder_scalar", [](const V& x) { return x[0] % 2.0; }, {between_multiples_of_two({3, 4}, 113)}}};
    case OpId::Maximum:
      return binary("maximum", [](const V& x) { return kiln::maximum(x[0], x[1]); }, values({3, 4}, 39),
                    values({3, 4}, 40));
    case OpId::Minimum: {
      auto c = binary("minimum", [](const V& x) { return kiln::minimum(x[0], x[1]); }, values({3, 4}, 41),
                      values({3, 4}, 42));
      c.push_back({"clamp", [](const V& x) { return x[0].clamp(-0.5, 0.7); }, {values({3, 4}, 43)}});
      return c;
    }
    case OpId::Where:
      return {{"where",
               [](const V& x) { return kiln::where(x[0] > 0, x[1], x[2]); },
               {indices({1, -1, 1, -1, 1, 1, -1, -1, 1, -1, 1, -1}, {3, 4}), values({3, 4}, 44), values({4}, 45)}},
              {"where_scalar", [](const V& x) { return kiln::where(x[1] > 0.3, x[0], 0.0); },
               {values({3, 4}, 46), indices({0.1, 0.5, 0.9, 0.2}, {4})}}};
    case OpId::Sum:
      return {{"sum_all", [](const V& x) { return x[0].sum(); }, {values({3, 4}, 50)}},
              {"sum_dim", [](const V& x) { return x[0].sum({1}); }, {values({3, 4}, 51)}},
              {"sum_dims_keepdim", [](const V& x) { return x[0].sum({0, 2}, true); }, {values({2, 3, 4}, 52)}},
              {"sum_noncontiguous", [](const V& x) { return x[0].sum({0}); }, {transposed(values({3, 4}, 53))}},
              {"sum_empty", [](const V& x) { return x[0].sum({1}); }, {Input{{}, {3, 0}}}}};
    case OpId::Prod:
      return {{"prod_all", [](const V& x) { return x[0].prod(); }, {values({2, 3}, 54, 0.5, 1.5)}},
              {"prod_dim", [](const V& x) { return x[0].prod(1, true); }, {values({3, 4}, 55)}},
              {"prod_one_zero", [](const V& x) { return x[0].prod(1); },
               {Input{{0.0, 2.0, 3.0, 1.5, -1.0, 0.5}, {2, 3}}}}};
    case OpId::Amax:
      return {{"amax_dim", [](const V& x) { return x[0].amax({1}); }, {values({3, 4}, 56)}},
              {"max_all", [](const V& x) { return x[0].max(); }, {values({3, 4}, 57)}}};
    case OpId::Amin:
      return {{"amin_dim_keepdim", [](const V& x) { return x[0].amin({0}, true); }, {values({3, 4}, 58)}},
              {"min_all", [](const V& x) { return x[0].min(); }, {values({3, 4}, 59)}}};
    case OpId::MatMul:
      return {{"mm", [](const V& x) { return kiln::mm(x[0], x[1]); }, {values({3, 4}, 60), values({4, 5}, 61)}},
              {"mm_transposed", [](const V& x) { return kiln::mm(x[0], x[1]); },
               {transposed(values({3, 4}, 62)), transposed(values({4, 5}, 63))}},
              {"matmul_batched_broadcast", [](const V& x) { return kiln::matmul(x[0], x[1]); },
               {values({2, 3, 4}, 64), values({4, 5}, 65)}},
              {"matmul_vector", [](const V& x) { return kiln::matmul(x[0], x[1]); },
               {values({3, 4}, 66), values({4}, 67)}},
              // operands broadcast over some batch dims: their gradients fold those dims into the product
              {"matmul_broadcast_over_leading_batch", [](const V& x) { return kiln::matmul(x[0], x[1]); },
               {values({2, 3, 4, 5}, 160), values({3, 5, 2}, 161)}},
              {"matmul_broadcast_size_one_batch", [](const V& x) { return kiln::matmul(x[0], x[1].transpose(1, 2)); },
               {values({1, 4, 5}, 162), values({3, 2, 5}, 163)}},
              {"linear_3d_input", [](const V& x) { return kiln::nn::functional::linear(x[0], x[1], x[2]); },
               {values({2, 5, 4}, 164), values({3, 4}, 165), values({3}, 166)}},
              {"linear", [](const V& x) { return kiln::nn::functional::linear(x[0], x[1], x[2]); },
               {values({5, 4}, 68), values({3, 4}, 69), values({3}, 70)}}};
    case OpId::IndexSelect:
      return {{"index_select", [](const V& x) { return x[0].index_select(1, as_long(x[1])); },
               {values({3, 4}, 71), indices({3, 0, 3, 1}, {4})}}};
    case OpId::Gather:
      return {{"gather", [](const V& x) { return x[0].gather(1, as_long(x[1])); },
               {values({3, 4}, 72), indices({0, 3, 3, 1, 2, 0}, {3, 2})}}};
    // Repeated positions add up; the index is smaller than src (its last
    // column is never added) and than self outside dim.
    case OpId::ScatterAdd:
      return {{"scatter_add", [](const V& x) { return x[0].scatter_add(1, as_long(x[1]), x[2]); },
               {values({3, 4}, 73), indices({0, 3, 3, 1, 2, 0}, {3, 2}), values({3, 3}, 74)}},
              {"scatter_add_dim0", [](const V& x) { return kiln::scatter_add(x[0], 0, as_long(x[1]), x[2]); },
               {values({3, 2}, 75), indices({2, 0, 2, 2}, {2, 2}), transposed(values({2, 2}, 76))}}};
    // Overlapping windows with padding, stride and dilation; a transposed input.
    case OpId::Im2col: {
      const auto options = kiln::nn::functional::UnfoldFuncOptions({2, 3}).stride({2, 1}).padding({1, 0}).dilation({1, 2});
      return {{"unfold", [=](const V& x) { return kiln::nn::functional::unfold(x[0], options); }, {values({2, 3, 5, 6}, 79)}},
              {"unfold_noncontiguous",
               [=](const V& x) { return kiln::nn::functional::unfold(x[0].transpose(2, 3), options); },
               {values({2, 3, 6, 5}, 80)}}};
    }
    case OpId::Col2im: {  // the columns of the window above: 3 x 6 rows, 3 x 2 windows
      const auto options =
          kiln::nn::functional::FoldFuncOptions({5, 6}, {2, 3}).stride({2, 1}).padding({1, 0}).dilation({1, 2});
      return {{"fold", [=](const V& x) { return kiln::nn::functional::fold(x[0], options); }, {values({2, 18, 6}, 81)}},
              {"fold_unbatched", [=](const V& x) { return kiln::nn::functional::fold(x[0], options); },
               {values({18, 6}, 82)}}};
    }
    case OpId::Cumsum: {
      std::vector<Case> cs = unary("cumsum", [](const V& x) { return x[0].cumsum(1); }, values({3, 4}, 77));
      cs.push_back({"cumsum_dim0_3d", [](const V& x) { return kiln::cumsum(x[0], -3); }, {values({3, 2, 2}, 78)}});
      cs.push_back({"cumsum_zero_dim", [](const V& x) { return x[0].cumsum(0); }, {Input{{0.7}, {}}}});
      return cs;
    }
    // Lines without zeros, with one zero and with two (the gradient before,
    // at and after a line's first zero).
    case OpId::Cumprod: {
      std::vector<Case> cs = unary("cumprod", [](const V& x) { return x[0].cumprod(1); }, values({3, 4}, 78));
      const Input zeros{{0.5, 0, 1.5, -2, 0, 0.7, 1.2, 0, 0.9, -0.4, 1.1, 0.8}, {3, 4}};
      cs.push_back({"cumprod_zeros", [](const V& x) { return x[0].cumprod(1); }, {zeros}});
      cs.push_back({"cumprod_zeros_dim0", [](const V& x) { return kiln::cumprod(x[0], 0); }, {transposed(zeros)}});
      cs.push_back({"cumprod_zero_dim", [](const V& x) { return x[0].cumprod(-1); }, {Input{{0.0}, {}}}});
      return cs;
    }
  }
  return {};
}

std::vector<Case> composite_cases() {
  return {
      {"mean", [](const V& x) { return x[0].mean(); }, {values({3, 4}, 80)}},
      {"mean_dim", [](const V& x) { return x[0].mean({0}, true); }, {values({3, 4}, 81)}},
      {"softmax", [](const V& x) { return x[0].softmax(1); }, {values({3, 4}, 82)}},
      {"softmax_dim0_noncontiguous", [](const V& x) { return x[0].softmax(0); }, {transposed(values({3, 4}, 83))}},
      {"log_softmax", [](const V& x) { return x[0].log_softmax(-1); }, {values({3, 4}, 84)}},
      {"logsumexp", [](const V& x) { return x[0].logsumexp({1}); }, {values({3, 4}, 85)}},
      {"var", [](const V& x) { return x[0].var({1}); }, {values({3, 4}, 86)}},
      {"std_all", [](const V& x) { return x[0].std(); }, {values({3, 4}, 87)}},
      {"silu", [](const V& x) { return kiln::silu(x[0]); }, {values({3, 4}, 88)}},
      {"norm_2_dim", [](const V& x) { return x[0].norm(2, 1); }, {values({3, 4}, 105)}},
      {"norm_3_all", [](const V& x) { return x[0].norm(3); }, {values({3, 4}, 106)}},
      {"norm_1_inf", [](const V& x) { return x[0].norm(1, 0, true) + x[0].norm(INFINITY, 0, true); },
       {values({3, 4}, 107)}},
      {"var_std_whole", [](const V& x) { return kiln::var(x[0]) + kiln::std(x[0], false); }, {values({3, 4}, 108)}},
      {"log_sigmoid_through_0", [](const V& x) { return kiln::log_sigmoid(x[0]); },
       {Input{{-30, -0.5, 0, 0.5, 40}, {5}}}},
      // Values distinct by far more than the step, so the order holds.
      {"sort", [](const V& x) { return std::get<0>(x[0].sort()); }, {values({3, 4}, 130)}},
      {"sort_descending_dim0", [](const V& x) { return std::get<0>(kiln::sort(x[0], 0, true)); },
       {transposed(values({3, 4}, 131))}},
      {"sort_zero_dim", [](const V& x) { return std::get<0>(x[0].sort(std::optional<bool>(true))); },
       {Input{{0.7}, {}}}},
      {"topk", [](const V& x) { return std::get<0>(x[0].topk(2)); }, {values({3, 4}, 132)}},
      {"topk_smallest_dim0", [](const V& x) { return std::get<0>(kiln::topk(x[0], 2, 0, false)); },
       {transposed(values({3, 4}, 133))}},
      {"cat", [](const V& x) { return kiln::cat({x[0], x[1] * 2}, 1); }, {values({3, 2}, 89), values({3, 4}, 90)}},
      {"stack", [](const V& x) { return kiln::stack({x[0], x[1]}, 0); }, {values({3, 4}, 91), values({3, 4}, 92)}},
      {"views",
       [](const V& x) {
         return x[0].reshape({4, 3}).t().unsqueeze(0).permute({2, 0, 1}).squeeze(1).transpose(0, 1).flatten();
       },
       {values({3, 4}, 93)}},
      {"view_expand", [](const V& x) { return x[0].view({3, 1, 4}).expand({3, 2, 4}) * 2; }, {values({3, 4}, 94)}},
      {"slice_narrow_select",
       [](const V& x) { return (x[0].slice(1, 1, 4, 2) * 2 + x[0].select(1, -1).unsqueeze(1)).narrow(0, 1, 2); },
       {values({3, 4}, 95)}},
      {"split_chunk", [](const V& x) { return x[0].split(2, 1)[1] * x[0].chunk(2, 1)[0]; }, {values({3, 4}, 96)}},
      {"inplace_on_non_leaf",
       [](const V& x) {
         Tensor y = x[0] * 1.0;
         y.mul_(x[1]).add_(2.0).relu_();
         return y;
       },
       {values({3, 4}, 97), values({3, 4}, 98)}},
      {"inplace_after_saved_input",
       [](const V& x) {
         Tensor y = x[0].sin();
         y.div_(x[1]);  // sin saved its input, not y
         return y;
       },
       {values({3, 4}, 99), values({3, 4}, 100)}},
      {"inplace_through_view",
       [](const V& x) {
         Tensor y = x[0] * 1.0;
         y.narrow(1, 1, 2).mul_(x[1]);
         y.select(0, 0).fill_(3.0);
         return y * y;
       },
       {values({3, 4}, 101), values({3, 2}, 102)}},
      {"copy_into_view",
       [](const V& x) {
         Tensor y = x[0] * 2.0;
         y.slice(0, 0, 2).copy_(x[1]);
         return y;
       },
       {values({3, 4}, 103), values({4}, 104)}},
  };
}

class OpGradcheck : public ::testing::TestWithParam<int> {};

TEST_P(OpGradcheck, AnalyticMatchesCentralDifferences) {
  auto op = static_cast<OpId>(GetParam());
  std::vector<Case> cs = cases(op);
  if (kiln::autograd::is_differentiable(op)) {
    ASSERT_NE(kiln::autograd::grad_formula(op).fn, nullptr) << kiln::trace::name(op) << " has no gradient formula";
    ASSERT_FALSE(cs.empty()) << kiln::trace::name(op) << " is differentiable but has no gradcheck case";
  } else {
    EXPECT_TRUE(cs.empty());
  }
  for (const Case& c : cs) EXPECT_TRUE(gradcheck::check(c.fn, c.inputs)) << c.name;
}

INSTANTIATE_TEST_SUITE_P(EveryOp, OpGradcheck, ::testing::Range(0, kiln::trace::kNumOps),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(kiln::trace::name(static_cast<OpId>(info.param)));
                         });

TEST(CompositeGradcheck, AnalyticMatchesCentralDifferences) {
  for (const Case& c : composite_cases()) EXPECT_TRUE(gradcheck::check(c.fn, c.inputs)) << c.name;
}

TEST(SecondOrderGradcheck, TwiceDifferentiableOps) {
  // Ops whose backward is itself differentiable (LibTorch's double backward).
  std::vector<Case> cs = {
      {"mul_exp", [](const V& x) { return (x[0] * x[1]).exp(); }, {values({3, 4}, 110), values({3, 4}, 111)}},
      {"tanh_sigmoid", [](const V& x) { return x[0].tanh() * x[0].sigmoid(); }, {values({3, 4}, 112)}},
      {"div_log", [](const V& x) { return x[0].log() / x[1]; }, {positive({3, 4}, 113), values({3, 4}, 114)}},
      {"pow_sqrt", [](const V& x) { return x[0].pow(3) + x[0].sqrt(); }, {positive({3, 4}, 115)}},
      {"matmul", [](const V& x) { return kiln::mm(x[0] * x[0], x[1]); }, {values({3, 4}, 116), values({4, 2}, 117)}},
      {"softmax", [](const V& x) { return x[0].softmax(1) * x[0]; }, {values({3, 4}, 118)}},
      {"log_softmax", [](const V& x) { return x[0].log_softmax(1) * x[0]; }, {values({3, 4}, 119)}},
      {"mean_sum", [](const V& x) { return (x[0] * x[0]).mean({1}) * x[0].sum(); }, {values({3, 4}, 120)}},
      {"gelu", [](const V& x) { return kiln::gelu(x[0]); }, {values({3, 4}, 121)}},
      {"sin_cos", [](const V& x) { return x[0].sin() * x[0].cos(); }, {values({3, 4}, 122)}},
      {"views_and_slices", [](const V& x) { return (x[0].t().slice(0, 1, 3) * x[0].t().narrow(0, 0, 2)).pow(2); },
       {values({3, 4}, 123)}},
      {"cat", [](const V& x) { return kiln::cat({x[0] * x[0], x[0]}, 0).exp(); }, {values({2, 3}, 124)}},
      {"cumsum", [](const V& x) { return (x[0] * x[0]).cumsum(1); }, {values({3, 4}, 125)}},
      {"cumprod", [](const V& x) { return x[0].cumprod(1); }, {values({3, 4}, 127)}},
      {"sort_topk", [](const V& x) { return std::get<0>(x[0].sort(0)).pow(2) * std::get<0>(x[0].topk(3, 0)); },
       {values({3, 4}, 126)}},
  };
  for (const Case& c : cs) EXPECT_TRUE(gradcheck::check_second_order(c.fn, c.inputs)) << c.name;
}

}  // namespace

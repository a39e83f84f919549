// Fused chains of 5-12 ops with casts, scalars and broadcasting (stride-0
// inputs, transposed inputs with non-unit strides, strided outputs) over
// 0-D to 8-D iteration spaces, sizes 0, 1, and not multiples of the vector
// width; each at O1 and O3, whole range and split ranges.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/jit_codegen/codegen_harness.h"

namespace kiln::jit::codegen_test {
namespace {

using Sizes = std::vector<std::int64_t>;

const std::vector<Sizes> kShapes = {{}, {0}, {1}, {16}, {17}, {1000}, {1, 1}, {37, 1}, {3, 37},
                                    {0, 5}, {2, 3, 31}, {4, 1, 65}, {2, 1, 3, 5, 1, 2, 1, 3}};

// Stride 0 in every dim but the last (a row vector broadcast over rows).
Sizes row_broadcast(const SpecBuilder& b) {
  Sizes s = b.contiguous();
  for (std::size_t d = 0; d + 1 < s.size(); ++d) s[d] = 0;
  if (!s.empty()) s.back() = 1;
  return s;
}

// Stride 0 in the last dim (a column broadcast along rows).
Sizes column_broadcast(const SpecBuilder& b, const Sizes& sizes) {
  Sizes s(sizes.size());
  std::int64_t stride = 1;
  for (int d = static_cast<int>(sizes.size()) - 2; d >= 0; --d) {
    s[d] = stride;
    stride *= std::max<std::int64_t>(sizes[d], 1);
  }
  if (!s.empty()) s.back() = 0;
  return s;
}

// All dims reversed: the transpose of a contiguous tensor (non-unit inner stride).
Sizes transposed(const Sizes& sizes) {
  Sizes s(sizes.size());
  std::int64_t stride = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    s[d] = stride;
    stride *= std::max<std::int64_t>(sizes[d], 1);
  }
  return s;
}

// Every stride doubled: every other element of a larger buffer.
Sizes spread(const SpecBuilder& b) {
  Sizes s = b.contiguous();
  for (auto& x : s) x *= 2;
  return s;
}

std::string shape_label(const Sizes& sizes) {
  std::string out = "[";
  for (std::size_t d = 0; d < sizes.size(); ++d) out += (d ? ", " : "") + std::to_string(sizes[d]);
  return out + "]";
}

// GELU with the tanh formula as primitive ops (the benchmark's chain too).
TEST(CodegenChain, GeluTanhAsPrimitives) {
  for (const Sizes& sizes : kShapes) {
    SpecBuilder b(sizes);
    const ArgRef x = b.input(kFloat32);
    const ArgRef cube = b.op(OpId::Mul, kFloat32, {b.op(OpId::Mul, kFloat32, {x, x}), x});
    const ArgRef inner = b.op(OpId::Add, kFloat32, {x, b.op(OpId::Mul, kFloat32, {cube, b.scalar(kFloat64)})});
    const ArgRef t = b.op(OpId::Tanh, kFloat32, {b.op(OpId::Mul, kFloat32, {inner, b.scalar(kFloat64)})});
    const ArgRef y = b.op(OpId::Mul, kFloat32, {b.op(OpId::Mul, kFloat32, {x, b.scalar(kFloat64)}),
                                                b.op(OpId::Add, kFloat32, {t, b.scalar(kFloat64)})});
    b.output(y, kFloat32);
    check_kernel(b.spec(), bind(b.spec(), {0.044715, 0.7978845608028654, 0.5, 1.0}), "gelu " + shape_label(sizes));
  }
}

// int32 -> float math -> compare -> where with a transposed input -> int64,
// three outputs of three dtypes, one of them transposed and converted.
TEST(CodegenChain, CastsBroadcastAndTranspose) {
  for (const Sizes& sizes : kShapes) {
    SpecBuilder b(sizes);
    const ArgRef a = b.input(kInt32);
    const ArgRef w = b.input(kFloat32, row_broadcast(b));
    const ArgRef tr = b.input(kFloat32, transposed(sizes));
    const ArgRef af = b.cast(a, kInt32, kFloat32);
    const ArgRef scaled = b.op(OpId::Mul, kFloat32, {af, w});
    const ArgRef wave = b.op(OpId::Sin, kFloat32, {scaled});
    const ArgRef positive = b.op(OpId::Gt, kFloat32, {wave, b.scalar(kFloat64)});
    const ArgRef picked = b.op(OpId::Where, kFloat32, {positive, scaled, tr});
    const ArgRef as_long = b.cast(picked, kFloat32, kInt64);
    const ArgRef sum = b.op(OpId::Add, kInt64, {as_long, b.cast(a, kInt32, kInt64)});
    const ArgRef top = b.op(OpId::Maximum, kInt64, {sum, b.scalar(kInt64)});
    b.output(top, kInt64);
    b.output(positive, kBool);
    b.output(picked, kFloat64, transposed(sizes));
    check_kernel(b.spec(), bind(b.spec(), {0.25, std::int64_t{-30}}), "casts " + shape_label(sizes));
  }
}

// Comparisons and logic on int64 and bool, where on int64, a bool output
// with doubled strides; inputs broadcast along rows and columns.
TEST(CodegenChain, BoolLogic) {
  for (const Sizes& sizes : kShapes) {
    SpecBuilder b(sizes);
    const ArgRef p = b.input(kInt64);
    const ArgRef q = b.input(kInt64, column_broadcast(b, sizes));
    const ArgRef m = b.input(kBool, row_broadcast(b));
    const ArgRef lt = b.op(OpId::Lt, kInt64, {p, q});
    const ArgRef eq = b.op(OpId::Eq, kInt64, {p, b.scalar(kInt64)});
    const ArgRef either = b.op(OpId::LogicalOr, kBool, {lt, eq});
    const ArgRef neither = b.op(OpId::LogicalNot, kBool, {either});
    const ArgRef both = b.op(OpId::LogicalAnd, kBool, {neither, m});
    const ArgRef hi = b.op(OpId::Maximum, kBool, {both, eq});
    const ArgRef lo = b.op(OpId::Minimum, kBool, {hi, m});
    const ArgRef sum = b.op(OpId::Add, kBool, {lo, lt});
    const ArgRef prod = b.op(OpId::Mul, kBool, {sum, either});
    const ArgRef ge = b.op(OpId::Ge, kBool, {prod, m});
    const ArgRef pick = b.op(OpId::Where, kInt64, {ge, p, q});
    const ArgRef nonzero = b.op(OpId::LogicalNot, kFloat64, {b.cast(pick, kInt64, kFloat64)});
    b.output(pick, kInt64);
    b.output(ge, kBool, spread(b));
    b.output(nonzero, kInt32);
    check_kernel(b.spec(), bind(b.spec(), {std::int64_t{1}}), "bool logic " + shape_label(sizes));
  }
}

// Wrapping int32 arithmetic, integer pow with negative exponents, int64 round trip.
TEST(CodegenChain, IntegerArithmetic) {
  for (const Sizes& sizes : kShapes) {
    SpecBuilder b(sizes);
    const ArgRef a = b.input(kInt32);
    const ArgRef c = b.input(kInt32, column_broadcast(b, sizes));
    const ArgRef e = b.input(kInt32, transposed(sizes));
    const ArgRef neg = b.op(OpId::Neg, kInt32, {a});
    const ArgRef mag = b.op(OpId::Abs, kInt32, {neg});
    const ArgRef prod = b.op(OpId::Mul, kInt32, {mag, c});
    const ArgRef power = b.op(OpId::Pow, kInt32, {c, e});
    const ArgRef diff = b.op(OpId::Relu, kInt32, {b.op(OpId::Sub, kInt32, {prod, power})});
    const ArgRef clipped = b.op(OpId::Minimum, kInt32, {b.op(OpId::Maximum, kInt32, {diff, b.scalar(kInt64)}), a});
    const ArgRef wide = b.cast(clipped, kInt32, kInt64);
    const ArgRef square = b.op(OpId::Mul, kInt64, {wide, b.op(OpId::Pow, kInt64, {wide, b.scalar(kInt64)})});
    b.output(b.cast(square, kInt64, kInt32), kInt32, spread(b));
    b.output(power, kInt64);
    check_kernel(b.spec(), bind(b.spec(), {std::int64_t{3}, std::int64_t{2}}), "integers " + shape_label(sizes));
  }
}

// float64 math: sigmoid, log1p, sqrt, rsqrt, div, pow, extrema, gelu (erf).
TEST(CodegenChain, Float64Math) {
  for (const Sizes& sizes : kShapes) {
    SpecBuilder b(sizes);
    const ArgRef x = b.input(kFloat64);
    const ArgRef y = b.input(kFloat64, row_broadcast(b));
    const ArgRef s = b.op(OpId::Sigmoid, kFloat64, {x});
    const ArgRef l = b.op(OpId::Log1p, kFloat64, {s});
    const ArgRef mag = b.op(OpId::Abs, kFloat64, {y});
    const ArgRef root = b.op(OpId::Sqrt, kFloat64, {mag});
    const ArgRef inv = b.op(OpId::Rsqrt, kFloat64, {mag});
    const ArgRef ratio = b.op(OpId::Div, kFloat64, {root, b.op(OpId::Add, kFloat64, {l, inv})});
    const ArgRef p = b.op(OpId::Pow, kFloat64, {s, b.scalar(kFloat64)});
    const ArgRef m = b.op(OpId::Maximum, kFloat64, {b.op(OpId::Minimum, kFloat64, {ratio, p}), b.scalar(kFloat64)});
    const ArgRef g = b.op(OpId::Gelu, kFloat64, {m});
    const ArgRef c = b.op(OpId::Cos, kFloat64, {b.op(OpId::Neg, kFloat64, {g})});
    b.output(c, kFloat64);
    b.output(b.op(OpId::Relu, kFloat64, {b.op(OpId::Sub, kFloat64, {x, y})}), kFloat32);
    check_kernel(b.spec(), bind(b.spec(), {1.5, -0.75}), "float64 " + shape_label(sizes));
  }
}

// float32 exp/log/tanh with specials flowing through, and float32 pow.
TEST(CodegenChain, Float32Transcendentals) {
  for (const Sizes& sizes : kShapes) {
    SpecBuilder b(sizes);
    const ArgRef x = b.input(kFloat32);
    const ArgRef t = b.op(OpId::Tanh, kFloat32, {x});
    const ArgRef e = b.op(OpId::Exp, kFloat32, {t});
    const ArgRef l = b.op(OpId::Log, kFloat32, {e});
    const ArgRef p = b.op(OpId::Pow, kFloat32, {e, b.scalar(kFloat64)});
    const ArgRef c = b.op(OpId::Cos, kFloat32, {b.op(OpId::Mul, kFloat32, {l, p})});
    const ArgRef g = b.op(OpId::Gelu, kFloat32, {x}, 1);
    b.output(b.op(OpId::Add, kFloat32, {c, g}), kFloat32);
    b.output(b.op(OpId::Sqrt, kFloat32, {b.op(OpId::Exp, kFloat32, {x})}), kFloat64);
    check_kernel(b.spec(), bind(b.spec(), {1.5}), "float32 " + shape_label(sizes));
  }
}

// An input read twice through different views, an instruction nobody stores,
// an input nobody reads, and a kernel of scalars only.
TEST(CodegenChain, OddWiring) {
  SpecBuilder b({6, 7});
  const ArgRef x = b.input(kFloat32);
  const ArgRef xt = b.input(kFloat32, {1, 6});
  b.input(kInt64);  // unused
  b.op(OpId::Exp, kFloat32, {x});  // dead
  b.output(b.op(OpId::Sub, kFloat32, {x, xt}), kFloat32);
  b.output(b.op(OpId::Neg, kFloat64, {b.scalar(kFloat64)}), kFloat64);
  check_kernel(b.spec(), bind(b.spec(), {3.5}), "odd wiring");
}

}  // namespace
}  // namespace kiln::jit::codegen_test

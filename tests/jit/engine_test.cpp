// The engine: dead-op elimination, intermediate lifetimes, aliasing between
// in-place outputs and inputs, dtype staging, errors, profiler records.
#include <kiln/error.h>
#include <kiln/memory/memory.h>

#include "profiler/counters.h"
#include "tests/jit/op_checks.h"

namespace kiln::jit::testing {
namespace {

using Floats = std::vector<float>;
constexpr ScalarType F = kFloat32;

trace::Operand whole(SegmentBuilder& b, std::uint32_t v, std::int64_t n, ScalarType t = F) {
  return b.view(v, t, contiguous({n}));
}
trace::Operand number(double x) { return SegmentBuilder::scalar(Scalar(x), kFloat64); }

TEST(Engine, DeadNodesNeverRunAndTheirOutputsAreNeverAllocated) {
  profiler::reset();
  SegmentBuilder b;
  const auto x = b.input(Floats{1, 2, 3});
  const auto dead = b.value(12, true, false);  // nobody holds it, nobody reads it
  const auto also_dead = b.value(12, true, false);
  const auto y = b.value(12);
  b.node(OpId::Exp, F, whole(b, dead, 3), {whole(b, x, 3)});
  b.node(OpId::Neg, F, whole(b, also_dead, 3), {whole(b, dead, 3)});
  b.node(OpId::Neg, F, whole(b, y, 3), {whole(b, x, 3)});
  b.run();
  EXPECT_FALSE(b.storage(dead).is_allocated());
  EXPECT_FALSE(b.storage(also_dead).is_allocated());
  EXPECT_EQ(b.read<float>(y), (Floats{-1, -2, -3}));
  const Stats s = profiler::snapshot();
  EXPECT_EQ(s.ops_executed, 1u);
  EXPECT_EQ(s.ops_eliminated, 2u);
  EXPECT_EQ(s.segments_run, 1u);
  EXPECT_EQ(s.intermediate_bytes, 0u);
}

TEST(Engine, IntermediatesAreReleasedAfterTheirLastUse) {
  profiler::reset();
  SegmentBuilder b;
  const auto x = b.input(Floats{1, 2, 3, 4});
  const auto t1 = b.value(16, true, false), t2 = b.value(16, true, false);
  const auto y = b.value(16);
  b.node(OpId::Add, F, whole(b, t1, 4), {whole(b, x, 4), number(1)});
  b.node(OpId::Mul, F, whole(b, t2, 4), {whole(b, t1, 4), number(2)});
  b.node(OpId::Sub, F, whole(b, y, 4), {whole(b, t2, 4), whole(b, t1, 4)});
  b.run();
  EXPECT_EQ(b.read<float>(y), (Floats{2, 3, 4, 5}));
  EXPECT_FALSE(b.storage(t1).is_allocated());
  EXPECT_FALSE(b.storage(t2).is_allocated());
  EXPECT_EQ(profiler::snapshot().intermediate_bytes, 32u);
}

// Each add's output takes the memory of the input that dies at it, so the
// chain runs in one buffer beside x: the budget has room for one more.
TEST(Engine, AnElementwiseChainRunsInTheMemoryOfItsDyingInputs) {
  constexpr std::int64_t n = 1 << 18;  // 1 MiB of float32 per tensor
  const std::size_t bytes = n * sizeof(float);
  SegmentBuilder b;
  const auto x = b.input(Floats(n, 1.0f));
  std::uint32_t previous = x;
  std::vector<std::uint32_t> chain;
  for (int i = 0; i < 10; ++i) {
    chain.push_back(b.value(bytes, true, false));
    b.node(OpId::Add, F, whole(b, chain.back(), n), {whole(b, previous, n), number(1)});
    previous = chain.back();
  }
  const auto y = b.value(bytes);
  b.node(OpId::Neg, F, whole(b, y, n), {whole(b, previous, n)});
  profiler::reset();
  const std::size_t before = memory::budget();
  memory::set_budget(memory::stats().live_bytes + bytes + 4096);
  EXPECT_NO_THROW(b.run());
  memory::set_budget(before);
  EXPECT_EQ(b.read<float>(y)[n - 1], -11.0f);
  for (std::uint32_t t : chain) EXPECT_FALSE(b.storage(t).is_allocated());
  EXPECT_EQ(profiler::snapshot().intermediate_bytes, 10 * bytes);
}

// Where the dying input is read through another operand of the same node
// too, its memory stays its own: y = t * t reads t twice.
TEST(Engine, AnInputReadTwiceByTheNodeItDiesAtKeepsItsMemory) {
  SegmentBuilder b;
  const auto x = b.input(Floats{1, 2, 3});
  const auto t = b.value(12, true, false);
  const auto y = b.value(12);
  b.node(OpId::Add, F, whole(b, t, 3), {whole(b, x, 3), number(1)});
  b.node(OpId::Mul, F, whole(b, y, 3), {whole(b, t, 3), whole(b, t, 3)});
  b.run();
  EXPECT_EQ(b.read<float>(y), (Floats{4, 9, 16}));
}

// A dying input of another dtype or layout than the output is read as
// before, converted or broadcast; it does not give the output its bytes.
TEST(Engine, ADyingInputOfAnotherDtypeOrLayoutKeepsItsMemory) {
  SegmentBuilder b;
  const auto x = b.input(Floats{1, 2, 3, 4});
  const auto i = b.input(std::vector<std::int32_t>{1, 2, 3, 4});
  const auto t = b.value(16, true, false);  // int32, as large as the float output
  const auto u = b.value(16, true, false);  // float, read transposed
  const auto y = b.value(16), z = b.value(16);
  b.node(OpId::Add, kInt32, whole(b, t, 4, kInt32), {whole(b, i, 4, kInt32), number(1)});
  b.node(OpId::Mul, F, whole(b, y, 4), {whole(b, t, 4, kInt32), whole(b, x, 4)});
  b.node(OpId::Neg, F, whole(b, u, 4), {whole(b, x, 4)});
  b.node(OpId::Sub, F, b.view(z, F, contiguous({2, 2})),
         {b.view(u, F, transposed(contiguous({2, 2}))), b.view(x, F, contiguous({2, 2}))});
  b.run();
  EXPECT_EQ(b.read<float>(y), (Floats{2, 6, 12, 20}));
  EXPECT_EQ(b.read<float>(z), (Floats{-2, -5, -5, -8}));
}

TEST(Engine, EveryWriterOfANeededValueRuns) {
  SegmentBuilder b;
  const auto t = b.value(12, true, false);
  const auto y = b.value(12);
  b.node(OpId::Fill, F, whole(b, t, 3), {number(2)});
  b.node(OpId::Mul, F, whole(b, t, 3), {whole(b, t, 3), number(5)});  // t.mul_(5)
  b.node(OpId::Add, F, whole(b, y, 3), {whole(b, t, 3), number(1)});
  b.node(OpId::Mul, F, whole(b, t, 3), {whole(b, t, 3), number(100)});  // after the last read: dead
  b.run();
  EXPECT_EQ(b.read<float>(y), (Floats{11, 11, 11}));
  EXPECT_FALSE(b.storage(t).is_allocated());
}

TEST(Engine, InPlaceAddOfOwnTransposeEqualsOutOfPlace) {
  SegmentBuilder b;
  const Floats a = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto v = b.input(a);
  const Geometry g = contiguous({3, 3});
  b.node(OpId::Add, F, b.view(v, F, g), {b.view(v, F, g), b.view(v, F, transposed(g))});  // a.add_(a.t())
  b.run();
  const auto got = b.read<float>(v);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(got[i * 3 + j], a[i * 3 + j] + a[j * 3 + i]) << i << "," << j;
}

TEST(Engine, ShiftedCopyWithinOneStorageReadsTheOldValues) {
  SegmentBuilder b;
  const auto v = b.input(Floats{1, 2, 3, 4, 5});
  b.node(OpId::Copy, F, b.view(v, F, strided({4}, {1}, 1)), {b.view(v, F, strided({4}, {1}, 0))});  // a[1:] = a[:-1]
  b.run();
  EXPECT_EQ(b.read<float>(v), (Floats{1, 1, 2, 3, 4}));
}

TEST(Engine, MatmulReadingItsOutputStorage) {
  // a = a @ shift, with K past one packed block, so a naive kernel would
  // read rows it already overwrote; shift moves every column one right.
  constexpr std::int64_t k = 400;
  Floats a(2 * k), shift(k * k, 0.0f);
  for (std::int64_t i = 0; i < 2 * k; ++i) a[i] = static_cast<float>(i);
  for (std::int64_t r = 0; r < k; ++r) shift[r * k + (r + 1) % k] = 1;
  SegmentBuilder b;
  const auto v = b.input(a), s = b.input(shift);
  const Geometry g = contiguous({2, k});
  b.node(OpId::MatMul, F, b.view(v, F, g), {b.view(v, F, g), b.view(s, F, contiguous({k, k}))});
  b.run();
  const auto got = b.read<float>(v);
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < k; ++j) ASSERT_EQ(got[i * k + j], a[i * k + (j + k - 1) % k]) << i << "," << j;
}

TEST(Engine, ReductionReadingItsOutputStorage) {
  SegmentBuilder b;
  const auto v = b.input(Floats{1, 2, 5, 4});
  // a[1, :] = a.sum(1): the first sum lands on a[1, 0] before the second reads it.
  b.node(OpId::Sum, F, b.view(v, F, strided({2}, {1}, 2)), {b.view(v, F, contiguous({2, 2}))}, 2, 0);
  b.run();
  EXPECT_EQ(b.read<float>(v), (Floats{1, 2, 3, 9}));
}

TEST(Engine, NarrowerOutputAndMismatchedInputsAreConverted) {
  SegmentBuilder b;
  const auto x = b.input(Floats{1.5f, 2.5f});
  const auto d = b.input(std::vector<double>{0.25, 1e-9});
  const auto i = b.input(std::vector<std::int32_t>{3, 4});
  // x.add_(d) computes in float64 and stores float32.
  b.node(OpId::Add, kFloat64, whole(b, x, 2), {whole(b, x, 2), whole(b, d, 2, kFloat64)});
  // y = x * i: an int32 operand of a float32 op is widened.
  const auto y = b.value(8);
  b.node(OpId::Mul, F, whole(b, y, 2), {whole(b, x, 2), whole(b, i, 2, kInt32)});
  b.run();
  EXPECT_EQ(b.read<float>(x), (Floats{1.75f, static_cast<float>(2.5 + 1e-9)}));
  EXPECT_EQ(b.read<float>(y), (Floats{5.25f, 4 * static_cast<float>(2.5 + 1e-9)}));
}

TEST(Engine, ErrorsPropagateAndReleaseIntermediates) {
  SegmentBuilder b;
  const auto x = b.input(Floats{1, 2, 3});
  const auto t = b.value(12, true, false);
  const auto i = b.input(std::vector<std::int64_t>{0, 3});
  const auto y = b.value(8);
  b.node(OpId::Exp, F, whole(b, t, 3), {whole(b, x, 3)});
  b.node(OpId::IndexSelect, F, whole(b, y, 2), {whole(b, t, 3), whole(b, i, 2, kInt64)}, 0);
  EXPECT_THROW(b.run(), IndexError);
  EXPECT_FALSE(b.storage(t).is_allocated());
  EXPECT_EQ(b.failed_values, std::vector<std::uint32_t>{y}) << "only the failing node's output is lost";
}

TEST(Engine, AFailingNodeDoesNotStopIndependentNodes) {
  SegmentBuilder b;
  const auto x = b.input(Floats{1, 2, 3});
  const auto i = b.input(std::vector<std::int64_t>{7});
  const auto bad = b.value(4);
  const auto dependent = b.value(4);
  const auto fine = b.value(12);
  b.node(OpId::IndexSelect, F, whole(b, bad, 1), {whole(b, x, 3), whole(b, i, 1, kInt64)}, 0);
  b.node(OpId::Exp, F, whole(b, dependent, 1), {whole(b, bad, 1)});
  b.node(OpId::Neg, F, whole(b, fine, 3), {whole(b, x, 3)});
  EXPECT_THROW(b.run(), IndexError);
  EXPECT_EQ(b.failed_values, (std::vector<std::uint32_t>{bad, dependent}));
  EXPECT_EQ(b.read<float>(fine), (Floats{-1, -2, -3}));
}

TEST(Engine, ZeroSizeOutputs) {
  SegmentBuilder b;
  const auto x = b.input(Floats{});
  const auto y = b.value(0);
  const auto s = b.value(12);
  b.node(OpId::Add, F, b.view(y, F, contiguous({0, 3})), {b.view(x, F, contiguous({0, 3})), number(1)});
  b.node(OpId::Sum, F, b.view(s, F, contiguous({3})), {b.view(x, F, contiguous({0, 3}))}, 1, 0);
  b.node(OpId::Exp, F, b.view(y, F, contiguous({0})), {b.view(x, F, contiguous({0}))});
  EXPECT_NO_THROW(b.run());
  EXPECT_EQ(b.read<float>(s), (Floats{0, 0, 0}));
}

}  // namespace
}  // namespace kiln::jit::testing

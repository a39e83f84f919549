// sort, argsort and topk against std::stable_sort of each line: every
// dtype, every dim of several shapes, ascending and descending, ties (equal
// elements keep their input order), NaN (greater than every number),
// non-contiguous inputs, zero-dim inputs; their gradients' nodes and values;
// their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"
#include "tests/errors/expect_error.h"

namespace {

using kiln::Tensor;
using kref::Ref;
using kref::Shape;

// Small integers (many ties) in [-3, 3].
Ref ints(const Shape& s, unsigned seed) { return kref::random_steps(s, seed, -3, 3, 1); }

// The line's values at the positions `order`.
std::vector<double> pick(const std::vector<double>& line, const std::vector<double>& order) {
  std::vector<double> out;
  for (double i : order) out.push_back(line[static_cast<std::size_t>(i)]);
  return out;
}

// The reference sort of each line: (values, positions), the first k of each
// line when k >= 0.
std::pair<Ref, Ref> reference_sort(const Ref& a, std::int64_t dim, bool descending, std::int64_t k = -1) {
  auto order = [=](const std::vector<double>& line) {
    std::vector<double> o = kref::argsort_of(line, descending);
    if (k >= 0) o.resize(static_cast<std::size_t>(k));
    return o;
  };
  return {kref::along(a, dim, [&](const std::vector<double>& line) { return pick(line, order(line)); }),
          kref::along(a, dim, order)};
}

const Shape kShapes[] = {{9}, {4, 5}, {3, 4, 6}};

class SortTopk : public ::testing::TestWithParam<kiln::ScalarType> {};

TEST_P(SortTopk, SortAndArgsortMatchAStableSortOfEachLine) {
  const kiln::ScalarType dt = GetParam();
  for (const Shape& shape : kShapes) {
    const Ref a = kref::cast(ints(shape, 3), dt);
    const Tensor x = kref::make(a, dt);
    const auto nd = static_cast<std::int64_t>(shape.size());
    const Tensor xt = x.transpose(0, nd - 1).contiguous().transpose(0, nd - 1);  // the same values, strided
    for (std::int64_t dim = -nd; dim < nd; ++dim)
      for (bool descending : {false, true}) {
        SCOPED_TRACE(kref::str(shape) + " dim " + std::to_string(dim) + (descending ? " descending" : ""));
        const auto [want_values, want_indices] = reference_sort(a, dim, descending);
        for (const Tensor& in : {x, xt}) {
          const auto [values, indices] = in.sort(dim, descending);
          EXPECT_EQ(values.dtype(), dt);
          EXPECT_EQ(indices.dtype(), kiln::kInt64);
          EXPECT_TRUE(kref::close(kref::of(values), want_values, kref::kExact));
          EXPECT_TRUE(kref::close(kref::of(indices), want_indices, kref::kExact));
          EXPECT_TRUE(kref::close(kref::of(kiln::argsort(in, dim, descending)), want_indices, kref::kExact));
        }
      }
  }
}

TEST_P(SortTopk, TopkIsTheFirstKOfTheSortedLine) {
  const kiln::ScalarType dt = GetParam();
  for (const Shape& shape : kShapes) {
    const Ref a = kref::cast(ints(shape, 4), dt);
    const Tensor x = kref::make(a, dt);
    const auto nd = static_cast<std::int64_t>(shape.size());
    const Tensor xt = x.transpose(0, nd - 1).contiguous().transpose(0, nd - 1);
    for (std::int64_t dim = -nd; dim < nd; ++dim) {
      const std::int64_t n = shape[static_cast<std::size_t>(kref::wrap(dim, shape.size()))];
      for (std::int64_t k : {std::int64_t{0}, std::int64_t{1}, n / 2, n})
        for (bool largest : {true, false}) {
          SCOPED_TRACE(kref::str(shape) + " dim " + std::to_string(dim) + " k " + std::to_string(k) +
                       (largest ? " largest" : " smallest"));
          const auto [want_values, want_indices] = reference_sort(a, dim, largest, k);
          for (const Tensor& in : {x, xt}) {
            const auto [values, indices] = in.topk(k, dim, largest);
            EXPECT_TRUE(kref::close(kref::of(values), want_values, kref::kExact));
            EXPECT_TRUE(kref::close(kref::of(indices), want_indices, kref::kExact));
          }
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, SortTopk,
                         ::testing::Values(kiln::kBool, kiln::kInt32, kiln::kInt64, kiln::kFloat32, kiln::kFloat64),
                         [](const auto& info) { return std::string(kiln::to_string(info.param)); });

using I = std::vector<std::int64_t>;

TEST(SortOrder, NanIsGreaterThanEveryNumber) {
  const double nan = std::nan("");
  const double inf = INFINITY;
  for (kiln::ScalarType dt : {kiln::kFloat32, kiln::kFloat64}) {
    const Tensor x = kiln::tensor({3.0, nan, 1.0, nan, -inf, inf, 2.0}).to(dt);
    auto [up, up_i] = x.sort();
    EXPECT_EQ(up_i.to_vector<std::int64_t>(), (I{4, 2, 6, 0, 5, 1, 3}));
    const std::vector<double> v = up.to_vector<double>();
    EXPECT_EQ(std::vector<double>(v.begin(), v.begin() + 5), (std::vector<double>{-inf, 1, 2, 3, inf}));
    EXPECT_TRUE(std::isnan(v[5]) && std::isnan(v[6]));
    EXPECT_EQ(std::get<1>(x.sort(-1, true)).to_vector<std::int64_t>(), (I{1, 3, 5, 0, 6, 2, 4}));
    EXPECT_EQ(std::get<1>(x.topk(3)).to_vector<std::int64_t>(), (I{1, 3, 5}));
    EXPECT_EQ(std::get<1>(x.topk(3, 0, false)).to_vector<std::int64_t>(), (I{4, 2, 6}));
  }
}

TEST(SortOrder, EqualElementsKeepTheirInputOrder) {
  const Tensor x = kiln::tensor({1, 0, 1, 0, 1});
  EXPECT_EQ(x.argsort().to_vector<std::int64_t>(), (I{1, 3, 0, 2, 4}));
  EXPECT_EQ(x.argsort(0, true).to_vector<std::int64_t>(), (I{0, 2, 4, 1, 3}));
  EXPECT_EQ(std::get<1>(x.sort(std::optional<bool>(true), 0, true)).to_vector<std::int64_t>(), (I{0, 2, 4, 1, 3}));
  // -0.0 equals 0.0.
  EXPECT_EQ(kiln::tensor({0.0, -0.0, 0.0}).argsort().to_vector<std::int64_t>(), (I{0, 1, 2}));
  EXPECT_EQ(std::get<1>(kiln::topk(x, 2)).to_vector<std::int64_t>(), (I{0, 2}));
}

TEST(SortShapes, ZeroDimAndEmptyInputs) {
  const Tensor s = kiln::tensor({4.5}).reshape({});
  const auto [v, i] = s.sort();
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(i.dim(), 0);
  EXPECT_EQ(v.item<double>(), 4.5);
  EXPECT_EQ(i.item<std::int64_t>(), 0);
  const auto [tv, ti] = s.topk(1);
  EXPECT_EQ(tv.dim(), 0);
  EXPECT_EQ(tv.item<double>(), 4.5);
  EXPECT_EQ(ti.item<std::int64_t>(), 0);
  const auto [ev, ei] = kiln::zeros({3, 0}).sort(1);
  EXPECT_EQ(ev.sizes().vec(), (I{3, 0}));
  EXPECT_EQ(ei.sizes().vec(), (I{3, 0}));
  EXPECT_EQ(std::get<0>(kiln::ones({2, 3}).topk(0)).sizes().vec(), (I{2, 0}));
}

TEST(SortGrad, TheGradientGoesBackToThePositionsRead) {
  const Tensor x = kiln::tensor({{3.0, 1.0, 2.0}, {-1.0, 5.0, 0.0}}).requires_grad_();
  const auto [values, indices] = x.sort(1, true);
  EXPECT_EQ(values.grad_fn()->name(), "SortBackward0");
  EXPECT_FALSE(indices.requires_grad());
  (values * kiln::tensor({1.0, 10.0, 100.0})).sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{1, 100, 10, 100, 1, 10}));

  const Tensor y = kiln::tensor({{3.0, 1.0, 2.0}, {-1.0, 5.0, 0.0}}).requires_grad_();
  const Tensor top = std::get<0>(y.topk(1, 0, false));
  EXPECT_EQ(top.grad_fn()->name(), "TopkBackward0");
  (top * kiln::tensor({1.0, 10.0, 100.0})).sum().backward();
  EXPECT_EQ(y.grad().to_vector<double>(), (std::vector<double>{0, 10, 0, 1, 0, 100}));
  EXPECT_FALSE(y.argsort().requires_grad());
}

// k outside [0, size of dim] is an IndexError naming k, the size and the shape.
TEST(SortErrors, TopkWithKOutOfRange) {
  const Tensor x = kiln::ones({3, 4});
  for (std::int64_t k : {5, -1})
    EXPECT_TRUE(kerr::throws<kiln::IndexError>(
        [&] { (void)x.topk(k); },
        {"[topk] selected index k out of range: k = " + std::to_string(k) + " for dim 1 of size 4", "[3, 4]"}));
  EXPECT_TRUE(kerr::throws<kiln::IndexError>([&] { (void)x.topk(4, 0); }, {"k = 4 for dim 0 of size 3"}));
  EXPECT_TRUE(kerr::throws<kiln::IndexError>([] { (void)kiln::ones({}).topk(2); }, {"k = 2", "size 1"}));
}

TEST(SortErrors, ABadDimIsAnIndexErrorNamingTheOpAndShape) {
  const Tensor x = kiln::ones({2, 3});
  const std::pair<const char*, std::function<void()>> calls[] = {
      {"sort", [&] { (void)x.sort(2); }},
      {"argsort", [&] { (void)x.argsort(-3); }},
      {"topk", [&] { (void)x.topk(1, 5); }},
  };
  for (const auto& [op, call] : calls)
    EXPECT_TRUE(kerr::throws<kiln::IndexError>(call, {std::string("[") + op + "] dim ", "[2, 3]"})) << op;
}

}  // namespace

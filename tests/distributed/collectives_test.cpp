// Each collective against its definition, for every dtype, on sizes 0, 1
// and odd ones; results read without wait() (reading waits); mismatched
// collectives reported on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include <kiln/c10d.h>
#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

const kiln::ScalarType kDtypes[] = {kiln::kBool, kiln::kInt32, kiln::kInt64, kiln::kFloat32, kiln::kFloat64};
const std::int64_t kSizes[] = {0, 1, 7, 1001};

std::shared_ptr<c10d::ProcessGroupMPI> group() { return c10d::ProcessGroupMPI::createProcessGroupMPI(); }

// Rank r's element i: small integers (exact in every dtype, products of
// three ranks stay small); bools are true on every third element, shifted by rank.
double value(kiln::ScalarType dtype, int rank, std::int64_t i) {
  if (dtype == kiln::kBool) return (i + rank) % 3 == 0 ? 1.0 : 0.0;
  return static_cast<double>((i * 7 + rank * 3) % 5 + 1) * (dtype == kiln::kFloat32 || dtype == kiln::kFloat64 ? 0.5 : 1.0);
}

// Rank r's tensor, computed by ops (so the collective materializes it).
Tensor input(kiln::ScalarType dtype, int rank, std::int64_t n) {
  Tensor i = kiln::arange(n, kiln::kInt64);
  if (dtype == kiln::kBool) return ((i + rank) % 3).eq(0);
  Tensor v = ((i * 7 + rank * 3) % 5 + 1).to(dtype);
  return (dtype == kiln::kFloat32 || dtype == kiln::kFloat64) ? v * 0.5 : v;
}

std::vector<double> values(const Tensor& t) { return t.to(kiln::kFloat64).to_vector<double>(); }

double reduce_exactly(c10d::ReduceOp::RedOpType op, kiln::ScalarType dtype, int size, std::int64_t i) {
  std::vector<double> v;
  for (int r = 0; r < size; ++r) v.push_back(value(dtype, r, i));
  if (dtype == kiln::kBool) {
    const bool any = std::any_of(v.begin(), v.end(), [](double x) { return x != 0; });
    const bool all = std::all_of(v.begin(), v.end(), [](double x) { return x != 0; });
    return (op == c10d::ReduceOp::SUM || op == c10d::ReduceOp::MAX) ? any : all;
  }
  switch (op) {
    case c10d::ReduceOp::SUM: return std::accumulate(v.begin(), v.end(), 0.0);
    case c10d::ReduceOp::AVG: return std::accumulate(v.begin(), v.end(), 0.0) / size;
    case c10d::ReduceOp::PRODUCT: return std::accumulate(v.begin(), v.end(), 1.0, std::multiplies<>());
    case c10d::ReduceOp::MIN: return *std::min_element(v.begin(), v.end());
    case c10d::ReduceOp::MAX: return *std::max_element(v.begin(), v.end());
  }
  return NAN;
}

bool floating(kiln::ScalarType d) { return d == kiln::kFloat32 || d == kiln::kFloat64; }

// The reduction over ranks of element i, rounded to `dtype` (AVG's quotient
// is rounded once, as a division in that dtype does).
double reduce(c10d::ReduceOp::RedOpType op, kiln::ScalarType dtype, int size, std::int64_t i) {
  const double exact = reduce_exactly(op, dtype, size, i);
  return dtype == kiln::kFloat32 ? static_cast<double>(static_cast<float>(exact)) : exact;
}

TEST(Collectives, AllreduceFollowsTheDefinitionForEveryDtypeAndOp) {
  auto pg = group();
  for (kiln::ScalarType dtype : kDtypes)
    for (auto op : {c10d::ReduceOp::SUM, c10d::ReduceOp::AVG, c10d::ReduceOp::PRODUCT, c10d::ReduceOp::MIN,
                    c10d::ReduceOp::MAX}) {
      if (op == c10d::ReduceOp::AVG && !floating(dtype)) continue;
      for (std::int64_t n : kSizes) {
        std::vector<Tensor> t{input(dtype, pg->getRank(), n)};
        auto work = pg->allreduce(t, c10d::AllreduceOptions{op});
        const std::vector<double> got = values(t[0]);  // no wait(): reading waits
        EXPECT_TRUE(work->isCompleted());
        ASSERT_EQ(got.size(), static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_DOUBLE_EQ(got[i], reduce(op, dtype, pg->getSize(), i))
              << dtype << " op " << int(op) << " n " << n << " i " << i;
        EXPECT_TRUE(work->wait());
        EXPECT_TRUE(work->isSuccess());
      }
    }
}

TEST(Collectives, AverageOfIntegersOrBoolsIsRejected) {
  auto pg = group();
  for (kiln::ScalarType dtype : {kiln::kBool, kiln::kInt32, kiln::kInt64}) {
    std::vector<Tensor> t{kiln::zeros({3}, dtype)};
    try {
      pg->allreduce(t, c10d::AllreduceOptions{c10d::ReduceOp::AVG});
      FAIL() << "AVG of " << dtype << " was accepted";
    } catch (const c10d::DistributedError& e) {
      EXPECT_NE(std::string(e.what()).find(kiln::to_string(dtype)), std::string::npos) << e.what();
    }
  }
}

TEST(Collectives, BroadcastCopiesTheRootsTensorFromEveryRoot) {
  auto pg = group();
  for (int root = 0; root < pg->getSize(); ++root)
    for (kiln::ScalarType dtype : kDtypes)
      for (std::int64_t n : kSizes) {
        std::vector<Tensor> t{input(dtype, pg->getRank(), n)};
        pg->broadcast(t, c10d::BroadcastOptions{root});
        const std::vector<double> got = values(t[0]);
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], value(dtype, root, i)) << dtype << " root " << root;
      }
}

TEST(Collectives, AllgatherGivesEveryRanksTensorInRankOrder) {
  auto pg = group();
  for (kiln::ScalarType dtype : kDtypes)
    for (std::int64_t n : kSizes) {
      std::vector<Tensor> in{input(dtype, pg->getRank(), n)};
      std::vector<std::vector<Tensor>> out(1);
      for (int r = 0; r < pg->getSize(); ++r) out[0].push_back(kiln::empty({n}, dtype));
      pg->allgather(out, in)->wait();
      for (int r = 0; r < pg->getSize(); ++r) {
        const std::vector<double> got = values(out[0][r]);
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], value(dtype, r, i)) << dtype << " from rank " << r;
      }
    }
}

TEST(Collectives, ReduceScatterGivesEachRankItsReducedChunk) {
  auto pg = group();
  const int size = pg->getSize();
  for (kiln::ScalarType dtype : kDtypes)
    for (auto op : {c10d::ReduceOp::SUM, c10d::ReduceOp::MAX, c10d::ReduceOp::AVG}) {
      if (op == c10d::ReduceOp::AVG && !floating(dtype)) continue;
      for (std::int64_t n : kSizes) {
        // Chunk c of rank r is input(r) over [c*n, (c+1)*n) of a longer range.
        const Tensor whole = input(dtype, pg->getRank(), n * size);
        std::vector<std::vector<Tensor>> in(1);
        for (int c = 0; c < size; ++c) in[0].push_back(whole.narrow(0, c * n, n).contiguous());
        std::vector<Tensor> out{kiln::full({n}, 9, dtype)};
        pg->reduce_scatter(out, in, c10d::ReduceScatterOptions{op});
        const std::vector<double> got = values(out[0]);
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_DOUBLE_EQ(got[i], reduce(op, dtype, size, pg->getRank() * n + i)) << dtype << " n " << n;
      }
    }
}

TEST(Collectives, BarrierCompletes) {
  auto pg = group();
  EXPECT_TRUE(pg->barrier()->wait());
}

TEST(Collectives, ACollectiveWaitsForTheOnePendingOnItsTensor) {
  auto pg = group();
  std::vector<Tensor> t{kiln::ones({5}) * (pg->getRank() + 1)};
  auto first = pg->allreduce(t);
  auto second = pg->allreduce(t);  // reads the first's result
  second->wait();
  const float sum = pg->getSize() * (pg->getSize() + 1) / 2.0f;
  EXPECT_EQ(t[0].sum().item<float>(), 5 * sum * pg->getSize());
  Tensor later = t[0] + 1;  // an op recorded on the result after completion
  EXPECT_EQ(later[0].item<float>(), sum * pg->getSize() + 1);
}

TEST(Collectives, MismatchedShapesAreReportedOnEveryRankNamingRanksAndShapes) {
  auto pg = group();
  std::vector<Tensor> t{kiln::ones({pg->getRank() == 0 ? 4 : 6})};
  auto work = pg->allreduce(t);
  try {
    work->wait();
    FAIL() << "mismatched allreduce completed";
  } catch (const c10d::DistributedError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("rank 0: allreduce"), std::string::npos) << m;
    EXPECT_NE(m.find("[4]"), std::string::npos) << m;
    EXPECT_NE(m.find("rank 1: allreduce"), std::string::npos) << m;
    EXPECT_NE(m.find("[6]"), std::string::npos) << m;
  }
  EXPECT_THROW(t[0].data_ptr<float>(), kiln::Error);  // its value was never computed
  // The group goes on: every rank skipped the same collective.
  std::vector<Tensor> u{kiln::ones({2})};
  pg->allreduce(u)->wait();
  EXPECT_EQ(u[0][0].item<float>(), pg->getSize());
}

TEST(Collectives, MisuseNamesTheValues) {
  auto pg = group();
  std::vector<Tensor> two{kiln::ones({2}), kiln::ones({2})};
  EXPECT_THROW(pg->allreduce(two), kiln::ValueError);
  std::vector<Tensor> strided{kiln::ones({4, 4}).t()};
  try {
    pg->allreduce(strided);
    FAIL();
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("contiguous"), std::string::npos) << e.what();
  }
  std::vector<Tensor> one{kiln::ones({2})};
  try {
    pg->broadcast(one, c10d::BroadcastOptions{pg->getSize()});
    FAIL();
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(pg->getSize())), std::string::npos) << e.what();
  }
}

}  // namespace

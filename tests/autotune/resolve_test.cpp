// resolve(): an explicit config beats the database, which beats the heuristic; a
// database config outside the space falls back to the heuristic.
#include <gtest/gtest.h>

#include "autotune/resolve.h"
#include "tests/autotune/db_fixture.h"

namespace kiln::autotune {
namespace {

using testing::test_context;
using Resolve = testing::TuningDbTest;

ConfigSpace gemm_space() {
  ConfigSpace space;
  space.add("kc", {128, 256, 384}).add("mc", {48, 96});
  return space;
}

const Config kHeuristic = {{"kc", 256}, {"mc", 48}};
const Config kTuned = {{"kc", 384}, {"mc", 96}};
const Config kExplicit = {{"kc", 128}, {"mc", 96}};

TuningEntry entry_with(Config config) {
  TuningEntry entry;
  entry.config = std::move(config);
  entry.seconds = 1e-3;
  return entry;
}

TEST_F(Resolve, ExplicitBeatsDatabaseBeatsHeuristic) {
  TuningDb db(db_file(), test_context());
  db.store("gemm/k", entry_with(kTuned));
  int heuristic_calls = 0;
  auto heuristic = [&] {
    ++heuristic_calls;
    return kHeuristic;
  };
  EXPECT_EQ(resolve(kExplicit, &db, "gemm/k", gemm_space(), heuristic), kExplicit);
  EXPECT_EQ(resolve(std::nullopt, &db, "gemm/k", gemm_space(), heuristic), kTuned);
  EXPECT_EQ(heuristic_calls, 0);
  EXPECT_EQ(resolve(std::nullopt, &db, "gemm/other", gemm_space(), heuristic), kHeuristic);
  EXPECT_EQ(resolve(std::nullopt, nullptr, "gemm/k", gemm_space(), heuristic), kHeuristic);
  EXPECT_EQ(heuristic_calls, 2);
}

TEST_F(Resolve, DatabaseConfigOutsideTheSpaceFallsBackToTheHeuristic) {
  TuningDb db(db_file(), test_context());
  db.store("value", entry_with({{"kc", 512}, {"mc", 96}}));     // a value the space no longer has
  db.store("knob", entry_with({{"kc", 384}}));                  // a knob missing
  db.store("extra", entry_with({{"kc", 384}, {"mc", 96}, {"nr", 8}}));  // a knob the space does not have
  for (const char* key : {"value", "knob", "extra"}) {
    EXPECT_EQ(resolve(std::nullopt, &db, key, gemm_space(), [] { return kHeuristic; }), kHeuristic) << key;
  }
}

}  // namespace
}  // namespace kiln::autotune

// Values evicted under a memory budget: read back by the user, used again as
// inputs, made by random ops, pinned by data_ptr, and a budget below what a
// program cannot do without. Tier 0 (the JIT off), where a recomputed value
// equals the evicted one bit for bit.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

constexpr std::size_t kMiB = std::size_t{1} << 20;

class Eviction : public ::testing::Test {
 protected:
  void SetUp() override {
    kiln::jit::set_enabled(false);
    kiln::set_eviction_policy("dtr");  // which values go first is the policy's, whatever KILN_EVICTION_POLICY says
    kiln::sync();
  }
  void TearDown() override {
    kiln::set_memory_budget(0);
    kiln::jit::set_enabled(true);
  }
  // A budget of `extra` bytes above what is live now.
  static void budget_above_live(std::size_t extra) { kiln::set_memory_budget(kiln::stats().live_bytes + extra); }
};

// Eight 1 MiB values, each made from the previous one, all held: under a
// budget of 6 MiB above the input (a 512 x 512 product also takes 1.25 MiB
// of packing workspace) some of them must be evicted, and each read
// recomputes it (and whatever it is made from that was evicted too).
std::vector<Tensor> chain(const Tensor& x) {
  std::vector<Tensor> out{x};
  for (int i = 0; i < 8; ++i) {
    const Tensor& prev = out.back();
    out.push_back(i % 2 ? (prev * 0.5 + 1).tanh() : prev.matmul(prev.t()) * (1.0 / 512));
    kiln::sync();
  }
  return out;
}

TEST_F(Eviction, ValuesReadBackAfterEvictionAreTheUnconstrainedOnes) {
  kiln::manual_seed(5);
  const Tensor x = kiln::randn({512, 512});
  std::vector<std::vector<float>> expected;
  for (const Tensor& t : chain(x)) expected.push_back(t.to_vector<float>());

  budget_above_live(6 * kMiB);
  kiln::reset_stats();  // the peak from here
  const kiln::Stats before = kiln::stats();
  const std::vector<Tensor> values = chain(x);
  for (std::size_t i = values.size(); i-- > 0;)  // last first: the earliest were evicted longest ago
    EXPECT_EQ(values[i].to_vector<float>(), expected[i]) << "value " << i;
  const kiln::Stats after = kiln::stats();
  EXPECT_GT(after.evictions, before.evictions);
  EXPECT_GT(after.recomputes, before.recomputes);
  EXPECT_GT(after.bytes_evicted, before.bytes_evicted);
  EXPECT_GT(after.ooms_avoided, before.ooms_avoided);
  EXPECT_LE(after.peak_bytes, kiln::memory_budget());
}

// The timeline and kiln::stats() name what went and came back: its size,
// dtype, shape and producer, and the call site of the segment that made it.
TEST_F(Eviction, EvictionAndRecomputationEventsNameTheValue) {
  kiln::manual_seed(5);
  const Tensor x = kiln::randn({512, 512});
  budget_above_live(6 * kMiB);
  kiln::reset_stats();
  const std::vector<Tensor> values = chain(x);
  for (const Tensor& t : values) t.to_vector<float>();
  int evicted = 0, recomputed = 0;
  for (const kiln::EventStats& e : kiln::stats().recent_events) {
    const std::string kind = e.kind;
    if (kind != "evicted" && kind != "recomputed") continue;
    ++(kind == "evicted" ? evicted : recomputed);
    EXPECT_TRUE(e.detail.starts_with("1.00 MiB Float [512, 512] made by ")) << kind << ": " << e.detail;
    EXPECT_NE(e.call_site.find("chain"), std::string::npos) << kind << " at " << e.call_site;
  }
  EXPECT_GT(evicted, 0);
  EXPECT_GT(recomputed, 0);
}

TEST_F(Eviction, EvictedValuesUsedAsInputsAreRecomputedFirst) {
  // Least recently used first, so that v[3] is surely evicted: DTR weighs
  // each value's measured compute time, and on a loaded machine it kept
  // v[3] (a product, costly to remake) now and then, with nothing to
  // recompute. What is tested here is the recomputation, not the choice.
  kiln::set_eviction_policy("lru");
  kiln::manual_seed(6);
  const Tensor x = kiln::randn({512, 512});
  const std::vector<float> expected = [&] {
    std::vector<Tensor> v = chain(x);
    return (v[3] + v[8]).sum(1).to_vector<float>();
  }();
  budget_above_live(6 * kMiB);
  std::vector<Tensor> v = chain(x);
  const std::uint64_t recomputes = kiln::stats().recomputes;
  EXPECT_EQ((v[3] + v[8]).sum(1).to_vector<float>(), expected);
  EXPECT_GT(kiln::stats().recomputes, recomputes) << "v[3] was evicted: it had to be recomputed";
}

TEST_F(Eviction, RandomValuesComeBackBitForBit) {
  kiln::manual_seed(7);
  budget_above_live(3 * kMiB);
  std::vector<Tensor> draws;
  for (int i = 0; i < 6; ++i) {
    draws.push_back(i % 2 ? kiln::rand({512, 512}) : kiln::randn({512, 512}));
    kiln::sync();
  }
  const std::uint64_t recomputes = kiln::stats().recomputes;
  std::vector<std::vector<float>> seen;
  for (const Tensor& t : draws) seen.push_back(t.to_vector<float>());
  EXPECT_GT(kiln::stats().recomputes, recomputes);
  kiln::set_memory_budget(0);
  kiln::manual_seed(7);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ((i % 2 ? kiln::rand({512, 512}) : kiln::randn({512, 512})).to_vector<float>(), seen[i]) << i;
}

// y is made in the memory of the input that dies at its node (x * 0.5 + 1),
// which had been made in that of x * 0.5: both are evicted values now, and
// y comes back through them, each made in y's memory again: one
// recomputation, one buffer.
TEST_F(Eviction, AValueMadeInTheMemoryOfADyingInputComesBackThroughIt) {
  kiln::set_eviction_policy("lru");
  kiln::manual_seed(8);
  const Tensor x = kiln::randn({512, 512});
  const std::vector<float> expected = (x * 0.5 + 1).tanh().to_vector<float>();
  budget_above_live(3 * kMiB + 4096);
  kiln::reset_stats();
  const Tensor y = (x * 0.5 + 1).tanh();
  kiln::sync();
  EXPECT_LE(kiln::stats().peak_bytes - kiln::stats().live_bytes, 4096u) << "one buffer for the whole chain";
  std::vector<Tensor> pressure;
  for (int i = 0; i < 3; ++i) {
    pressure.push_back(x + i);  // 1 MiB each: the third evicts y, the least recently used
    kiln::sync();
  }
  const kiln::Stats before = kiln::stats();
  EXPECT_EQ(y.to_vector<float>(), expected);
  EXPECT_EQ(kiln::stats().recomputes, before.recomputes + 1) << "y alone: its producers are made in its memory";
  EXPECT_EQ(kiln::stats().evictions, before.evictions + 1) << "room for y, the producers need none";
}

// y = x * 0.5 + z, made in the memory of x * 0.5, which dies at its node;
// z = exp(x) is evicted too when y is read: the add must first make z, and
// it does so before taking y's memory, so x * 0.5 is made in memory of its
// own, as before y took it: three recomputations.
TEST_F(Eviction, AProducerReadBesideAnEvictedOperandComesBackInItsOwnMemory) {
  kiln::manual_seed(9);
  const Tensor x = kiln::randn({512, 512});
  const std::vector<float> expected = (x * 0.5 + x.exp()).to_vector<float>();
  budget_above_live(3 * kMiB + 4096);
  const Tensor z = x.exp();
  const Tensor y = x * 0.5 + z;
  kiln::sync();
  {
    const Tensor pressure = kiln::randn({1536, 512});  // 3 MiB, never evicted: z and y must both go
    pressure.data_ptr<float>();
  }
  const std::uint64_t recomputes = kiln::stats().recomputes;
  EXPECT_EQ(y.to_vector<float>(), expected);
  EXPECT_EQ(kiln::stats().recomputes, recomputes + 3) << "y, z, and x * 0.5 in memory of its own";
}

TEST_F(Eviction, AValueWhoseDataPtrWasHandedOutIsNeverEvicted) {
  kiln::manual_seed(8);
  const Tensor x = kiln::randn({512, 512});
  budget_above_live(6 * kMiB);
  const Tensor kept = (x * 3).exp();
  float* p = kept.data_ptr<float>();
  const std::vector<float> expected = kept.to_vector<float>();
  std::vector<Tensor> pressure = chain(x);  // would evict `kept` first: it is the stalest
  EXPECT_EQ(kept.data_ptr<float>(), p);
  EXPECT_EQ(std::vector<float>(p, p + expected.size()), expected);
  EXPECT_GT(kiln::stats().evictions, 0u);
}

// A tensor written in place while a value made from it may be recomputed:
// the recipes read a copy of what it held. Here the value a handle holds is
// larger than that copy, so the copy is made; and when nothing else can go,
// the copy goes, with the recipes that read it (the value stays as it is).
TEST_F(Eviction, ACopyKeptForRecipesGoesWhenNothingElseCan) {
  Tensor w = kiln::ones({1024});
  budget_above_live(8 * kMiB);
  const Tensor z = (w + 1).unsqueeze(0).expand({256, 1024}) * 2;  // w + 1 is released after its use
  kiln::sync();
  w.add_(1);
  kiln::sync();
  const float* p = z.data_ptr<float>();  // z can no longer be evicted
  budget_above_live(0);
  const std::uint64_t ooms_avoided = kiln::stats().ooms_avoided;
  const Tensor more = kiln::full({1024}, 3.0);  // room only for a block the copy's size
  kiln::sync();
  EXPECT_EQ(kiln::stats().ooms_avoided, ooms_avoided + 1);
  EXPECT_EQ(more.to_vector<float>(), std::vector<float>(1024, 3.0f));
  EXPECT_EQ(w.to_vector<float>(), std::vector<float>(1024, 2.0f));
  EXPECT_EQ(std::vector<float>(p, p + z.numel()), std::vector<float>(256 * 1024, 4.0f));
}

TEST_F(Eviction, BelowWhatTheProgramNeedsItThrowsAReportNamingTheValues) {
  kiln::manual_seed(9);
  // x (1 MiB) fits; its product needs 1 MiB more and 1.25 MiB of workspace
  // while x is read: more than the budget, with nothing to evict but x.
  budget_above_live(2 * kMiB + kMiB / 2);
  const Tensor x = kiln::randn({512, 512}) * 2;
  kiln::sync();
  const std::uint64_t ooms = kiln::stats().oom_errors;
  try {
    x.matmul(x).sum().item<float>();
    FAIL() << "expected kiln::OutOfMemory";
  } catch (const kiln::OutOfMemory& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("nothing evictable is left"), std::string::npos) << message;
    EXPECT_NE(message.find("Float [512, 512] made by mul"), std::string::npos) << "x, with its producer: " << message;
    EXPECT_NE(message.find("in use"), std::string::npos) << "why x stays: " << message;
    EXPECT_NE(message.find("what stays: 2.00 MiB in use (a kernel or a read)"), std::string::npos)
        << "x and its product, read and written by the running kernel: " << message;
    EXPECT_NE(message.find("eviction_test.cpp"), std::string::npos) << "the user's call site: " << message;
  }
  EXPECT_EQ(kiln::stats().oom_errors, ooms + 1);
}

// An eviction that frees some room, not enough: the report says how much is
// live after it, not before (it said the value's bytes were still live).
TEST_F(Eviction, AReportAfterAnEvictionThatFreedTooLittleCountsWhatIsLeft) {
  kiln::manual_seed(10);
  budget_above_live(3 * kMiB + kMiB / 2);
  const Tensor evictable = kiln::randn({512, 512}) * 2;  // 1 MiB, made by mul, held: evicted, not freed
  const Tensor held = kiln::randn({512, 1024}) * 2;      // 2 MiB, its data_ptr handed out
  kiln::sync();
  const float* handed_out = held.data_ptr<float>();
  const std::uint64_t evictions = kiln::stats().evictions;
  try {
    (held * 3).sum().item<float>();  // 2 MiB more: evicting the 1 MiB value is not enough
    FAIL() << "expected kiln::OutOfMemory";
  } catch (const kiln::OutOfMemory& e) {
    const std::string message = e.what();
    EXPECT_EQ(kiln::stats().evictions, evictions + 1) << "the 1 MiB value went first: " << message;
    const std::size_t at = message.find("live ");
    ASSERT_NE(at, std::string::npos) << message;
    const double reported_mib = std::stod(message.substr(at + 5));
    EXPECT_NEAR(reported_mib, double(kiln::stats().live_bytes) / kMiB, 0.01) << message;
  }
  EXPECT_EQ(held.data_ptr<float>(), handed_out) << "a value whose data_ptr was handed out never moves";
}

// A value in the smallest block (a scalar, a few elements) is never
// evicted: it would free 64 bytes and keep a recipe of everything it is
// made from (a training loop's loss, read after the optimizer wrote the
// parameters it was made from, made every write copy the parameter).
TEST_F(Eviction, AValueOfSixtyFourBytesOrLessIsNeverEvicted) {
  const std::uint64_t evictions = kiln::stats().evictions;  // the earlier tests' of this process
  budget_above_live(kMiB);
  const Tensor small = (kiln::arange(4, kiln::kFloat) + 1) * 2;  // 16 bytes in a 64-byte block, with a recipe
  kiln::sync();
  budget_above_live(0);
  try {
    (kiln::arange(4, kiln::kFloat) * 3).sum().item<float>();  // needs a block that evicting `small` would free
    FAIL() << "expected kiln::OutOfMemory";
  } catch (const kiln::OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("64 bytes or less"), std::string::npos) << e.what();
  }
  kiln::set_memory_budget(0);
  EXPECT_EQ(small.to_vector<float>(), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(kiln::stats().evictions, evictions);
}

// Reading the last of a chain of evicted values recomputes each producer
// inside the recomputation that needs it: the time counted is the read's,
// not the sum of the nested ones (which counted the innermost 7 times).
TEST_F(Eviction, NestedRecomputationsCountTheirTimeOnce) {
  kiln::set_eviction_policy("lru");
  kiln::manual_seed(7);
  budget_above_live(64 * kMiB);
  std::vector<Tensor> v{kiln::randn({512, 512})};
  for (int i = 0; i < 6; ++i) {
    v.push_back((v.back() * 0.5 + 1).tanh());
    kiln::sync();
  }
  const std::vector<float> expected = v.back().to_vector<float>();
  budget_above_live(kMiB / 2);
  {
    const Tensor filler = kiln::ones({7 * 512, 512});  // room only once all seven are evicted
    kiln::sync();
  }
  const kiln::Stats before = kiln::stats();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(v.back().to_vector<float>(), expected);
  const double read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const kiln::Stats after = kiln::stats();
  EXPECT_GE(after.recomputes - before.recomputes, 7u) << "each value of the chain";
  EXPECT_LE(after.recompute_ms - before.recompute_ms, read_ms);
}

// A ladder of evicted values: x[k+1] = step[k] + x[k], step[k] = w * (k+1),
// the shallow input first. Pinned input by input, each rung kept the step
// it had made in memory while the rung below was made: twelve steps at the
// bottom, 12 MiB, where the budget holds 5, and reading x ran out of
// memory. Awaited instead, a step goes when nothing else can, and is made
// again when its rung is pinned.
TEST_F(Eviction, ALadderOfEvictedValuesDeeperThanTheBudgetIsWideComesBack) {
  kiln::set_eviction_policy("lru");
  kiln::manual_seed(8);
  budget_above_live(5 * kMiB);
  const Tensor w = kiln::randn({256, 1024});
  Tensor x = kiln::randn({256, 1024});
  for (int k = 0; k < 12; ++k) {
    const Tensor step = w * double(k + 1);  // a value of its own, not a node of the rung's recipe
    kiln::sync();
    x = step + x;  // the rung below and the step are held by this one's recipe only
    kiln::sync();
  }
  const std::vector<float> expected = x.to_vector<float>();
  {
    const Tensor filler = kiln::ones({1152, 1024});  // 4.5 MiB: room only once every rung, w and x are evicted
    kiln::sync();
  }
  const kiln::Stats before = kiln::stats();
  EXPECT_EQ(x.to_vector<float>(), expected);
  EXPECT_GE(kiln::stats().recomputes - before.recomputes, 12u) << "each rung";
}

// y's recipe is two nodes: the product, then the top of a ladder of
// evicted values added in place. The ladder comes back before the product
// takes y's memory (1 MiB): walked when the add pinned its inputs, it was
// walked with y's bytes taken. Measured above what is live: this order
// needs 3.5 MiB (3.25 runs out), the other ran out up to 3.9 and needed 4;
// the budget is between.
TEST_F(Eviction, ALaterNodesEvictedInputComesBackBeforeTheRecipeTakesTheValuesMemory) {
  kiln::set_eviction_policy("lru");
  kiln::manual_seed(8);
  const Tensor a = kiln::randn({256, 256});
  const Tensor b = kiln::randn({256, 1024});
  const Tensor w = kiln::randn({256, 1024});
  const Tensor x0 = kiln::randn({256, 1024});
  auto ladder_and_product = [&] {
    Tensor x = x0;
    for (int k = 0; k < 6; ++k) {
      const Tensor step = w * double(k + 1);  // a value of its own, not a node of the rung's recipe
      kiln::sync();
      x = step + x;
      kiln::sync();
    }
    Tensor y = kiln::matmul(a, b);
    y.add_(x);
    kiln::sync();
    return y;
  };
  const std::vector<float> expected = ladder_and_product().to_vector<float>();
  budget_above_live(3 * kMiB + 3 * kMiB / 4);
  const Tensor y = ladder_and_product();
  {
    const Tensor filler = kiln::ones({960, 1024});  // 3.75 MiB: room only once y and the ladder are evicted
    kiln::sync();
  }
  const kiln::Stats before = kiln::stats();
  EXPECT_EQ(y.to_vector<float>(), expected);
  EXPECT_GE(kiln::stats().recomputes - before.recomputes, 7u) << "y and each rung";
}

// d is an intermediate of the segment (no handle) read by z, which the
// user holds and which is evicted while d is still to be read by w. When d
// dies after w, it stays resident: freed, z's next read would recompute d
// too (and, in a training step, whatever else had died since).
TEST_F(Eviction, AnIntermediateAHeldEvictedValueIsMadeFromStaysWhenItDies) {
  kiln::set_eviction_policy("largest");  // z, of 2 MiB, is the one that goes
  kiln::manual_seed(9);
  const Tensor x = kiln::randn({512, 512});
  const std::vector<float> expected = ((x * 2).unsqueeze(0).expand({2, 512, 512}) + 0.5).to_vector<float>();
  budget_above_live(3 * kMiB + 4096);
  Tensor z, p, w;
  {
    Tensor d = x * 2;
    z = d.unsqueeze(0).expand({2, 512, 512}) + 0.5;
    p = x + 1;  // no room for it beside d and z: z goes
    w = d * 3;  // d's last read
  }
  kiln::sync();
  const kiln::Stats before = kiln::stats();
  ASSERT_GT(before.evictions, 0u);
  EXPECT_EQ(z.to_vector<float>(), expected);
  EXPECT_EQ(kiln::stats().recomputes - before.recomputes, 1u) << "z alone, from the d that stayed";
}

TEST_F(Eviction, TheEvictionPolicyIsOneOfFourWords) {
  for (const char* name : {"lru", "largest", "dtr_local", "dtr"}) {
    kiln::set_eviction_policy(name);
    EXPECT_EQ(kiln::eviction_policy(), name);
  }
  try {
    kiln::set_eviction_policy("fifo");
    FAIL() << "expected kiln::ValueError";
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'fifo'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(kiln::eviction_policy(), "dtr");
}

}  // namespace

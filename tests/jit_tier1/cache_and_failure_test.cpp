// The kernel caches and the JIT's failure paths: a kernel that cannot be
// compiled stays on tier 0 with its reason; disk cache files that are
// truncated, corrupted or foreign are ignored and replaced, never trusted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <kiln/kiln.h>

#include "jit/orc/session.h"
#include "jit/tier1/config.h"
#include "jit/tier1/disk_cache.h"
#include "jit/tier1/kernel_cache.h"
#include "tests/jit_tier1/tiers.h"

namespace {

using namespace kiln::jit;
namespace fs = std::filesystem;

// y = exp(x) * scale over n float32 elements; `tag` makes the key unique.
KernelSpec scaled_exp(std::int64_t n, int tag) {
  KernelSpec s;
  s.ndim = 1;
  s.sizes[0] = n;
  s.inputs.push_back({kiln::kFloat32, {1}});
  s.scalars.push_back(kiln::kFloat32);
  KernelInstr e{kiln::trace::OpId::Exp, kiln::kFloat32, kiln::kFloat32, 1, {{ArgRef::Input, 0}}, 0};
  KernelInstr m{kiln::trace::OpId::Mul, kiln::kFloat32, kiln::kFloat32, 2, {{ArgRef::Instr, 0}, {ArgRef::Scalar, 0}}, 0};
  s.instrs = {e, m};
  for (int i = 0; i < tag; ++i) s.instrs.push_back({kiln::trace::OpId::Abs, kiln::kFloat32, kiln::kFloat32, 1,
                                                    {{ArgRef::Instr, static_cast<std::int32_t>(s.instrs.size() - 1)}}, 0});
  s.outputs.push_back({static_cast<std::int32_t>(s.instrs.size() - 1), {kiln::kFloat32, {1}}});
  return s;
}

void expect_runs(CompiledFn fn) {
  ASSERT_NE(fn, nullptr);
  float in[3] = {0, 1, 2}, out[3] = {};
  void* ptrs[2] = {in, out};
  std::int64_t scale = std::bit_cast<std::int64_t>(2.0);
  fn(0, 3, ptrs, &scale);
  EXPECT_FLOAT_EQ(out[0], 2.0f);
  EXPECT_NEAR(out[2], 2 * std::exp(2.0), 1e-4);
}

fs::path file_of(std::uint64_t key) {
  char prefix[20];
  std::snprintf(prefix, sizeof prefix, "%016llx-", static_cast<unsigned long long>(key));
  for (const auto& e : fs::directory_iterator(disk_cache_dir()))
    if (e.path().filename().string().rfind(prefix, 0) == 0) return e.path();
  return {};
}

TEST(DiskCache, RoundTripsACompiledObject) {
  ASSERT_FALSE(disk_cache_dir().empty()) << "the test suite sets KILN_CACHE_DIR";
  OrcSession& orc = OrcSession::instance();
  KernelSpec spec = scaled_exp(3, 1);
  disk_cache_store(spec.key(), 1, orc.compile(spec, {1}).object, orc);
  ASSERT_FALSE(file_of(spec.key()).empty());
  CachedKernel cached = disk_cache_load(spec.key(), orc);
  EXPECT_EQ(cached.opt_level, 1);
  expect_runs(cached.fn);
}

class CorruptedFile : public ::testing::TestWithParam<int> {};

TEST_P(CorruptedFile, IsIgnoredAndRemoved) {
  OrcSession& orc = OrcSession::instance();
  KernelSpec spec = scaled_exp(3, 10 + GetParam());
  disk_cache_store(spec.key(), 1, orc.compile(spec, {1}).object, orc);
  fs::path path = file_of(spec.key());
  ASSERT_FALSE(path.empty());
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  switch (GetParam()) {
    case 0: bytes.resize(bytes.size() / 2); break;               // truncated
    case 1: bytes[bytes.size() - 100] ^= 0x5a; break;            // a flipped byte in the object
    case 2: bytes.assign(4096, 'x'); break;                      // foreign
    case 3: bytes[10] ^= 1; break;                               // a header field (key) changed
    case 4: bytes.clear(); break;                                // empty
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  EXPECT_EQ(disk_cache_load(spec.key(), orc).fn, nullptr);
  EXPECT_FALSE(fs::exists(path)) << "a bad file is dropped so the next compile replaces it";
}

INSTANTIATE_TEST_SUITE_P(Kinds, CorruptedFile, ::testing::Values(0, 1, 2, 3, 4));

TEST(KernelCache, ACompileFailureLeavesTheKernelOnTier0WithItsReason) {
  KernelSpec bad = scaled_exp(3, 2);
  bad.instrs[0].args[0] = {ArgRef::Instr, 5};  // refers to a later instruction: malformed
  bool existed = true;
  auto entry = KernelCache::instance().find_or_add(bad, &existed);
  EXPECT_FALSE(existed);
  std::uint64_t failed = kiln::stats().jit.compiles_failed;
  set_compile_sync(true);
  request_compile(entry, 1);
  set_compile_sync(false);
  EXPECT_EQ(entry->state.load(), KernelState::Failed);
  EXPECT_EQ(entry->fn.load(), nullptr);
  EXPECT_EQ(kiln::stats().jit.compiles_failed, failed + 1);
  std::lock_guard lock(entry->mu);
  EXPECT_NE(entry->failure.find("kernel 0x"), std::string::npos) << entry->failure;
}

TEST(KernelCache, SegmentsSharingAKernelShareItsCode) {
  kiln::Tensor x = kiln::rand({1000});
  tiers::Tier1Scope scope;
  auto chain = [](const kiln::Tensor& t) { return (t * 3).exp(); };
  (void)chain(x).sum().item<float>();  // compiled as part of one segment
  std::uint64_t hits = kiln::stats().jit.memory_cache_hits;
  (void)(chain(x).sum() * 2).item<float>();  // another segment, same fused kernel (the product runs apart)
  EXPECT_GT(kiln::stats().jit.memory_cache_hits, hits);
}

TEST(Hotness, ASegmentChangingShapeEveryIterationCompilesOnceWithDynamicDims) {
  const tiers::Tier1Scope scope(2);  // hot at 2 runs, alone or as a shape family
  const kiln::Stats before = kiln::stats();
  for (int n = 1; n <= 40; ++n) {
    kiln::Tensor x = kiln::full({n * 7 + 3}, 0.25);
    float expect = static_cast<float>((n * 7 + 3) * (std::exp(0.5) - 1));
    EXPECT_NEAR(((x * 2).exp() - 1).sum().item<float>(), expect, 1e-5 * expect) << "size " << n * 7 + 3;
  }
  const kiln::Stats after = kiln::stats();
  EXPECT_EQ(after.jit.dynamic_compiles - before.jit.dynamic_compiles, 1u) << "one kernel for every size";
  // Compiled now, or loaded from the disk cache an earlier run of this test filled.
  EXPECT_EQ(after.jit.compiles_requested + after.jit.disk_cache_hits -
                (before.jit.compiles_requested + before.jit.disk_cache_hits),
            1u);
  EXPECT_GE(after.jit.group_runs_compiled - before.jit.group_runs_compiled, 38u) << "sizes 2..40 ran compiled";
}

TEST(Compile, CompilesTheWholeFunctionOnItsFirstCall) {
  kiln::jit::set_enabled(true);
  kiln::jit::set_hot_threshold(1000);  // the implicit path would not compile this
  auto f = kiln::compile([](const kiln::Tensor& a, const kiln::Tensor& b) { return (a * b + 1).tanh() * 0.5; });
  kiln::Tensor a = kiln::rand({257}), b = kiln::rand({257});
  kiln::sync();
  // Compiled now, or loaded from the disk cache a previous run of this test filled.
  auto ready = [] { return kiln::stats().jit.compiles_done + kiln::stats().jit.disk_cache_hits; };
  std::uint64_t done = ready(), compiled_runs = kiln::stats().jit.group_runs_compiled;
  std::vector<float> first = f(a, b).to_vector<float>();
  EXPECT_GT(ready(), done) << "compiled during the first call";
  EXPECT_GT(kiln::stats().jit.group_runs_compiled, compiled_runs) << "and used at once";
  std::uint64_t after_first = ready();
  std::vector<float> second = f(a, b).to_vector<float>();
  EXPECT_EQ(ready(), after_first) << "the second call reuses the code";
  EXPECT_EQ(first, second);
  kiln::jit::set_enabled(false);
  std::vector<float> tier0 = ((a * b + 1).tanh() * 0.5).to_vector<float>();
  for (std::size_t i = 0; i < tier0.size(); ++i) EXPECT_NEAR(first[i], tier0[i], 1e-6);
}

}  // namespace

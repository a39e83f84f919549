// The JIT's state stays bounded however many keys a program makes: past
// KILN_JIT_MAX_KEYS the least recently run keys' records go, past
// KILN_JIT_MAX_KERNELS the kernels no kept key uses go with their code, and
// every result stays right, also for a key that comes back after its
// record went.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <kiln/kiln.h>

#include "tests/jit_tier1/tiers.h"

namespace {

// A chain of unary ops chosen by the base-4 digits of `structure`: each
// structure is its own segment key and its own fused kernel.
struct Chain {
  int structure;

  kiln::Tensor run(const kiln::Tensor& x) const {
    kiln::Tensor y = x;
    for (int s = structure, i = 0; i < 5; s /= 4, ++i) {
      switch (s % 4) {
        case 0: y = (y * 0.5).tanh(); break;
        case 1: y = y.sigmoid(); break;
        case 2: y = (y + 1).abs().sqrt(); break;
        case 3: y = y.neg().exp(); break;
      }
    }
    return y.sum();
  }
  double reference(double x, std::int64_t n) const {
    double y = x;
    for (int s = structure, i = 0; i < 5; s /= 4, ++i) {
      switch (s % 4) {
        case 0: y = std::tanh(y * 0.5); break;
        case 1: y = 1 / (1 + std::exp(-y)); break;
        case 2: y = std::sqrt(std::abs(y + 1)); break;
        case 3: y = std::exp(-y); break;
      }
    }
    return y * static_cast<double>(n);
  }
};

TEST(BoundedState, KeysAndKernelsPastTheirBoundsGoWithTheirCodeAndResultsStayRight) {
  const tiers::Tier1Scope scope;  // every key compiled at its first run, in the foreground
  kiln::jit::set_max_keys(16);
  kiln::jit::set_max_kernels(16);
  const kiln::Stats before = kiln::stats();
  const kiln::Tensor x = kiln::full({257}, 0.3);
  std::uint64_t most_resident = 0;
  for (int structure = 0; structure < 200; ++structure) {
    const Chain chain{structure};
    const double expect = chain.reference(0.3, 257);
    EXPECT_NEAR(chain.run(x).item<float>(), expect, 1e-5 * std::abs(expect) + 1e-5) << "structure " << structure;
    most_resident = std::max(most_resident, kiln::stats().jit.kernels_resident);
  }
  const kiln::Stats after = kiln::stats();
  EXPECT_GT(after.jit.keys_evicted, before.jit.keys_evicted);
  EXPECT_GT(after.jit.kernels_evicted, before.jit.kernels_evicted);
  // 16 kept keys' kernels and 16 kept unused ones, a kernel or two per key,
  // and the eighth each table holds past its bound before it drops.
  EXPECT_LE(most_resident, before.jit.kernels_resident + 80) << "code was not removed with its kernels";
  EXPECT_GT(after.jit.group_runs_compiled, before.jit.group_runs_compiled + 150);
  // The first key's record and kernel are long gone: it runs (and compiles) again, right.
  const Chain first{0};
  EXPECT_NEAR(first.run(x).item<float>(), first.reference(0.3, 257), 1e-4);
  kiln::jit::set_max_keys(2048);  // the defaults
  kiln::jit::set_max_kernels(512);
}

}  // namespace

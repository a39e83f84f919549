// Elementwise math on tier 0 beside LibTorch eager: one transcendental op
// (exp, log, tanh, sigmoid, erf, gelu) on 1,024 and 1M floats, kiln with the
// JIT off; and programs of 12-op chains on 1,024 floats, read one value per
// run, whose structure changes every iteration (4,000 chains, each run 3
// times) or never (one chain run 12,000 times), kiln with the JIT off and on.
// The changing program is tier 0's case: no structure repeats long enough to
// be worth compiling. kiln_tier0_libm rows are tier 0 with libmvec turned
// off (its scalar libm loops, as before tier 0 used libmvec). Rows and
// checks: workload.h.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "jit/kernels/libmvec.h"
#include "peers/torch_peer.h"
#include "torch_workload.h"
#include "workload.h"

namespace {

using torch_peer::Chain;
using torch_peer::ChainOp;

kiln::Tensor materialized(kiln::Tensor t) {
  t.data_ptr<float>();
  return t;
}

Floats values(const kiln::Tensor& t) { return t.contiguous().to_vector<float>(); }

// Calls f with tier 0's libmvec turned off.
template <class F>
auto with_libm(F f) {
  return [f] {
    struct Restore {
      ~Restore() { kiln::jit::kernels::set_vector_math(true); }
    } restore;
    kiln::jit::kernels::set_vector_math(false);
    return f();
  };
}

// Tier 0 with scalar libm instead of libmvec.
Impl scalar_libm(Impl tier0) {
  tier0.name = "kiln_tier0_libm";
  tier0.run = with_libm(tier0.run);
  tier0.result = with_libm(tier0.result);
  return tier0;
}

// ---- one op --------------------------------------------------------------------------

kiln::Tensor unary(const std::string& name, const kiln::Tensor& x) {
  if (name == "exp") return kiln::exp(x);
  if (name == "log") return kiln::log(x);
  if (name == "tanh") return kiln::tanh(x);
  if (name == "sigmoid") return kiln::sigmoid(x);
  if (name == "erf") return kiln::erf(x);
  if (name == "gelu") return kiln::gelu(x);
  die("no unary op named " + name);
}

std::shared_ptr<Workload> one_op(const std::string& name, std::int64_t n) {
  auto w = std::make_shared<Workload>();
  // Inputs where the op's result is finite and not all saturated.
  kiln::Tensor x = name == "log" ? materialized(kiln::rand({n}) * 100 + 1e-3) : materialized(3 * kiln::randn({n}));
  w->name = "math/" + name + "_" + (n >= (1 << 20) ? std::to_string(n >> 20) + "M" : std::to_string(n));
  w->impls.push_back(kiln_impl(Tier::tier0, [name, x] { return unary(name, x); }));
  w->impls.push_back(scalar_libm(w->impls.back()));
  w->impls.push_back(peer_impl("torch_eager", torch_peer::unary(name, values(x))));
  w->reference = 2;
  w->tol = {1e-5, 1e-6};  // both libraries' vector math are a few ulp off
  w->bytes = 8.0 * double(n);
  w->ops = 1;
  return w;
}

// ---- programs of chains --------------------------------------------------------------------

constexpr std::int64_t kChainWidth = 1024;
constexpr int kChainOps = 12, kDistinctChains = 4000, kRunsEach = 3;
constexpr int kIterations = kDistinctChains * kRunsEach;

// A random chain whose values stay finite: the range [lo, hi] of its value
// is followed op by op (x and y are in [-1, 1]), and an op that could
// overflow or leave its domain there is not drawn.
Chain random_chain(std::mt19937_64& rng) {
  double lo = -1, hi = 1;
  Chain chain;
  while (static_cast<int>(chain.size()) < kChainOps) {
    const auto op = static_cast<ChainOp>(rng() % (static_cast<unsigned>(ChainOp::half) + 1));
    const double m = std::max(std::abs(lo), std::abs(hi));
    switch (op) {
      case ChainOp::exp:
        if (hi > 3) continue;
        lo = std::exp(lo), hi = std::exp(hi);
        break;
      case ChainOp::tanh: lo = std::tanh(lo), hi = std::tanh(hi); break;
      case ChainOp::sigmoid: lo = 1 / (1 + std::exp(-lo)), hi = 1 / (1 + std::exp(-hi)); break;
      case ChainOp::sin: lo = -1, hi = 1; break;
      case ChainOp::erf: lo = std::erf(lo), hi = std::erf(hi); break;
      case ChainOp::gelu: lo = -0.17, hi = std::max(hi, 0.0); break;
      case ChainOp::log1p:
        if (lo < -0.5) continue;
        lo = std::log1p(lo), hi = std::log1p(hi);
        break;
      case ChainOp::add:
      case ChainOp::sub:
        if (m > 6) continue;
        lo -= 1, hi += 1;
        break;
      case ChainOp::mul: lo = -m, hi = m; break;
      case ChainOp::maximum: lo = std::max(lo, -1.0), hi = std::max(hi, 1.0); break;
      case ChainOp::half: lo /= 2, hi /= 2; break;
    }
    chain.push_back(op);
  }
  return chain;
}

// Each process draws structures of its own (kiln's on-disk kernel cache
// would otherwise hold the previous run's), the same for every
// implementation in the process.
const std::uint64_t kSeed = std::random_device{}();

std::vector<Chain> changing_chains(std::uint64_t round) {
  std::mt19937_64 rng(kSeed + round);
  std::vector<Chain> chains;
  for (int c = 0; c < kDistinctChains; ++c) chains.push_back(random_chain(rng));
  return chains;
}

std::vector<Chain> repeating_chain(std::uint64_t) {
  std::mt19937_64 rng(kSeed);
  return {random_chain(rng)};
}

kiln::Tensor apply(ChainOp op, const kiln::Tensor& v, const kiln::Tensor& y) {
  switch (op) {
    case ChainOp::exp: return kiln::exp(v);
    case ChainOp::tanh: return kiln::tanh(v);
    case ChainOp::sigmoid: return kiln::sigmoid(v);
    case ChainOp::sin: return kiln::sin(v);
    case ChainOp::erf: return kiln::erf(v);
    case ChainOp::gelu: return kiln::gelu(v);
    case ChainOp::log1p: return kiln::log1p(v);
    case ChainOp::add: return v + y;
    case ChainOp::sub: return v - y;
    case ChainOp::mul: return v * y;
    case ChainOp::maximum: return kiln::maximum(v, y);
    case ChainOp::half: return v * 0.5;
  }
  die("unknown chain op");
}

// kiln's side of torch_peer::chain_program: run() runs the next round,
// result() round 0.
struct KilnChainProgram {
  kiln::Tensor x, y;
  torch_peer::ChainsOfRound chains_of;
  std::uint64_t round = 0;

  Floats run_round(std::uint64_t r) const {
    const std::vector<Chain> chains = chains_of(r);
    Floats read(kIterations);
    for (int i = 0; i < kIterations; ++i) {
      kiln::Tensor v = x;
      for (ChainOp op : chains[static_cast<std::size_t>(i) % chains.size()]) v = apply(op, v, y);
      read[static_cast<std::size_t>(i)] = v.data_ptr<float>()[i % kChainWidth];
    }
    return read;
  }
};

Impl kiln_program(Tier tier, const std::shared_ptr<KilnChainProgram>& p) {
  return {tier == Tier::tier0 ? "kiln_tier0" : "kiln_jit", tier, [p] { p->run_round(++p->round); },
          [p] { return p->run_round(0); }};
}

std::shared_ptr<Workload> chain_program(const std::string& name, torch_peer::ChainsOfRound chains_of) {
  auto w = std::make_shared<Workload>();
  kiln::Tensor x = materialized(2 * kiln::rand({kChainWidth}) - 1), y = materialized(2 * kiln::rand({kChainWidth}) - 1);
  w->name = "structure/" + name;
  w->impls.push_back(kiln_program(Tier::tier0, std::make_shared<KilnChainProgram>(KilnChainProgram{x, y, chains_of})));
  w->impls.push_back(scalar_libm(w->impls.back()));
  w->impls.push_back(kiln_program(Tier::tier1, std::make_shared<KilnChainProgram>(KilnChainProgram{x, y, chains_of})));
  w->impls.push_back(peer_impl("torch_eager", torch_peer::chain_program(values(x), values(y), chains_of, kIterations)));
  w->reference = 3;
  w->tol = {1e-4, 1e-5};  // 12 ops of a few ulp each, exp and log1p among them
  w->ops = kIterations * kChainOps;
  return w;
}

void register_all() {
  const int dflt = kiln::get_num_threads();
  for (const char* op : {"exp", "log", "tanh", "sigmoid", "erf", "gelu"}) {
    add_rows(one_op(op, 1024), {dflt}, benchmark::kMicrosecond);
    add_rows(one_op(op, 1 << 20), {1, 2}, benchmark::kMicrosecond);
  }
  add_rows(chain_program("changing_4000x3", changing_chains), {dflt}, benchmark::kMillisecond);
  add_rows(chain_program("repeating", repeating_chain), {dflt}, benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  use_torch_peer();
  register_all();
  return workload_main(argc, argv);
}

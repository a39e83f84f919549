// Measurements, not checks: skipped unless KILN_CODEGEN_BENCH=1. Run by hand:
//   KILN_CODEGEN_BENCH=1 KILN_JIT=0 ./kiln_tests_jit_codegen --gtest_filter='CodegenBench.*'
// Prints the compile time of a 6-op and a 10-op elementwise chain at O1 and
// O3 (median of 20), and the single-thread throughput of GELU (tanh form)
// written as 9 primitive ops on 16M float32 (KILN_BENCH_N): compiled (its
// length a constant or a dynamic dim) vs tier 0 op by op.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include <gtest/gtest.h>

#include <kiln/kiln.h>

#include "tests/jit_codegen/codegen_harness.h"

namespace kiln::jit::codegen_test {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CPU time of this thread: compile time that other processes on a shared
// machine do not inflate.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))): 9 instructions.
ArgRef gelu_ops(SpecBuilder& b, ArgRef x) {
  const ArgRef cube = b.op(OpId::Mul, kFloat32, {b.op(OpId::Mul, kFloat32, {x, x}), x});
  const ArgRef inner = b.op(OpId::Add, kFloat32, {x, b.op(OpId::Mul, kFloat32, {cube, b.scalar(kFloat64)})});
  const ArgRef t = b.op(OpId::Tanh, kFloat32, {b.op(OpId::Mul, kFloat32, {inner, b.scalar(kFloat64)})});
  return b.op(OpId::Mul, kFloat32, {b.op(OpId::Mul, kFloat32, {x, b.scalar(kFloat64)}),
                                    b.op(OpId::Add, kFloat32, {t, b.scalar(kFloat64)})});
}
const std::vector<Scalar> kGeluScalars = {0.044715, 0.7978845608028654, 0.5, 1.0};

KernelSpec six_ops() {
  SpecBuilder b({1024, 1024});
  const ArgRef x = b.input(kFloat32), y = b.input(kFloat32, {0, 1});
  const ArgRef e = b.op(OpId::Exp, kFloat32, {b.op(OpId::Add, kFloat32, {b.op(OpId::Mul, kFloat32, {x, y}), b.scalar(kFloat64)})});
  b.output(b.op(OpId::Relu, kFloat32, {b.op(OpId::Maximum, kFloat32, {b.op(OpId::Sub, kFloat32, {e, y}), x})}), kFloat32);
  return b.spec();
}

KernelSpec ten_ops() {
  SpecBuilder b({1024, 1024});
  const ArgRef x = b.input(kFloat32), y = b.input(kFloat32, {0, 1});
  b.output(b.op(OpId::Add, kFloat32, {gelu_ops(b, x), y}), kFloat32);
  return b.spec();
}

bool enabled() {
  const char* v = std::getenv("KILN_CODEGEN_BENCH");
  return v && *v && *v != '0';
}

TEST(CodegenBench, CompileTime) {
  if (!enabled()) GTEST_SKIP() << "set KILN_CODEGEN_BENCH=1";
  OrcSession::instance().compile(six_ops(), {1});  // warm up (session creation, first-use costs)
  for (const auto& [name, spec] : {std::pair{"6-op", six_ops()}, std::pair{"10-op", ten_ops()}})
    for (int level : {1, 3}) {
      std::vector<double> ms, cpu;
      std::size_t bytes = 0;
      for (int i = 0; i < 20; ++i) {
        const double cpu_start = thread_cpu_ms();
        const CompiledKernel k = OrcSession::instance().compile(spec, {level});
        cpu.push_back(thread_cpu_ms() - cpu_start);
        ms.push_back(k.compile_ms);
        bytes = k.object.size();
      }
      std::printf("compile %-5s O%d: median %.2f ms wall (min %.2f, max %.2f), %.2f ms thread CPU, object %zu bytes\n",
                  name, level, median(ms), *std::min_element(ms.begin(), ms.end()),
                  *std::max_element(ms.begin(), ms.end()), median(cpu), bytes);
    }
  const KernelSpec spec = ten_ops();
  const std::string object = OrcSession::instance().compile(spec, {1}).object;
  std::vector<double> load;
  for (int i = 0; i < 20; ++i) {
    const auto start = Clock::now();
    OrcSession::instance().load_object(spec.key(), object);
    load.push_back(ms_since(start));
  }
  std::printf("load_object 10-op: median %.3f ms\n", median(load));
}

TEST(CodegenBench, GeluThroughput) {
  if (!enabled()) GTEST_SKIP() << "set KILN_CODEGEN_BENCH=1";
  const std::int64_t n = std::getenv("KILN_BENCH_N") ? std::atoll(std::getenv("KILN_BENCH_N")) : 16 << 20;
  const double bytes = 2.0 * 4 * n;  // one float read, one written per element
  SpecBuilder b({n});
  b.output(gelu_ops(b, b.input(kFloat32)), kFloat32);
  const KernelSpec& spec = b.spec();
  Bindings data;
  data.inputs.emplace_back(kFloat32, n);
  for (std::int64_t i = 0; i < n; ++i) data.inputs[0].set_float(i, std::sin(0.001 * static_cast<double>(i)) * 4);
  data.scalars = kGeluScalars;

  // The 9-op chain, and for scale a plain copy, one tanh, and the gelu op itself.
  auto time_kernel = [&](const KernelSpec& s, int level, const char* what, bool in_place = false) {
    const CompiledKernel k = OrcSession::instance().compile(s, {level});
    std::vector<Buffer> out = run(k.fn, s, data, {0, n});  // warm: pages touched
    Buffer inout = data.inputs[0];
    void* ptrs[] = {data.inputs[0].data(), out[0].data()};
    if (in_place) ptrs[0] = ptrs[1] = inout.data();
    std::vector<std::int64_t> bits;
    for (const Scalar& v : kGeluScalars) bits.push_back(std::bit_cast<std::int64_t>(v.to_double()));
    if (s.dynamic_dims) bits.push_back(n);
    std::vector<double> ms;
    const int inner = std::max<std::int64_t>(1, (1 << 22) / n);
    for (int rep = 0; rep < 15; ++rep) {
      const auto start = Clock::now();
      for (int r = 0; r < inner; ++r) k.fn(0, n, ptrs, bits.data());
      ms.push_back(ms_since(start) / inner);
    }
    std::printf("compiled %-24s O%d, %lld float32, 1 thread: %6.3f ms, %5.1f GB/s, %.3f ns/element\n", what, level,
                static_cast<long long>(n), median(ms), bytes / median(ms) / 1e6, median(ms) * 1e6 / n);
  };
  auto single = [&](OpId op, std::int64_t attr) {
    SpecBuilder one({n});
    one.output(one.op(op, kFloat32, {one.input(kFloat32)}, attr), kFloat32);
    return one.spec();
  };
  KernelSpec dynamic = spec;
  dynamic.dynamic_dims = 1;
  for (int level : {1, 3}) {
    time_kernel(spec, level, "GELU-tanh as 9 ops");
    time_kernel(dynamic, level, "GELU-tanh 9 ops, dynamic");
  }
  time_kernel(single(OpId::Gelu, 1), 1, "gelu op (tanh form)");
  time_kernel(single(OpId::Gelu, 0), 1, "gelu op (erf form)");
  time_kernel(single(OpId::Tanh, 0), 1, "tanh");
  time_kernel(single(OpId::Copy, 0), 1, "copy");
  time_kernel(spec, 1, "GELU-tanh 9 ops, in place", true);

  // Tier 0: the same formula through the frontend, op by op, one thread.
  set_num_threads(1);
  std::vector<float> host(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) host[i] = static_cast<float>(data.inputs[0].get_float(i));
  const Tensor x = from_blob(host.data(), {n}, kFloat32).clone();
  std::vector<double> ms;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = Clock::now();
    Tensor y = 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    y.data_ptr<float>();
    ms.push_back(ms_since(start));
  }
  std::printf("tier 0 GELU-tanh op by op, %lld float32, 1 thread: %.3f ms, %.1f GB/s (input + output bytes)\n",
              static_cast<long long>(n),
              median(ms), bytes / median(ms) / 1e6);
}

}  // namespace
}  // namespace kiln::jit::codegen_test

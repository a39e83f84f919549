// OrcSession: object round trip, rejected specs and objects, concurrent
// compiles, keys, dumps (with the evidence that libmvec vectorization works),
// and in-place kernels.
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include <gtest/gtest.h>

#include <kiln/error.h>
#include <kiln/kiln.h>
#include <kiln/settings.h>

#include "jit/orc/perf_map.h"
#include "tests/jit_codegen/codegen_harness.h"

namespace kiln::jit::codegen_test {
namespace {

OrcSession& orc() { return OrcSession::instance(); }

// exp(x * s0 + s1)
KernelSpec axpb(std::int64_t n) {
  SpecBuilder b({n});
  const ArgRef x = b.input(kFloat32);
  const ArgRef y = b.op(OpId::Add, kFloat32, {b.op(OpId::Mul, kFloat32, {x, b.scalar(kFloat64)}), b.scalar(kFloat64)});
  b.output(b.op(OpId::Exp, kFloat32, {y}), kFloat32);
  return b.spec();
}

KernelSpec gelu_spec(std::int64_t n) {
  SpecBuilder b({n});
  b.output(b.op(OpId::Gelu, kFloat32, {b.input(kFloat32)}, 1), kFloat32);
  return b.spec();
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CodegenSession, ObjectRoundTrip) {
  const KernelSpec spec = axpb(999);
  const Bindings data = bind(spec, {0.5, -1.0});
  const CompiledKernel k = orc().compile(spec, {3});
  const std::string& object = k.object;
  ASSERT_FALSE(object.empty());
  EXPECT_GT(k.compile_ms, 0);

  const LinkedKernel loaded = orc().load_object(spec.key(), object);
  ASSERT_NE(loaded.fn, nullptr);
  EXPECT_NE(loaded.fn, k.fn);  // a second copy, in its own JITDylib
  const auto direct = run(k.fn, spec, data, {0, 999});
  EXPECT_EQ(compare(spec, run(loaded.fn, spec, data, {0, 500, 999}), direct), "");
  EXPECT_EQ(compare(spec, direct, evaluate(spec, data)), "");
  // Loading the same bytes again is fine too.
  EXPECT_NE(orc().load_object(spec.key(), object).fn, nullptr);
}

TEST(CodegenSession, CodeIsRemovedWithItsLastOwner) {
  const KernelSpec spec = axpb(77);
  const std::uint64_t before = kiln::stats().jit.kernels_resident;
  CompiledKernel k = orc().compile(spec, {1});
  LinkedKernel copy = orc().load_object(spec.key(), k.object);
  EXPECT_EQ(kiln::stats().jit.kernels_resident, before + 2);
  k.code.reset();
  EXPECT_EQ(kiln::stats().jit.kernels_resident, before + 1);
  // The other copy is untouched by the removal of the first.
  const Bindings data = bind(spec, {0.5, -1.0});
  EXPECT_EQ(compare(spec, run(copy.fn, spec, data, {0, 77}), evaluate(spec, data)), "");
  copy.code.reset();
  EXPECT_EQ(kiln::stats().jit.kernels_resident, before);
}

TEST(CodegenSession, BadObjectsAreRejected) {
  EXPECT_THROW(orc().load_object(1, "not an object file"), InternalError);
  EXPECT_THROW(orc().load_object(1, ""), InternalError);
  const KernelSpec spec = axpb(10);
  const std::string object = orc().compile(spec, {1}).object;
  EXPECT_THROW(orc().load_object(spec.key() + 1, object), InternalError);  // no kernel of that key inside
  EXPECT_THROW(orc().load_object(spec.key(), object.substr(0, object.size() / 2)), InternalError);
}

TEST(CodegenSession, MalformedSpecsThrowInternalError) {
  const KernelSpec good = axpb(16);
  auto expect_rejected = [](const KernelSpec& spec, const char* what) {
    SCOPED_TRACE(what);
    try {
      orc().compile(spec, {1});
      ADD_FAILURE() << "compiled";
    } catch (const InternalError& e) {
      EXPECT_NE(std::string(e.what()).find("[jit]"), std::string::npos) << e.what();
    }
  };
  KernelSpec s = good;
  s.instrs[0].args[0] = {ArgRef::Instr, 1};
  expect_rejected(s, "argument naming a later instruction");
  s = good;
  s.instrs[0].args[0] = {ArgRef::Instr, 0};
  expect_rejected(s, "argument naming its own instruction");
  s = good;
  s.instrs[0].args[0] = {ArgRef::Input, 3};
  expect_rejected(s, "missing input");
  s = good;
  s.instrs[0].args[1] = {ArgRef::Scalar, 7};
  expect_rejected(s, "missing scalar");
  s = good;
  s.instrs[0].args[1] = {static_cast<ArgRef::Kind>(9), 0};
  expect_rejected(s, "bad argument kind");
  s = good;
  s.instrs[0].op = OpId::MatMul;
  expect_rejected(s, "non-fusible op");
  s = good;
  s.instrs[0].op = static_cast<OpId>(200);
  expect_rejected(s, "op id out of range");
  s = good;
  s.instrs[2].op = OpId::Add;
  expect_rejected(s, "wrong arity");
  s = good;
  s.instrs[2].dtype = s.instrs[2].out_dtype = kInt32;
  expect_rejected(s, "exp has no int32 form");
  s = good;
  s.instrs[1].out_dtype = kBool;
  expect_rejected(s, "add cannot produce bool");
  s = good;
  s.outputs[0].instr = 5;
  expect_rejected(s, "output of a missing instruction");
  s = good;
  s.outputs.clear();
  expect_rejected(s, "no outputs");
  s = good;
  s.ndim = 9;
  expect_rejected(s, "too many dims");
  s = good;
  s.sizes[0] = -1;
  expect_rejected(s, "negative size");
  s = good;
  s.inputs[0].dtype = static_cast<ScalarType>(17);
  expect_rejected(s, "bad dtype");
  // The session is unharmed.
  EXPECT_NE(orc().compile(good, {1}).fn, nullptr);
}

TEST(CodegenSession, CompilesFromTwoThreadsAtOnce) {
  std::vector<KernelSpec> specs[2];
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < 8; ++i) specs[t].push_back(i % 2 ? axpb(100 + 10 * i + t) : gelu_spec(50 + 10 * i + t));
  std::string errors[2];
  auto work = [&](int t) {
    try {
      for (const KernelSpec& spec : specs[t]) {
        const Bindings data = bind(spec, {0.5, 0.25});
        const CompiledKernel k = orc().compile(spec, {t == 0 ? 1 : 3});
        const std::string mismatch = compare(spec, run(k.fn, spec, data, {0, spec.numel()}), evaluate(spec, data));
        if (!mismatch.empty()) errors[t] += mismatch;
      }
    } catch (const std::exception& e) {
      errors[t] += e.what();
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
}

TEST(CodegenSession, KeyCoversEveryFieldAndOnlyThem) {
  const KernelSpec base = axpb(64);
  EXPECT_EQ(base.key(), axpb(64).key());
  EXPECT_NE(base.key(), axpb(65).key());
  auto differs = [&](auto&& change) {
    KernelSpec s = base;
    change(s);
    return s.key() != base.key();
  };
  EXPECT_TRUE(differs([](KernelSpec& s) { s.inputs[0].strides[0] = 2; }));
  EXPECT_TRUE(differs([](KernelSpec& s) { s.inputs[0].dtype = kFloat64; }));
  EXPECT_TRUE(differs([](KernelSpec& s) { s.scalars[0] = kInt64; }));
  EXPECT_TRUE(differs([](KernelSpec& s) { s.instrs[0].op = OpId::Sub; }));
  EXPECT_TRUE(differs([](KernelSpec& s) { s.instrs[0].args[1].index = 1; }));
  EXPECT_TRUE(differs([](KernelSpec& s) { s.instrs[2].attr = 1; }));
  EXPECT_TRUE(differs([](KernelSpec& s) { s.outputs[0].mem.dtype = kFloat64; }));
  EXPECT_TRUE(differs([](KernelSpec& s) { s.outputs[0].mem.strides[0] = 3; }));
  // Slots past ndim and past arity are not part of the kernel.
  EXPECT_FALSE(differs([](KernelSpec& s) { s.inputs[0].strides[5] = 99; }));
  EXPECT_FALSE(differs([](KernelSpec& s) { s.sizes[3] = 7; }));
  EXPECT_FALSE(differs([](KernelSpec& s) { s.instrs[2].args[2] = {ArgRef::Scalar, 5}; }));
  EXPECT_EQ(base.numel(), 64);
  const std::string text = base.to_string();
  EXPECT_NE(text.find("mul.Float(in0, s0)"), std::string::npos) << text;
  EXPECT_NE(text.find("exp"), std::string::npos) << text;
}

// KILN_DUMP (kiln::set_dump) writes each stage; the optimized GELU calls libmvec's widest
// variant the host has, on vectors of that width, whether its length is a
// constant or read at run time (a dynamic dim).
TEST(CodegenSession, DumpsShowLibmvecVectorization) {
  const auto dir = std::filesystem::temp_directory_path() / ("kiln_dump_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  kiln::set_dump("spec,ir,opt,asm", dir.string());
  KernelSpec dynamic = gelu_spec(4096);
  dynamic.dynamic_dims = 1;
  const std::string features = orc().host_features();
  std::string variant = "_ZGVbN4v_tanhf", vector = "<4 x float>";
  if (features.find("+avx2") != std::string::npos) variant = "_ZGVdN8v_tanhf", vector = "<8 x float>";
  if (features.find("+avx512f") != std::string::npos) variant = "_ZGVeN16v_tanhf", vector = "<16 x float>";
  for (const KernelSpec& spec : {gelu_spec(4096), dynamic}) {
    orc().compile(spec, {3});
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(spec.key()));
    auto stage = [&](const char* name) { return read_file(dir / ("kiln_" + std::string(hex) + "_" + name + ".txt")); };
    EXPECT_NE(stage("spec").find("gelu"), std::string::npos);
    EXPECT_NE(stage("ir").find("call float @tanhf"), std::string::npos);
    // A call, not the name: every variant is declared (and listed as used)
    // whichever width the vectorizer took.
    const std::string opt = stage("opt");
    EXPECT_NE(opt.find("call " + vector + " @" + variant + "("), std::string::npos) << opt;
    const std::string assembly = stage("asm");
    EXPECT_NE(assembly.find(variant), std::string::npos) << assembly;
  }
  kiln::set_dump("");
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(orc().host_cpu().empty());
}

// KILN_DUMP=perf names each linked kernel for Linux perf: a line
// "START SIZE kiln_k_<key>_o<level>" in /tmp/perf-<pid>.map whose range
// holds the kernel's entry, in executable memory of this process.
TEST(CodegenSession, PerfMapNamesEachLinkedKernel) {
  const std::string path = kiln::jit::perf_map_path();
  std::filesystem::remove(path);
  kiln::set_dump("perf");
  const KernelSpec spec = gelu_spec(777);
  const CompiledKernel k = orc().compile(spec, {3});
  kiln::set_dump("");
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(spec.key()));
  const auto entry = reinterpret_cast<std::uintptr_t>(k.fn);
  std::istringstream map(read_file(path));
  std::uintptr_t start = 0, size = 0;
  std::string name;
  for (std::string line; std::getline(map, line);) {
    std::istringstream fields(line);
    std::uintptr_t s = 0, n = 0;
    std::string sym;
    ASSERT_TRUE(fields >> std::hex >> s >> n >> sym) << line;
    if (sym.find(std::string("kiln_k_") + hex) == 0) start = s, size = n, name = sym;
  }
  ASSERT_FALSE(name.empty()) << "no line for kernel " << hex << " in " << path;
  EXPECT_EQ(name, std::string("kiln_k_") + hex + "_o3");
  EXPECT_GT(size, 16u);
  EXPECT_TRUE(entry >= start && entry < start + size) << std::hex << entry << " outside " << start << "+" << size;
  // The range is executable memory of this process.
  bool executable = false;
  std::istringstream maps(read_file("/proc/self/maps"));
  for (std::string line; std::getline(maps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::string perms;
    std::istringstream fields(line);
    fields >> std::hex >> lo >> dash >> hi >> perms;
    if (start >= lo && start + size <= hi) executable = perms.find('x') != std::string::npos;
  }
  EXPECT_TRUE(executable);
  std::filesystem::remove(path);
}

// An output that is exactly an input (in place) gives the same result as a
// separate output (and is vectorized: see the benchmark).
TEST(CodegenSession, InPlaceOutput) {
  SpecBuilder b({3, 333});
  const ArgRef x = b.input(kFloat32);
  b.output(b.op(OpId::Add, kFloat32, {b.op(OpId::Mul, kFloat32, {x, x}), b.scalar(kFloat64)}), kFloat32);
  const KernelSpec& spec = b.spec();
  Bindings data = bind(spec, {1.0});
  const std::vector<Buffer> want = evaluate(spec, data);
  for (int level : {1, 3}) {
    Buffer inout = data.inputs[0];
    const CompiledKernel k = orc().compile(spec, {level});
    void* ptrs[] = {inout.data(), inout.data()};
    const std::int64_t bits[] = {std::bit_cast<std::int64_t>(1.0)};
    k.fn(0, 500, ptrs, bits);
    k.fn(500, spec.numel(), ptrs, bits);
    Buffer got = want[0];
    for (std::int64_t i = 0; i < spec.numel(); ++i) got.set_float(i, inout.get_float(i));
    EXPECT_EQ(compare(spec, {got}, want), "") << "O" << level;
  }
}

// Two outputs, one written over an input that the other output still reads:
// every element of every input is read before that element is written.
TEST(CodegenSession, InPlaceOutputOverAnInputOthersRead) {
  SpecBuilder b({2, 1000});
  const ArgRef x = b.input(kFloat32), y = b.input(kFloat32);
  b.output(b.op(OpId::Exp, kFloat32, {x}), kFloat32);                 // written over y
  b.output(b.op(OpId::Mul, kFloat32, {y, b.scalar(kFloat64)}), kFloat32);  // reads the old y
  const KernelSpec& spec = b.spec();
  const Bindings data = bind(spec, {3.0});
  const std::vector<Buffer> want = evaluate(spec, data);
  for (int level : {1, 3}) {
    Buffer y_out = data.inputs[1];
    std::vector<Buffer> got = {want[0], want[1]};
    void* ptrs[] = {const_cast<void*>(data.inputs[0].data()), y_out.data(), y_out.data(), got[1].data()};
    const std::int64_t bits[] = {std::bit_cast<std::int64_t>(3.0)};
    const CompiledKernel k = orc().compile(spec, {level});
    k.fn(0, 777, ptrs, bits);
    k.fn(777, spec.numel(), ptrs, bits);
    for (std::int64_t i = 0; i < spec.numel(); ++i) got[0].set_float(i, y_out.get_float(i));
    EXPECT_EQ(compare(spec, got, want), "") << "O" << level;
  }
}

}  // namespace
}  // namespace kiln::jit::codegen_test

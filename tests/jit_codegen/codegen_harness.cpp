#include "tests/jit_codegen/codegen_harness.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

namespace kiln::jit::codegen_test {

// ---- Buffer ----------------------------------------------------------------

Buffer::Buffer(ScalarType t, std::int64_t n) : dtype(t), size(n) {
  const std::size_t bytes = static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * element_size(t);
  storage.assign((bytes + 7) / 8, 0x5A5A5A5A5A5A5A5Aull);  // a sentinel: untouched elements must stay so
}

double Buffer::get_float(std::int64_t i) const {
  if (dtype == kFloat32) return static_cast<const float*>(data())[i];
  return static_cast<const double*>(data())[i];
}

std::int64_t Buffer::get_int(std::int64_t i) const {
  switch (dtype) {
    case kBool: return static_cast<const std::uint8_t*>(data())[i];
    case kInt32: return static_cast<const std::int32_t*>(data())[i];
    default: return static_cast<const std::int64_t*>(data())[i];
  }
}

void Buffer::set_float(std::int64_t i, double v) {
  if (dtype == kFloat32) static_cast<float*>(data())[i] = static_cast<float>(v);
  else static_cast<double*>(data())[i] = v;
}

void Buffer::set_int(std::int64_t i, std::int64_t v) {
  switch (dtype) {
    case kBool: static_cast<std::uint8_t*>(data())[i] = static_cast<std::uint8_t>(v); break;
    case kInt32: static_cast<std::int32_t*>(data())[i] = static_cast<std::int32_t>(v); break;
    default: static_cast<std::int64_t*>(data())[i] = v; break;
  }
}

std::string Buffer::show(std::int64_t i) const {
  std::ostringstream out;
  out.precision(dtype == kFloat32 ? 9 : 17);
  if (is_floating_point(dtype)) out << get_float(i);
  else out << get_int(i);
  return out.str();
}

// ---- SpecBuilder -------------------------------------------------------------

SpecBuilder::SpecBuilder(std::vector<std::int64_t> sizes) {
  spec_.ndim = static_cast<std::int32_t>(sizes.size());
  std::copy(sizes.begin(), sizes.end(), spec_.sizes);
}

std::vector<std::int64_t> SpecBuilder::contiguous() const {
  std::vector<std::int64_t> strides(spec_.ndim);
  std::int64_t s = 1;
  for (int d = spec_.ndim - 1; d >= 0; --d) {
    strides[d] = s;
    s *= std::max<std::int64_t>(spec_.sizes[d], 1);
  }
  return strides;
}

namespace {
KernelOperand operand(ScalarType t, const std::vector<std::int64_t>& strides) {
  KernelOperand o;
  o.dtype = t;
  std::copy(strides.begin(), strides.end(), o.strides);
  return o;
}
}  // namespace

ArgRef SpecBuilder::input(ScalarType t, std::vector<std::int64_t> strides) {
  spec_.inputs.push_back(operand(t, strides.empty() ? contiguous() : strides));
  return {ArgRef::Input, static_cast<std::int32_t>(spec_.inputs.size() - 1)};
}

ArgRef SpecBuilder::scalar(ScalarType kind) {
  spec_.scalars.push_back(kind);
  return {ArgRef::Scalar, static_cast<std::int32_t>(spec_.scalars.size() - 1)};
}

ArgRef SpecBuilder::op(OpId op, ScalarType dtype, std::vector<ArgRef> args, std::int64_t attr) {
  KernelInstr in;
  in.op = op;
  in.dtype = dtype;
  const trace::DtypeRule rule = trace::info(op).rule;
  in.out_dtype = rule == trace::DtypeRule::Compare || rule == trace::DtypeRule::Logical ? kBool : dtype;
  in.arity = static_cast<std::uint8_t>(args.size());
  std::copy(args.begin(), args.end(), in.args);
  in.attr = attr;
  spec_.instrs.push_back(in);
  return {ArgRef::Instr, static_cast<std::int32_t>(spec_.instrs.size() - 1)};
}

ArgRef SpecBuilder::cast(ArgRef x, ScalarType from, ScalarType to) {
  ArgRef r = op(OpId::Copy, from, {x});
  spec_.instrs.back().out_dtype = to;
  return r;
}

void SpecBuilder::output(ArgRef value, ScalarType t, std::vector<std::int64_t> strides) {
  spec_.outputs.push_back({value.index, operand(t, strides.empty() ? contiguous() : strides)});
}

// ---- data --------------------------------------------------------------------

Buffer sample(ScalarType t, std::int64_t n, unsigned seed) {
  Buffer b(t, n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-4, 4);
  std::uniform_int_distribution<int> small(-20, 20), pick(0, 99);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double tiny = t == kFloat32 ? 1e-40 : 1e-310;  // denormal
  const double float_special[] = {nan, inf, -inf, 0.0, -0.0, 1, -1, 0.5, tiny, 100, -100, 1e30, -1e30};
  const std::int64_t lo = t == kInt32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
  const std::int64_t hi = t == kInt32 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
  const std::int64_t int_special[] = {lo, hi, 0, 1, -1, 2, 100000, -100000};
  for (std::int64_t i = 0; i < n; ++i) {
    const bool special = pick(rng) < 12;
    if (t == kBool) b.set_int(i, pick(rng) & 1);
    else if (is_floating_point(t)) b.set_float(i, special ? float_special[pick(rng) % 13] : uniform(rng));
    else b.set_int(i, special ? int_special[pick(rng) % 8] : small(rng));
  }
  return b;
}

std::int64_t extent(const KernelSpec& spec, const KernelOperand& operand) {
  if (spec.numel() == 0) return 0;
  std::int64_t last = 0;
  for (int d = 0; d < spec.ndim; ++d) last += (spec.sizes[d] - 1) * operand.strides[d];
  return last + 1;
}

Bindings bind(const KernelSpec& spec, std::vector<Scalar> scalars, unsigned seed) {
  Bindings b;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k)
    b.inputs.push_back(sample(spec.inputs[k].dtype, extent(spec, spec.inputs[k]), seed * 7919 + k));
  b.scalars = std::move(scalars);
  return b;
}

// ---- running -----------------------------------------------------------------

std::vector<Buffer> run(CompiledFn fn, const KernelSpec& spec, const Bindings& b,
                        const std::vector<std::int64_t>& cuts) {
  std::vector<Buffer> outs;
  for (const KernelOutput& out : spec.outputs) outs.emplace_back(out.mem.dtype, extent(spec, out.mem) + 16);
  std::vector<void*> ptrs;
  for (const Buffer& in : b.inputs) ptrs.push_back(const_cast<void*>(in.data()));
  for (Buffer& out : outs) ptrs.push_back(out.data());
  std::vector<std::int64_t> bits;
  for (std::size_t k = 0; k < spec.scalars.size(); ++k) {
    const Scalar& s = b.scalars.at(k);
    bits.push_back(is_floating_point(spec.scalars[k]) ? std::bit_cast<std::int64_t>(s.to_double()) : s.to_long());
  }
  for (int d = 0; d < spec.ndim; ++d)
    if (spec.is_dynamic(d)) bits.push_back(spec.sizes[d]);
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) fn(cuts[c], cuts[c + 1], ptrs.data(), bits.data());
  return outs;
}

namespace {

// Distance in units in the last place, through the ordered integer image.
std::uint64_t ulps(double a, double b, ScalarType t) {
  auto ordered = [t](double v) -> std::int64_t {
    if (t == kFloat32) {
      const std::int32_t i = std::bit_cast<std::int32_t>(static_cast<float>(v));
      return i < 0 ? std::numeric_limits<std::int32_t>::min() - static_cast<std::int64_t>(i) : i;
    }
    const std::int64_t i = std::bit_cast<std::int64_t>(v);
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
  };
  const std::int64_t x = ordered(a), y = ordered(b);
  return x > y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
               : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
}

bool float_matches(double got, double want, ScalarType t, bool approximate) {
  if (std::isnan(got) && std::isnan(want)) return true;
  if (std::isnan(got) || std::isnan(want)) return false;
  if (std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want)) return true;
  if (!approximate || std::isinf(got) || std::isinf(want)) return false;
  const double eps = t == kFloat32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  return ulps(got, want, t) <= 4 || std::fabs(got - want) <= 16 * eps * (1 + std::fabs(want));
}

}  // namespace

std::string compare(const KernelSpec& spec, const std::vector<Buffer>& got, const std::vector<Buffer>& want) {
  const bool approximate = has_transcendental(spec);
  std::ostringstream report;
  int shown = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    const Buffer &g = got[k], &w = want[k];
    // Tolerance in the precision the value was computed or stored in, the lower.
    const ScalarType computed = spec.instrs[spec.outputs[k].instr].out_dtype;
    const ScalarType precision = computed == kFloat32 || w.dtype == kFloat32 ? kFloat32 : kFloat64;
    for (std::int64_t i = 0; i < w.size; ++i) {
      const bool ok = is_floating_point(w.dtype) ? float_matches(g.get_float(i), w.get_float(i), precision, approximate)
                                                 : g.get_int(i) == w.get_int(i);
      if (ok) continue;
      if (shown++ < 6) report << "  out" << k << "[" << i << "]: got " << g.show(i) << ", want " << w.show(i) << "\n";
    }
  }
  if (shown > 6) report << "  ... " << shown << " mismatches\n";
  return report.str();
}

bool check_compiled(CompiledFn fn, const KernelSpec& spec, const Bindings& b, const std::string& label) {
  const std::int64_t n = spec.numel();
  const std::vector<Buffer> want = evaluate(spec, b);
  std::vector<std::vector<std::int64_t>> splits = {{0, n}, {0, std::min<std::int64_t>(37, n), n}};
  std::mt19937 rng(static_cast<unsigned>(n));
  std::vector<std::int64_t> ragged = {0};
  while (ragged.back() < n)
    ragged.push_back(std::min<std::int64_t>(n, ragged.back() + std::uniform_int_distribution<std::int64_t>(1, 70)(rng)));
  splits.push_back(ragged);
  for (const auto& cuts : splits) {
    const std::string mismatch = compare(spec, run(fn, spec, b, cuts), want);
    if (!mismatch.empty()) {
      ADD_FAILURE() << label << ", " << cuts.size() - 1 << " piece(s):\n" << mismatch << spec.to_string();
      return false;
    }
  }
  const std::int64_t first = n / 3, last = n - n / 4;  // a piece starting and ending mid-row
  const std::string mismatch = compare(spec, run(fn, spec, b, {first, last}), evaluate(spec, b, first, last));
  if (!mismatch.empty()) {
    ADD_FAILURE() << label << ", the piece [" << first << ", " << last << ") alone:\n" << mismatch << spec.to_string();
    return false;
  }
  return true;
}

void check_kernel(const KernelSpec& spec, const Bindings& b, const std::string& label) {
  for (int level : {1, 3}) {
    const CompiledKernel kernel = OrcSession::instance().compile(spec, CompileOptions{level});
    ASSERT_NE(kernel.fn, nullptr);
    if (!check_compiled(kernel.fn, spec, b, label + " at O" + std::to_string(level))) return;
  }
}

void check_kernel(const KernelSpec& spec, const std::string& label) { check_kernel(spec, bind(spec), label); }

}  // namespace kiln::jit::codegen_test

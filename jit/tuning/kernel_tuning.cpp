#include "jit/tuning/kernel_tuning.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <kiln/error.h>
#include <kiln/memory/memory.h>

#include "autotune/measure.h"
#include "autotune/shape_bucket.h"
#include "jit/orc/session.h"
#include "jit/threads.h"
#include "jit/tier1/launch.h"
#include "jit/tuning/settle.h"
#include "jit/tuning/tuning_store.h"

namespace kiln::jit::tuning {
namespace {

// The first input's element type in a key, "" when not floating.
const char* element_text(const KernelSpec& spec) {
  if (spec.inputs.empty()) return "";
  return spec.inputs[0].dtype == kFloat32 ? "f32" : spec.inputs[0].dtype == kFloat64 ? "f64" : "";
}

// What a row kernel computes, its instructions' ops joined by '.'
// (softmax: amax.sub.exp.sum.reciprocal.mul). Keyed by its loops per row,
// a layer norm shared softmax's key (three loops over 4096x1024 float
// rows) and ran with the knobs tuned for softmax, 2.3x slower than with
// its own heuristic. Sums and elementwise kernels stay keyed by form: the
// `sum N` and `exp N` targets tune every kernel of theirs.
std::string ops_text(const KernelSpec& spec) {
  std::string out;
  for (const KernelInstr& instr : spec.instrs) {
    if (!out.empty()) out += '.';
    out += trace::name(instr.op);
  }
  return out;
}

bool only_sums(const KernelSpec& spec) {
  return std::all_of(spec.instrs.begin(), spec.instrs.end(),
                     [](const KernelInstr& i) { return !is_reduction(i.op) || i.op == trace::OpId::Sum; });
}

// The knob values measured. On the 2-core AVX2 machine the vectorizer picks
// 8 float lanes interleaved by 4 for these loops; narrower and wider widths
// and other interleave counts are offered around that.
std::vector<std::int64_t> widths(const KernelSpec& spec) {
  return spec.inputs[0].dtype == kFloat32 ? std::vector<std::int64_t>{0, 4, 8, 16} : std::vector<std::int64_t>{0, 2, 4, 8};
}

// A memory operand of the measured kernel: kiln's allocator (large blocks on
// huge pages, as a program's tensors are), released on destruction.
struct OperandBuffer {
  memory::Block block;
  std::size_t bytes = 0;
  explicit OperandBuffer(std::size_t n) : block(memory::allocate(n)), bytes(n) { std::memset(block.ptr, 0, n); }
  OperandBuffer(const OperandBuffer&) = delete;
  OperandBuffer& operator=(const OperandBuffer&) = delete;
  ~OperandBuffer() { memory::release(block); }
};

// Elements an operand with these strides reaches.
std::int64_t extent(const KernelSpec& spec, const KernelOperand& operand) {
  std::int64_t last = 0;
  for (int d = 0; d < spec.ndim; ++d) last += (spec.sizes[d] - 1) * operand.strides[d];
  return last + 1;
}

// Inputs in [0.5, 1.5): sums do not cancel, so the outputs of a candidate
// and of the heuristic can be compared relatively.
class Operands {
 public:
  explicit Operands(const KernelSpec& spec) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> values(0.5, 1.5);
    for (std::size_t k = 0; k < spec.inputs.size() + spec.outputs.size(); ++k) {
      const bool input = k < spec.inputs.size();
      const KernelOperand& mem = input ? spec.inputs[k] : spec.outputs[k - spec.inputs.size()].mem;
      const std::int64_t n = extent(spec, mem);
      auto& buffer = *buffers_.emplace_back(std::make_unique<OperandBuffer>(n * element_size(mem.dtype)));
      if (input && mem.dtype == kFloat32)
        for (std::int64_t i = 0; i < n; ++i) static_cast<float*>(buffer.block.ptr)[i] = float(values(rng));
      if (input && mem.dtype == kFloat64)
        for (std::int64_t i = 0; i < n; ++i) static_cast<double*>(buffer.block.ptr)[i] = values(rng);
      ptrs_.push_back(buffer.block.ptr);
      if (!input) outputs_.push_back({mem.dtype, &buffer});
    }
  }
  void* const* ptrs() const { return ptrs_.data(); }

  // The outputs' values: floats as double, other types byte by byte (so
  // that within_rounding asks them to be equal).
  std::vector<double> outputs() const {
    std::vector<double> values;
    for (const auto& [dtype, buffer] : outputs_) {
      const void* data = buffer->block.ptr;
      if (dtype == kFloat32)
        values.insert(values.end(), static_cast<const float*>(data), static_cast<const float*>(data) + buffer->bytes / 4);
      else if (dtype == kFloat64)
        values.insert(values.end(), static_cast<const double*>(data), static_cast<const double*>(data) + buffer->bytes / 8);
      else
        values.insert(values.end(), static_cast<const unsigned char*>(data),
                      static_cast<const unsigned char*>(data) + buffer->bytes);
    }
    return values;
  }

 private:
  std::vector<std::unique_ptr<OperandBuffer>> buffers_;
  std::vector<void*> ptrs_;
  std::vector<std::pair<ScalarType, const OperandBuffer*>> outputs_;
};

// Equal but for the rounding of reordered sums: relative to each value, in
// the outputs' precision (the inputs are positive, so nothing cancels).
bool within_rounding(const std::vector<double>& got, const std::vector<double>& want, double relative) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= relative * std::fabs(want[i]))) return false;
  return true;
}

// Compiled code per codegen knobs: candidates that differ only in their
// launch knobs share it.
class Candidates {
 public:
  explicit Candidates(const KernelSpec& spec) : spec_(spec) {}
  CompiledFn code(const KernelKnobs& knobs) {
    const auto codegen = std::make_tuple(knobs.vector_width, knobs.interleave, knobs.sum_block);
    auto it = compiled_.find(codegen);
    if (it == compiled_.end()) {
      KernelSpec spec = spec_;
      spec.knobs = knobs;
      it = compiled_.emplace(codegen, OrcSession::instance().compile(spec, {3})).first;
    }
    return it->second.fn;
  }

 private:
  const KernelSpec& spec_;
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, CompiledKernel> compiled_;
};

}  // namespace

std::string kernel_key(const KernelSpec& spec) {
  const std::string element = element_text(spec);
  if (element.empty() || spec.dynamic_dims != 0) return "";
  const std::string variant = element + "/t" + std::to_string(num_threads()) + "/";
  if (!spec.has_reduction()) {
    const std::int64_t n[] = {spec.numel()};
    return "elementwise/" + variant + autotune::bucket_key(n);
  }
  if (spec.is_partial()) {
    const std::int64_t n[] = {spec.numel()};
    return only_sums(spec) ? "sum/" + variant + autotune::bucket_key(n) : "";
  }
  const std::int64_t rows = spec.range();
  const std::int64_t extents[] = {rows, rows > 0 ? spec.numel() / rows : 0};
  return "row_reduce/" + element + "/" + ops_text(spec) + "/t" + std::to_string(num_threads()) + "/" +
         autotune::bucket_key(extents);
}

autotune::ConfigSpace kernel_space(const KernelSpec& spec) {
  autotune::ConfigSpace space;
  space.add("vector_width", widths(spec));
  space.add("interleave", {0, 1, 2, 4, 8});
  if (spec.has_reduction() && spec.inputs[0].dtype == kFloat32) {
    // Blocks other than the heuristic's (which 0 stands for): a partial
    // kernel's 4096 would compile and time the default twice.
    std::vector<std::int64_t> blocks{0};
    for (std::int64_t b : {64, 128, 256, 512, 1024, 4096})
      if (b != heuristic_sum_block(spec.is_partial())) blocks.push_back(b);
    space.add("sum_block", blocks);
  }
  if (spec.is_partial()) space.add("partial_chunk", {0, 16384, 32768, 131072, 262144, 1048576});
  else if (num_threads() > 1) space.add("grain", {0, 8192, 16384, 65536, 131072, 262144});
  return space;
}

KernelKnobs knobs_from_config(const autotune::Config& config) {
  auto get = [&](const char* name) {
    auto it = config.find(name);
    return it == config.end() ? 0 : it->second;
  };
  return {.vector_width = static_cast<std::int32_t>(get("vector_width")),
          .interleave = static_cast<std::int32_t>(get("interleave")),
          .sum_block = static_cast<std::int32_t>(get("sum_block")),
          .grain = get("grain"),
          .partial_chunk = get("partial_chunk")};
}

std::optional<KernelKnobs> tuned_knobs(const KernelSpec& spec) {
  if (autotune_mode() == AutotuneMode::Off) return std::nullopt;
  const std::string key = kernel_key(spec);
  if (key.empty()) return std::nullopt;
  const std::shared_ptr<autotune::TuningDb> db = tuning_db();
  if (!db) return std::nullopt;
  const std::optional<autotune::TuningEntry> entry = db->lookup(key);
  if (!entry || !kernel_space(spec).contains(entry->config)) return std::nullopt;  // else hand-edited or stale
  return knobs_from_config(entry->config);
}

bool apply_tuned_knobs(KernelSpec& spec) {
  const std::optional<KernelKnobs> knobs = tuned_knobs(spec);
  if (knobs) spec.knobs = *knobs;
  return knobs.has_value();
}

KernelTuneResult tune_kernel(const KernelSpec& untuned, autotune::SearchOptions options) {
  KernelTuneResult result;
  result.key = kernel_key(untuned);
  if (result.key.empty() || !untuned.scalars.empty())
    throw InternalError("[tune] not a kernel the fused-kernel family tunes:\n" + untuned.to_string());
  KernelSpec spec = untuned;
  spec.knobs = {};
  Operands operands(spec);
  Candidates candidates(spec);
  auto run = [&](const KernelKnobs& knobs, CompiledFn fn) {
    spec.knobs = knobs;  // the launch knobs
    launch(spec, fn, operands.ptrs(), nullptr);
  };
  const KernelKnobs heuristic{};
  run(heuristic, candidates.code(heuristic));
  const std::vector<double> reference = operands.outputs();
  // float32 sums of a block in float, then in double: a few float ulps.
  const double relative = spec.inputs[0].dtype == kFloat32 ? 1e-5 : 1e-12;
  const autotune::MeasureFn measure = [&](const autotune::Config& candidate, int repetitions) -> std::optional<double> {
    const KernelKnobs knobs = knobs_from_config(candidate);
    const CompiledFn fn = candidates.code(knobs);
    run(knobs, fn);
    if (!within_rounding(operands.outputs(), reference, relative)) return std::nullopt;
    return autotune::measure([&] { run(knobs, fn); }, {1, repetitions, 2.0}).median_seconds;
  };
  const autotune::ConfigSpace space = kernel_space(spec);
  result.heuristic_point = space.at(0);  // every knob's first value: 0
  options.seeds.insert(options.seeds.begin(), result.heuristic_point);
  result.search = autotune::search(space, measure, options);
  result.best_point = result.search.best ? *result.search.best : result.heuristic_point;
  result.best = knobs_from_config(result.best_point);
  if (options.cancel && options.cancel->load()) return result;  // the user wants out: no more timing, no store

  settle(result, heuristic, [&](const KernelKnobs& knobs) { run(knobs, candidates.code(knobs)); });
  return result;
}

}  // namespace kiln::jit::tuning

#include "jit/tier1/segment_jit.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <optional>

#include <kiln/error.h>
#include <kiln/settings.h>

#include "jit/bound_node.h"
#include "jit/fusion/epilogue.h"
#include "jit/threads.h"
#include "jit/tier1/config.h"
#include "jit/tier1/disk_cache.h"
#include "jit/tier1/dying_input.h"
#include "jit/tier1/keyed_table.h"
#include "jit/tier1/launch.h"
#include "jit/tier1/matmul_epilogue.h"
#include "jit/tier1/online_tuning.h"
#include "jit/tier1/plan_text.h"
#include "jit/tuning/kernel_targets.h"
#include "jit/tuning/kernel_tuning.h"
#include "memory/residency.h"
#include "profiler/cut_sites.h"
#include "profiler/enabled.h"
#include "profiler/events.h"
#include "profiler/jit_counters.h"
#include "profiler/thread_block.h"
#include "profiler/tunables.h"

namespace kiln::jit {
namespace {

// Measured (DESIGN.md, "Compile latency"): a fused elementwise kernel takes
// about 1-5 ms to compile at O1. A key is compiled once the time it has
// spent on tier 0 reaches this, i.e. once the program has shown that it
// runs the segment long enough for the compile to pay for itself.
constexpr double kCompileEstimateMs = 5.0;
// Compiled runs of a kernel before it is recompiled at O3.
constexpr std::uint64_t kUpgradeRuns = 64;


// Hot: run often enough, and (unless the user chose the threshold) long
// enough on tier 0 for a compile to pay for itself.
bool is_hot(std::int64_t runs, std::int64_t t0_ns) {
  if (compile_forced()) return true;
  if (runs < hot_threshold()) return false;
  if (hot_threshold_is_explicit() || compile_sync()) return true;
  return static_cast<double>(t0_ns) / 1e6 >= kCompileEstimateMs;
}

// What jit_for last returned on this thread (last_segment_jit): read once
// per segment run, so an ordinary thread-local is cheap enough.
// The key only, not the record: a thread-local with a destructor may be
// gone when the thread's trace buffer flushes its last segment at exit.
thread_local std::optional<std::uint64_t> t_last;

using SegmentRecords = KeyedTable<SegmentJit, profiler::JitEvent::KeyEvicted>;

// Keys run once so far, direct-mapped by their low bits: a key is given a
// record on its second run. A collision only makes a key wait one run
// more (or, rarely, get its record a run early).
class SeenOnce {
 public:
  /// True if `key` was noted before; notes it.
  bool check_and_note(std::uint64_t key) {
    const std::uint64_t salted = key ^ 0x9e3779b97f4a7c15ull;  // key 0 is not an empty slot
    return slots_[key % kSlots].exchange(salted, std::memory_order_relaxed) == salted;
  }

 private:
  static constexpr std::size_t kSlots = 1 << 14;
  std::array<std::atomic<std::uint64_t>, kSlots> slots_{};
};

SeenOnce& seen_once() {
  static SeenOnce* seen = new SeenOnce;
  return *seen;
}

// The family of `s`'s key, found on first use and kept with the record.
ShapeFamily& family_for(SegmentJit& s, const trace::Segment& segment) {
  ShapeFamily* f = s.family.load(std::memory_order_acquire);
  if (!f) {
    std::lock_guard lock(s.mu);
    if (!s.family_owner) s.family_owner = family_of(segment);
    f = s.family_owner.get();
    s.family.store(f, std::memory_order_release);
  }
  return *f;
}

// Whether a key without a record gets one now: on its second run; on its
// first when its shape family was seen before (one size of a structure
// whose sizes vary); or at once when compiling at the first run was asked
// for. Keys of a structure that never recurs get none.
// A key's first sighting is also counted at its cut site, with its
// structure, for the report's recompile storms.
// The family is hashed on a key's first run only.
bool deserves_record(const trace::Segment& segment, bool& ran_before) {
  ran_before = seen_once().check_and_note(segment.key);
  if (ran_before) return true;
  const std::uint64_t family = family_key(segment);
  profiler::note_new_key(segment.site, family);
  const bool family_seen = seen_once().check_and_note(family);
  return family_seen || compile_forced() || hot_threshold() <= 1;
}

void plan(SegmentJit& s, const trace::Segment& segment, const std::vector<bool>& needed, std::vector<FusedGroup> groups,
          bool dynamic) {
  std::lock_guard lock(s.mu);
  if (s.planned.load()) return;
  s.dynamic = dynamic;
  s.groups = std::move(groups);
  for (FusedGroup& group : s.groups) find_dying_input(segment, needed, group);
  s.group_of = group_of_nodes(s.groups, segment.nodes.size());
  s.value_count = segment.values.size();
  s.needed_nodes = static_cast<std::size_t>(std::count(needed.begin(), needed.end(), true));
  for (std::size_t g = 0; g < s.groups.size(); ++g) {
    KernelSpec spec = s.groups[g].spec;
    // The outermost dim's size enters no stride, so it alone goes to run
    // time: free in the generated code, and a contiguous operand's dims are
    // coalesced into that one anyway. A varying inner size changes strides,
    // which stay in the key.
    if (dynamic) spec.dynamic_dims = 1;
    bool existed = false;
    const std::shared_ptr<KernelEntry>& kernel = s.kernels.emplace_back(KernelCache::instance().find_or_add(spec, &existed));
    if (existed) profiler::count(profiler::JitEvent::MemoryCacheHit);
    else if (dynamic) profiler::count(profiler::JitEvent::DynamicCompile);
    // The key's tier-0 time so far is its kernels' first heat. A shared
    // kernel is queued only if it is not queued or compiled already.
    kernel->add_heat(static_cast<double>(s.t0_ns.load(std::memory_order_relaxed)), profiler::now_ns());
    request_compile(kernel, 1);
  }
  profiler::record_plan(segment.key, describe_plan(segment, s));  // for `kiln explain`
  s.planned.store(true, std::memory_order_release);
}

// A key given its record (on its second run) whose every kernel is
// compiled already -- in memory, or on disk from an earlier run of the
// program -- starts compiled at once.
bool warm_start(const std::vector<FusedGroup>& groups) {
  if (groups.empty()) return false;
  for (const FusedGroup& g : groups)
    if (!KernelCache::instance().is_compiled(g.spec.key()) && !disk_cache_has(g.spec.key())) return false;
  return true;
}

double ns_per_elem(std::int64_t ns, std::int64_t elements) {
  return static_cast<double>(ns) / static_cast<double>(std::max<std::int64_t>(elements, 1));
}

// Timing every compiled run costs two clock reads per kernel call, a
// visible share of a tiny kernel's time: runs are timed while the tiers are
// compared and the O3 upgrade is pending, then one in kSampleEvery.
constexpr std::uint64_t kTimedRuns = 2 * kUpgradeRuns;
constexpr std::uint64_t kSampleEvery = 64;

bool timed_run(const KernelEntry& k) {
  std::uint64_t runs = k.compiled_runs.load(std::memory_order_relaxed);
  return runs < kTimedRuns || runs % kSampleEvery == 0;
}

// After a compiled run; `ns` < 0 when it was not timed, or when the time is
// not the kernel's alone (a matmul epilogue's run includes its GEMM, which
// says nothing about the kernel against tier 0).
void feedback(KernelEntry& k, std::int64_t ns, std::int64_t elements) {
  std::uint64_t runs = k.compiled_runs.fetch_add(1, std::memory_order_relaxed) + 1;
  if (ns >= 0 && k.tiers.compiled(ns_per_elem(ns, elements), num_threads(), profiler::now_ns())) {
    std::lock_guard lock(k.mu);
    if (k.state.load() != KernelState::Compiled) return;
    k.failure = "demoted: compiled code slower than tier 0 (" + k.tiers.describe() + ")";
    k.state.store(KernelState::Demoted);
    profiler::count(profiler::JitEvent::Demoted);
    profiler::record_failure(k.failure);
    profiler::log_event({.kind = profiler::EventKind::Demoted, .key = k.key, .detail = k.failure});
    return;
  }
  if (runs >= kUpgradeRuns && k.opt_level.load() == 1 && !k.upgrade_queued.exchange(true)) request_compile(k.shared_from_this(), 3);
}

// Kernels of fewer elements are not counted as tunable runs: a run over
// 2^18 floats takes tens of microseconds, so the count's clock reads and
// lock cost it about 1% at most (as for GEMMs, kGemmParallelWork).
constexpr std::int64_t kReportedKernelElements = std::int64_t{1} << 18;

// The fused groups of a segment, each kernel with the knobs the tuning
// database holds for its family and shape (jit/tuning/kernel_tuning.h), and
// those large enough marked for the profiler's count of tunable runs.
std::vector<FusedGroup> tuned_partition(const trace::Segment& segment, const std::vector<bool>& needed) {
  std::vector<FusedGroup> groups = partition(segment, needed);
  for (FusedGroup& g : groups) {
    if (g.matmul) continue;
    const bool tuned = tuning::apply_tuned_knobs(g.spec);
    if (g.spec.numel() < kReportedKernelElements) continue;
    if (std::string key = tuning::kernel_key(g.spec); !key.empty())
      g.tunable = std::make_shared<const TunableKernel>(
          TunableKernel{std::move(key), tuning::fused_kernel_target(g.spec), tuned ? "database" : "heuristic"});
  }
  return groups;
}

// The key's plan, made on its first run. Equal keys mean equal segments; a
// plan that does not fit (a hash collision) is not used.
const SegmentPlan* plan_of(SegmentJit& s, const trace::Segment& segment, SegmentPlan& scratch) {
  const SegmentPlan* p = s.plan.load(std::memory_order_acquire);
  if (!p) {
    auto made = std::make_unique<const SegmentPlan>(plan_segment(segment));
    if (s.plan.compare_exchange_strong(p, made.get(), std::memory_order_acq_rel)) p = made.release();
  }
  if (p->needed.size() == segment.nodes.size()) return p;
  scratch = plan_segment(segment);
  return &scratch;
}

}  // namespace

std::shared_ptr<const SegmentJit> last_segment_jit() { return t_last ? SegmentRecords::find(*t_last) : nullptr; }

void set_max_keys(std::size_t keys) {
  if (keys < 8) throw ValueError(detail::cat("[set_max_keys] the bound must be at least 8 keys, got ", keys));
  SegmentRecords::set_capacity(keys);
  KeyedTable<ShapeFamily>::set_capacity(keys);
  profiler::set_key_record_limit(keys);
}

std::shared_ptr<SegmentJit> jit_for(const trace::Segment& segment, const SegmentPlan*& segment_plan,
                                    SegmentPlan& scratch) {
  t_last.reset();
  std::shared_ptr<SegmentJit> record;
  bool created = false;
  if (enabled()) {
    record = SegmentRecords::find(segment.key);
    bool ran_before = false;
    if (!record && deserves_record(segment, ran_before)) {
      record = SegmentRecords::get(segment.key, &created);
      if (created && ran_before) {
        // The run before it had a record counts, for the key and for its
        // family, as it would have with one.
        record->runs.fetch_add(1);
        ShapeFamily& f = family_for(*record, segment);
        f.runs.fetch_add(1);
        f.note(segment.key);
      }
    }
  }
  if (!record) {
    scratch = plan_segment(segment);
    segment_plan = &scratch;
    return nullptr;
  }
  SegmentJit& s = *record;
  segment_plan = plan_of(s, segment, scratch);
  const std::vector<bool>& needed = segment_plan->needed;
  std::int64_t runs = s.runs.fetch_add(1) + 1;
  if (!s.planned.load(std::memory_order_acquire)) {
    if (is_hot(runs, s.t0_ns.load())) {
      plan(s, segment, needed, tuned_partition(segment, needed), false);
    } else if (std::vector<FusedGroup> groups; created && warm_start(groups = tuned_partition(segment, needed))) {
      plan(s, segment, needed, std::move(groups), false);
    } else {
      // Not hot alone: maybe as one size of a family whose sizes vary.
      ShapeFamily& f = family_for(s, segment);
      std::int64_t family_runs = f.runs.fetch_add(1) + 1;
      if (f.note(segment.key) && is_hot(family_runs, f.t0_ns.load()))
        plan(s, segment, needed, tuned_partition(segment, needed), true);
    }
  }
  // Equal keys mean equal segments; a plan that does not fit (a hash
  // collision) is not used rather than trusted.
  if (s.planned.load(std::memory_order_acquire) &&
      (s.group_of.size() != segment.nodes.size() || s.value_count != segment.values.size()))
    return nullptr;
  t_last = segment.key;
  return record;
}

// Coldness is judged in seconds: a kernel's time of last run is written at
// most once a millisecond, not on every run from every thread.
constexpr std::int64_t kLastRunResolutionNs = 1'000'000;

bool run_fused(trace::Segment& segment, const FusedGroup& group, KernelEntry& kernel, std::int64_t now,
               bool in_order) {
  if (now - kernel.last_run_ns.load(std::memory_order_relaxed) > kLastRunResolutionNs)
    kernel.last_run_ns.store(now, std::memory_order_relaxed);
  // The code online tuning published, with its knobs, over the kernel's own.
  const KernelEntry::TunedCode* tuned = kernel.tuned.load(std::memory_order_acquire);
  CompiledFn fn = tuned ? tuned->fn : kernel.fn.load(std::memory_order_acquire);
  if (!fn || kernel.state.load() != KernelState::Compiled || !views_match(segment, group)) {
    profiler::count(profiler::JitEvent::GroupRunInterpreted);
    return false;
  }
  const bool timed = timed_run(kernel);
  const bool tunable = group.tunable && profiler::enabled();
  const auto start = timed || tunable ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  const KernelSpec& spec = group.spec;
  void* ptrs[64];
  std::vector<void*> many;
  void** p = ptrs;
  std::size_t count = group.inputs.size() + group.outputs.size();
  if (count > 64) {
    many.resize(count);
    p = many.data();
  }
  // The input that may give its memory to an output (dying_input.h): only
  // in the group's own place, where every other reader of it has run. It is
  // neither pinned nor resolved until the other operands have their memory,
  // so that a failed allocation (the group then runs op by op) leaves it
  // untouched.
  std::size_t donor_slot = count, heir_slot = count;  // none
  if (in_order && group.dying_input >= 0) {
    const trace::Operand& in = operand(segment, group.inputs[group.dying_input]);
    const trace::Operand& out = operand(segment, group.outputs[group.heir_output]);
    const trace::Storage& heir = *segment.values[out.value].storage;
    if (!heir.is_allocated() && may_take_memory_of(in, *segment.values[in.value].storage, out, heir)) {
      donor_slot = static_cast<std::size_t>(group.dying_input);
      heir_slot = group.inputs.size() + static_cast<std::size_t>(group.heir_output);
    }
  }
  auto address = [&](const trace::Operand& op) -> void* {
    char* base = static_cast<char*>(segment.values[op.value].storage->data());
    return base + op.geo.offset * static_cast<std::int64_t>(element_size(op.dtype));
  };
  // Every storage the kernel touches stays in memory while it runs; evicted
  // ones are recomputed before any is pinned (trace::make_inputs_resident;
  // only possible once a budget was set).
  // A GEMM head reads its operands (and may store its product) outside the
  // spec's inputs and outputs: those are pinned too, or the GEMM's own
  // workspace could evict an operand it is about to read.
  std::vector<trace::Storage::Pin> pins;
  const bool pinning = memory::residency_ever_enabled();
  auto pin = [&](const trace::Operand& op) {  // the donor that kept its bytes
    if (pinning && !op.is_scalar()) pins.emplace_back(*segment.values[op.value].storage);
  };
  std::vector<trace::Storage::Awaited> awaited;
  if (pinning) {
    std::vector<trace::Storage*> touched;
    touched.reserve(count + 3);
    auto touch = [&](const trace::Operand& op) {
      if (!op.is_scalar()) touched.push_back(segment.values[op.value].storage.get());
    };
    std::size_t slot = 0;
    for (const std::vector<OperandRef>* refs : {&group.inputs, &group.outputs})
      for (OperandRef ref : *refs)
        if (slot++ != donor_slot) touch(operand(segment, ref));
    if (group.matmul) {
      const trace::Node& mm = segment.nodes[group.matmul->node];
      touch(mm.in[0]);
      touch(mm.in[1]);
      if (group.matmul->store_product) touch(mm.out);
    }
    awaited = trace::make_inputs_resident(touched);
    pins.reserve(touched.size() + 1);
    for (trace::Storage* storage : touched) pins.emplace_back(*storage);
  }
  std::size_t n = 0;
  for (const std::vector<OperandRef>* refs : {&group.inputs, &group.outputs}) {
    for (OperandRef ref : *refs) {
      if (group.matmul && refs == &group.inputs && n == static_cast<std::size_t>(group.matmul->product_input)) {
        p[n++] = nullptr;  // the GEMM's product: run_matmul_epilogue decides where it lives
        continue;
      }
      if (donor_slot != count && (n == donor_slot || n == heir_slot)) {
        ++n;  // below
        continue;
      }
      p[n++] = address(operand(segment, ref));
    }
  }
  if (donor_slot != count) {
    const trace::Operand& in = operand(segment, group.inputs[donor_slot]);
    const trace::Operand& out = operand(segment, group.outputs[group.heir_output]);
    const bool given = segment.values[in.value].storage->give_memory_to(*segment.values[out.value].storage);
    if (!given) pin(in);
    p[heir_slot] = address(out);
    p[donor_slot] = given ? p[heir_slot] : address(in);  // the same layout: the same addresses
  }
  // The scalars, then the sizes of dynamic dims: on the stack unless there are many.
  std::int64_t few[32];
  std::vector<std::int64_t> more;
  std::int64_t* scalars = few;
  std::size_t n_scalars = 0;
  if (group.scalars.size() + static_cast<std::size_t>(spec.ndim) > std::size(few)) {
    more.resize(group.scalars.size() + static_cast<std::size_t>(spec.ndim));
    scalars = more.data();
  }
  for (std::size_t j = 0; j < group.scalars.size(); ++j) {
    const Scalar& s = operand(segment, group.scalars[j]).scalar;
    scalars[n_scalars++] = is_floating_point(spec.scalars[j]) ? std::bit_cast<std::int64_t>(s.to_double())
                 : spec.scalars[j] == ScalarType::Bool ? std::int64_t{s.to_bool()}
                                                       : s.to_long();
  }
  // Dynamic kernels take this run's sizes after the scalars (KernelSpec::dynamic_dims).
  for (int d = 0; d < spec.ndim; ++d)
    if (kernel.spec.dynamic_dims >> d & 1) scalars[n_scalars++] = spec.sizes[d];
  const std::int64_t total = spec.numel();
  if (!group.matmul) {
    launch(spec, fn, p, scalars, tuned ? tuned->knobs : spec.knobs);
  } else if (!run_matmul_epilogue(segment, group, fn, p, scalars)) {
    profiler::count(profiler::JitEvent::GroupRunInterpreted);
    return false;
  }
  profiler::count(profiler::JitEvent::GroupRunCompiled);
  const std::int64_t ns =
      (timed && !group.matmul) || tunable
          ? std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count()
          : -1;
  if (tunable)
    profiler::note_tunable_run({.key = group.tunable->key, .target = group.tunable->target,
                                .threads = static_cast<std::uint32_t>(num_threads()),
                                .config = kernel.online_done.load(std::memory_order_acquire) ? "online"
                                                                                             : group.tunable->config,
                                .nanoseconds = ns});
  feedback(kernel, timed && !group.matmul ? ns : -1, total);
  note_online_run(group, kernel);
  return true;
}

void note_interpreted(KernelEntry& kernel, std::int64_t nanoseconds, std::int64_t elements, bool comparable,
                      std::int64_t now) {
  kernel.add_heat(static_cast<double>(nanoseconds), now);
  if (comparable) kernel.tiers.tier0(ns_per_elem(nanoseconds, elements), num_threads());
  if (kernel.state.load(std::memory_order_relaxed) == KernelState::Interpreted) request_compile(kernel.shared_from_this(), 1);
}

void note_segment_time(SegmentJit& jit, std::int64_t nanoseconds, bool any_compiled) {
  if (any_compiled) return;
  jit.t0_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
  if (ShapeFamily* f = jit.family.load(std::memory_order_acquire)) f->t0_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
}

}  // namespace kiln::jit

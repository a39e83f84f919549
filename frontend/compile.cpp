#include <kiln/frontend/compile.h>

#include <array>
#include <atomic>
#include <mutex>

#include "frontend/autograd/accumulate_grad.h"
#include "frontend/compiled_program.h"
#include "jit/tier1/config.h"
#include "profiler/call_site.h"
#include "trace/trace_buffer.h"

namespace kiln::detail {

// Programs are only ever added (at most kMaxPrograms) and live as long as
// the cache: a replay finds its program without taking a lock.
struct ProgramCache::Impl {
  std::mutex mu;  // serializes adding
  std::array<std::unique_ptr<frontend::CompiledProgram>, kMaxPrograms> owned;
  std::array<std::atomic<frontend::CompiledProgram*>, kMaxPrograms> programs{};
  std::atomic<std::size_t> count{0};
  std::size_t traced = 0;  // calls traced so far (programs kept or not), under mu
  // A program with state, kept once the next traced call agrees with it.
  std::unique_ptr<frontend::CompiledProgram> candidate;  // under mu
};

namespace {
// Where the calling thread's trace stood when its traced call began.
thread_local std::uint64_t t_cuts_at_begin = 0;
std::atomic<std::uint64_t> stateful_epoch{0};
}  // namespace

void invalidate_stateful_programs() noexcept { stateful_epoch.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t stateful_programs_epoch() noexcept { return stateful_epoch.load(std::memory_order_relaxed); }

ProgramCache::ProgramCache() : impl_(std::make_unique<Impl>()) {}
ProgramCache::~ProgramCache() = default;

bool ProgramCache::replay(const CallArgs& args, std::vector<Tensor>& results) {
  if (!jit::enabled()) return false;
  const std::size_t n = impl_->count.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < n; ++i) {
    frontend::CompiledProgram* program = impl_->programs[i].load(std::memory_order_acquire);
    if (!program->matches(args)) continue;
    // Pending ops that touch the arguments run first (CompiledProgram::run);
    // others may stay pending: the program does not see them.
    profiler::CallerScope caller(__builtin_return_address(0));
    if (program->run(args, results)) return true;
  }
  return false;
}

// The cuts below are the user's call of the compiled function: these
// functions are called from CompiledFunction::operator(), which is in the
// user's code.
bool ProgramCache::begin_trace() {
  profiler::CallerScope caller(__builtin_return_address(0));
  trace::TraceBuffer& buffer = trace::TraceBuffer::current();
  buffer.flush(profiler::CutReason::Sync);  // the body's ops form a segment of their own
  if (!jit::enabled()) return false;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->traced >= kMaxPrograms) return false;
    ++impl_->traced;
  }
  t_cuts_at_begin = buffer.cuts();
  autograd::AccumulateGrad::start_noting_leaves();
  return true;
}

void ProgramCache::end_trace(const CallArgs& args, const std::vector<Tensor>& results) {
  profiler::CallerScope caller(__builtin_return_address(0));
  trace::TraceBuffer& buffer = trace::TraceBuffer::current();
  const std::vector<std::weak_ptr<autograd::AutogradMeta>> leaves = autograd::AccumulateGrad::take_noted_leaves();
  trace::Segment segment;
  {
    jit::ForceCompile force(true);
    buffer.flush(profiler::CutReason::Sync, &segment);
  }
  // Exactly one segment since the call began: the body's, whole.
  std::unique_ptr<frontend::CompiledProgram> program;
  if (buffer.cuts() == t_cuts_at_begin + 1)
    program = frontend::CompiledProgram::capture(segment, args, results, leaves);
  std::lock_guard lock(impl_->mu);
  // A program with state froze the numbers its body read from outside its
  // arguments (a learning rate, a step count): it is kept only when two
  // traced calls in a row recorded the same ones.
  std::unique_ptr<frontend::CompiledProgram> candidate = std::move(impl_->candidate);
  if (!program) return;
  if (program->has_state() && !(candidate && candidate->same_as(*program))) {
    impl_->candidate = std::move(program);
    return;
  }
  const std::size_t n = impl_->count.load(std::memory_order_relaxed);
  impl_->programs[n].store(program.get(), std::memory_order_release);
  impl_->owned[n] = std::move(program);
  impl_->count.store(n + 1, std::memory_order_release);
}

void ProgramCache::cut() {
  profiler::CallerScope caller(__builtin_return_address(0));
  trace::TraceBuffer::current().flush(profiler::CutReason::Sync);
}

ProgramCache::CutAfter::CutAfter() : uncaught_(std::uncaught_exceptions()) {}
ProgramCache::CutAfter::~CutAfter() noexcept(false) {
  if (std::uncaught_exceptions() == uncaught_) cut();
}

}  // namespace kiln::detail

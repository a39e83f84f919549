#include <kiln/frontend/compile.h>

#include <mutex>
#include <shared_mutex>

#include "frontend/compiled_program.h"
#include "jit/tier1/config.h"
#include "profiler/call_site.h"
#include "profiler/call_site.h"
#include "trace/trace_buffer.h"

namespace kiln::detail {

struct ProgramCache::Impl {
  std::shared_mutex mu;
  std::vector<std::unique_ptr<frontend::CompiledProgram>> programs;
  std::size_t traced = 0;  // calls traced so far (programs kept or not)
};

namespace {
// Where the calling thread's trace stood when its traced call began.
thread_local std::uint64_t t_cuts_at_begin = 0;
}  // namespace

ProgramCache::ProgramCache() : impl_(std::make_unique<Impl>()) {}
ProgramCache::~ProgramCache() = default;

bool ProgramCache::replay(const CallArgs& args, std::vector<Tensor>& results) {
  if (!jit::enabled()) return false;
  frontend::CompiledProgram* program = nullptr;
  {
    std::shared_lock lock(impl_->mu);
    for (const auto& p : impl_->programs)
      if (p->matches(args)) {
        program = p.get();
        break;
      }
  }
  if (!program) return false;
  profiler::CallerScope caller(__builtin_return_address(0));
  trace::TraceBuffer::current().flush(profiler::CutReason::Sync);
  results = program->run(args);
  return true;
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
  return true;
}

void ProgramCache::end_trace(const CallArgs& args, const std::vector<Tensor>& results) {
  profiler::CallerScope caller(__builtin_return_address(0));
  trace::TraceBuffer& buffer = trace::TraceBuffer::current();
  trace::Segment segment;
  {
    jit::ForceCompile force(true);
    buffer.flush(profiler::CutReason::Sync, &segment);
  }
  // Exactly one segment since the call began: the body's, whole.
  if (buffer.cuts() != t_cuts_at_begin + 1) return;
  std::unique_ptr<frontend::CompiledProgram> program = frontend::CompiledProgram::capture(segment, args, results);
  if (!program) return;
  std::lock_guard lock(impl_->mu);
  impl_->programs.push_back(std::move(program));
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

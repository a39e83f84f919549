#include <kiln/frontend/compile.h>

#include "jit/tier1/config.h"
#include "profiler/call_site.h"
#include "trace/trace_buffer.h"

namespace kiln::detail {

CompiledCall::CompiledCall(bool compile_now) : compile_now_(compile_now), uncaught_(std::uncaught_exceptions()) {
  // The function's ops must form a segment of their own to match its key later.
  profiler::CallerScope caller(__builtin_return_address(0));
  trace::TraceBuffer::current().flush(profiler::CutReason::Sync);
}

CompiledCall::~CompiledCall() noexcept(false) {
  if (std::uncaught_exceptions() > uncaught_) return;  // unwinding: the ops run when read, as always
  jit::ForceCompile force(compile_now_);
  profiler::CallerScope caller(__builtin_return_address(0));
  trace::TraceBuffer::current().flush(profiler::CutReason::Sync);
}

}  // namespace kiln::detail

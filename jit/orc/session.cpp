#include "jit/orc/session.h"

#include "jit/compile_pipeline.h"
#include "jit/orc/kernel_jit.h"

namespace kiln::jit {

struct OrcSession::Impl {
  std::unique_ptr<KernelJit> jit = KernelJit::create();
};

OrcSession::OrcSession() : impl_(std::make_unique<Impl>()) {}
OrcSession::~OrcSession() = default;

OrcSession& OrcSession::instance() {
  // Leaked on purpose: kernels may still run while static destructors do.
  static OrcSession* session = new OrcSession();
  return *session;
}

CompiledKernel OrcSession::compile(const KernelSpec& spec, const CompileOptions& options) {
  return compile_kernel(spec, options, *impl_->jit);
}

CompiledKernel OrcSession::compile_gemm_tile(const kernels::GemmTileSpec& spec) {
  return jit::compile_gemm_tile(spec, *impl_->jit);
}

LinkedKernel OrcSession::load_object(std::uint64_t key, std::string_view object_bytes) {
  const std::string symbol = KernelJit::find_function(object_bytes, kernel_symbol_prefix(key));
  return impl_->jit->link(object_bytes, symbol);
}

std::string OrcSession::host_cpu() const { return impl_->jit->cpu(); }
std::string OrcSession::host_features() const { return impl_->jit->features(); }

}  // namespace kiln::jit

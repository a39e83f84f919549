// The per-thread switches that decide whether ops record gradient history.
#include "frontend/autograd/meta.h"

namespace kiln::autograd {

namespace detail {
thread_local bool grad_enabled __attribute__((tls_model("initial-exec"))) = true;
}

namespace {
thread_local bool inference_enabled = false;
}

bool GradMode::is_enabled() { return detail::grad_enabled; }
void GradMode::set_enabled(bool enabled) { detail::grad_enabled = enabled; }

AutoGradMode::AutoGradMode(bool enabled) : prev_(detail::grad_enabled) { detail::grad_enabled = enabled; }
AutoGradMode::~AutoGradMode() { detail::grad_enabled = prev_; }

InferenceMode::InferenceMode(bool enabled) : prev_grad_(detail::grad_enabled), prev_inference_(inference_enabled) {
  inference_enabled = enabled;
  detail::grad_enabled = !enabled && prev_grad_;
}
InferenceMode::~InferenceMode() {
  detail::grad_enabled = prev_grad_;
  inference_enabled = prev_inference_;
}
bool InferenceMode::is_enabled() { return inference_enabled; }

namespace detail {
ForwardScope::ForwardScope() : prev_(grad_enabled) { grad_enabled = false; }
ForwardScope::~ForwardScope() { grad_enabled = prev_; }
}  // namespace detail

}  // namespace kiln::autograd

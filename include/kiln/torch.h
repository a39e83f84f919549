// The one-line port from LibTorch: include this instead of <torch/torch.h>
// and code written against `torch::` compiles against kiln.
#pragma once

#include <kiln/kiln.h>

namespace torch = kiln;

/// LibTorch's names of kiln's module and option macros.
#define TORCH_MODULE(Name) KILN_MODULE(Name)
#define TORCH_ARG(T, name) KILN_ARG(T, name)

// The one-line port from LibTorch: include this instead of <torch/torch.h>
// and code written against `torch::` compiles against kiln.
#pragma once

#include <kiln/kiln.h>

namespace torch = kiln;

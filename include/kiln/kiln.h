// The whole kiln API: `#include <kiln/kiln.h>`.
#pragma once

#include <kiln/array_ref.h>
#include <kiln/device.h>
#include <kiln/autograd.h>
#include <kiln/data.h>
#include <kiln/dtype.h>
#include <kiln/error.h>
#include <kiln/frontend/compile.h>
#include <kiln/frontend/creation.h>
#include <kiln/frontend/functions.h>
#include <kiln/frontend/indexing.h>
#include <kiln/frontend/options.h>
#include <kiln/frontend/runtime.h>
#include <kiln/frontend/tensor.h>
#include <kiln/nn.h>
#include <kiln/optim.h>
#include <kiln/ordered_dict.h>
#include <kiln/profiler/stats.h>
#include <kiln/scalar.h>
#include <kiln/serialize.h>
#include <kiln/settings.h>
#include <kiln/version.h>

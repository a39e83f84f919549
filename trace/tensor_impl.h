// TensorImpl: what a kiln::Tensor handle points at. A dtype and a geometry
// over a shared storage; views are TensorImpls sharing the storage.
#pragma once

#include <memory>

#include <kiln/dtype.h>

#include "trace/geometry.h"
#include "trace/storage.h"

namespace kiln::trace {

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Geometry geo;
  ScalarType dtype = ScalarType::Float32;
};

using TensorRef = std::shared_ptr<TensorImpl>;

}  // namespace kiln::trace

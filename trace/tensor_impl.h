// TensorImpl: what a kiln::Tensor handle points at. A dtype and a geometry
// over a shared storage; views are TensorImpls sharing the storage.
#pragma once

#include <memory>

#include <kiln/dtype.h>

#include "trace/geometry.h"
#include "trace/storage.h"

namespace kiln::trace {

/// State a higher layer attaches to a tensor (the frontend's autograd
/// metadata). trace/ only carries it: views and results start without one.
struct TensorExtension {
  virtual ~TensorExtension() = default;
};

// Owned through std::shared_ptr (TensorRef); autograd keeps the operands it
// saves by handle, so it can take a reference from the bare object.
struct TensorImpl : std::enable_shared_from_this<TensorImpl> {
  std::shared_ptr<Storage> storage;
  Geometry geo;
  ScalarType dtype = ScalarType::Float32;
  std::shared_ptr<TensorExtension> autograd;
};

using TensorRef = std::shared_ptr<TensorImpl>;

}  // namespace kiln::trace

// Collations: batch transforms that turn a vector of examples into one
// value (LibTorch's Collation and Collate). Stack is the usual one.
#pragma once

#include <vector>

#include <kiln/data/transforms/base.h>
#include <kiln/data/transforms/lambda.h>

namespace kiln::data::transforms {

/// A class that collates a BatchType (a vector of T) into one T.
template <class T, class BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;

/// A collation from a function.
template <class T, class BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

}  // namespace kiln::data::transforms

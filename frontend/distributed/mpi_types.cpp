#include "frontend/distributed/mpi_types.h"

#include <kiln/error.h>

namespace kiln::distributed {

MPI_Datatype mpi_type(ScalarType dtype) {
  static_assert(sizeof(bool) == 1, "kiln's bool elements are one byte, as MPI_C_BOOL");
  switch (dtype) {
    case ScalarType::Bool: return MPI_C_BOOL;
    case ScalarType::Int32: return MPI_INT32_T;
    case ScalarType::Int64: return MPI_INT64_T;
    case ScalarType::Float32: return MPI_FLOAT;
    case ScalarType::Float64: return MPI_DOUBLE;
  }
  KILN_CHECK(false, "a dtype with no MPI type");
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(ReduceOp::RedOpType op, ScalarType dtype, const char* collective) {
  const bool floating = dtype == ScalarType::Float32 || dtype == ScalarType::Float64;
  if (op == ReduceOp::AVG && !floating)
    throw DistributedError(detail::cat("[", collective, "] ReduceOp::AVG needs a floating dtype, got ", dtype));
  if (dtype == ScalarType::Bool) return (op == ReduceOp::SUM || op == ReduceOp::MAX) ? MPI_LOR : MPI_LAND;
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return MPI_SUM;
    case ReduceOp::PRODUCT: return MPI_PROD;
    case ReduceOp::MIN: return MPI_MIN;
    case ReduceOp::MAX: return MPI_MAX;
  }
  KILN_CHECK(false, "a reduce op with no MPI op");
  return MPI_OP_NULL;
}

namespace {
template <class T>
void divide(void* data, std::int64_t count, int ranks) {
  T* p = static_cast<T*>(data);
  for (std::int64_t i = 0; i < count; ++i) p[i] /= static_cast<T>(ranks);
}
}  // namespace

void divide_in_place(void* data, std::int64_t count, ScalarType dtype, int ranks) {
  if (dtype == ScalarType::Float32) divide<float>(data, count, ranks);
  else if (dtype == ScalarType::Float64) divide<double>(data, count, ranks);
}

}  // namespace kiln::distributed

// kiln's dtypes and reduce ops as MPI's. Bool travels as MPI_C_BOOL and
// reduces logically (SUM and MAX: or; MIN and PRODUCT: and); AVG is SUM on
// the wire, divided afterwards, and only for floating dtypes.
#pragma once

#include <cstdint>

#include <mpi.h>

#include <kiln/distributed.h>
#include <kiln/dtype.h>

namespace kiln::distributed {

MPI_Datatype mpi_type(ScalarType dtype);
/// The MPI op carrying `op` on `dtype`; DistributedError naming `collective`
/// when the pair has no meaning (AVG of integers or bools).
MPI_Op mpi_op(ReduceOp::RedOpType op, ScalarType dtype, const char* collective);
/// Completes AVG: divides `count` elements at `data` by `ranks`.
void divide_in_place(void* data, std::int64_t count, ScalarType dtype, int ranks);

}  // namespace kiln::distributed

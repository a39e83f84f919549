// The reference kernels (tier 0): one function per op of trace/ops.def.
//
// The engine resolves a node's operands to memory (TensorArg) before calling
// its kernel, so kernels see plain pointers and strides and never a storage,
// a segment or an aliasing hazard. Promises the engine keeps:
//   - every tensor input has the dtype the kernel reads (node.dtype for
//     elementwise ops; bool for where's condition; any dtype for copy and
//     reductions and argsort; int64 for indices; src's = out's for index
//     ops; node.dtype for cumsum and cumprod);
//   - the output has the dtype the kernel writes (bool for comparisons and
//     logical ops, node.dtype for the other elementwise ops and matmul; any
//     dtype for creation, copy, reductions, index and scan ops);
//   - no input overlaps the output, except an elementwise input viewing
//     exactly the output's elements;
//   - scalar inputs of non-creation ops arrive as stride-0 tensors; creation
//     ops read their parameters from node->in[k].scalar.
#pragma once

#include <cstdint>

#include <kiln/dtype.h>

#include "jit/kernels/content_tag.h"
#include "trace/node.h"
#include "trace/op.h"

namespace kiln::jit::kernels {

/// One operand in memory: `data` points at the element with index 0 (the
/// geometry's offset is folded in, so geo.offset is 0); strides in elements.
struct TensorArg {
  char* data = nullptr;
  ScalarType dtype = ScalarType::Float32;
  trace::Geometry geo;

  std::int64_t numel() const { return geo.numel(); }
};

struct KernelCall {
  const trace::Node* node = nullptr;
  TensorArg out;
  TensorArg in[trace::kMaxArity];
  /// What the engine knows of a matmul's right operand's bytes, the one a
  /// GEMM may keep packed (jit/bound_node.h); unknown for other ops.
  ContentTag matmul_b;
};

using KernelFn = void (*)(const KernelCall&);

/// The kernel of every op, named as its OpId (kernels::Add, kernels::Sum...).
/// A missing definition fails the link of the kernel table.
#define KILN_OP(id, name, kind, arity, rule) void id(const KernelCall& call);
#include "trace/ops.def"
#undef KILN_OP

/// The reference kernel of `op`.
KernelFn kernel_for(trace::OpId op);

}  // namespace kiln::jit::kernels

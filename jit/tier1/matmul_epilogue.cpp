#include "jit/tier1/matmul_epilogue.h"

#include <atomic>

#include "jit/bound_node.h"
#include "jit/fusion/epilogue.h"
#include "jit/kernels/matmul.h"
#include "jit/workspace.h"

namespace kiln::jit {
namespace {

std::atomic<std::uint64_t> runs{0};

// The compiled kernel over a block: its iteration space is the row-major
// [..., M, N] product (or a row-major reshape of it: the same linear
// order), so each row of the block is one linear range.
struct BlockEpilogue {
  CompiledFn fn;
  void* const* ptrs;
  const std::int64_t* scalars;
  std::int64_t m, n;

  static void apply(const void* self, std::int64_t batch, std::int64_t row, std::int64_t rows, std::int64_t col,
                    std::int64_t cols) {
    const auto* e = static_cast<const BlockEpilogue*>(self);
    std::int64_t begin = (batch * e->m + row) * e->n + col;
    for (std::int64_t r = 0; r < rows; ++r, begin += e->n) e->fn(begin, begin + cols, e->ptrs, e->scalars);
  }
};

const trace::Storage* storage_of(const trace::Segment& segment, const trace::Operand& op) {
  return segment.values[op.value].storage.get();
}

// May the raw product live in the memory of the output `ref` until the
// kernel overwrites it? Not if anything else the kernel reads is there.
bool can_hold_product(const trace::Segment& segment, const FusedGroup& group, OperandRef ref) {
  const trace::Storage* target = storage_of(segment, operand(segment, ref));
  for (std::size_t k = 0; k < group.inputs.size(); ++k)
    if (static_cast<std::int32_t>(k) != group.matmul->product_input &&
        storage_of(segment, operand(segment, group.inputs[k])) == target)
      return false;
  return true;
}

}  // namespace

bool run_matmul_epilogue(trace::Segment& segment, const FusedGroup& group, CompiledFn fn, void** ptrs,
                         const std::int64_t* scalars) {
  const MatmulHead& head = *group.matmul;
  const trace::Node& mm = segment.nodes[head.node];
  const trace::Storage *a_storage = storage_of(segment, mm.in[0]), *b_storage = storage_of(segment, mm.in[1]);
  for (OperandRef ref : group.outputs) {
    const trace::Storage* s = storage_of(segment, operand(segment, ref));
    if (s == a_storage || s == b_storage) return false;
  }
  const kernels::TensorArg a = resolve(segment, mm.in[0]), b = resolve(segment, mm.in[1]);
  kernels::TensorArg c{nullptr, mm.out.dtype, mm.out.geo};
  c.geo.offset = 0;
  Workspace scratch;
  if (head.store_product) {
    c = resolve(segment, mm.out);
  } else if (head.product_output >= 0 && can_hold_product(segment, group, group.outputs[head.product_output])) {
    c.data = static_cast<char*>(ptrs[group.inputs.size() + head.product_output]);
  } else {
    scratch = Workspace(static_cast<std::size_t>(c.geo.extent()) * element_size(c.dtype));
    c.data = scratch.as<char>();
  }
  ptrs[head.product_input] = c.data;
  const int nd = c.geo.ndim;
  const BlockEpilogue epilogue{fn, ptrs, scalars, c.geo.sizes[nd - 2], c.geo.sizes[nd - 1]};
  const kernels::MatmulEpilogue per_block{&BlockEpilogue::apply, &epilogue};
  kernels::matmul_float(a, b, c, &per_block, content_of(segment, mm.in[1]));
  runs.fetch_add(1, std::memory_order_relaxed);
  return true;
}

std::uint64_t matmul_epilogue_runs() { return runs.load(std::memory_order_relaxed); }

}  // namespace kiln::jit

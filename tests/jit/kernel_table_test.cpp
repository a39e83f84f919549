// Every op of trace/ops.def has a reference kernel, and each runs.
#include "jit/kernels/kernel.h"
#include "tests/jit/op_checks.h"
#include "trace/window.h"

namespace kiln::jit::testing {
namespace {

using trace::OpKind;

// A small valid node of `op` computing in float32, on a 2×2 input.
void add_minimal_node(SegmentBuilder& b, OpId op) {
  const trace::OpInfo& info = trace::info(op);
  const bool bool_out = info.rule == trace::DtypeRule::Compare || info.rule == trace::DtypeRule::Logical;
  const ScalarType out_t = bool_out ? kBool : info.rule == trace::DtypeRule::Index ? kInt64 : kFloat32;
  const auto x = b.input(std::vector<float>{0.5f, 1, 2, 3});
  std::vector<trace::Operand> in;
  Geometry out_geo = contiguous({2, 2});
  switch (info.kind) {
    case OpKind::Creation:
      for (int k = 0; k < info.arity; ++k) in.push_back(SegmentBuilder::scalar(Scalar(k + 1), kInt64));
      break;
    case OpKind::Unary:
    case OpKind::Binary:
      for (int k = 0; k < info.arity; ++k) in.push_back(b.view(x, kFloat32, contiguous({2, 2})));
      break;
    case OpKind::Ternary:
      in = {b.view(b.input(std::vector<bool>{true, false, false, true}), kBool, contiguous({2, 2})),
            b.view(x, kFloat32, contiguous({2, 2})), SegmentBuilder::scalar(Scalar(-1.0), kFloat32)};
      break;
    case OpKind::Reduction:
      in = {b.view(x, kFloat32, contiguous({2, 2}))};
      out_geo = contiguous({2});
      break;
    case OpKind::MatMul:
      in = {b.view(x, kFloat32, contiguous({2, 2})), b.view(x, kFloat32, contiguous({2, 2}))};
      break;
    case OpKind::Index:
      in = {b.view(x, kFloat32, contiguous({2, 2})),
            b.view(b.input(std::vector<std::int64_t>{1, 0}), kInt64, contiguous({2}))};
      if (op == OpId::Gather || op == OpId::ScatterAdd) in[1].geo = strided({2, 2}, {1, 0});
      if (op == OpId::ScatterAdd) in.push_back(b.view(x, kFloat32, contiguous({2, 2})));
      break;
    case OpKind::Scan:
      in = {b.view(x, kFloat32, strided({2, 2}, {1, 2}))};
      break;
    case OpKind::Window:  // 1x1 windows of a [1, 1, 2, 2] image: columns [1, 1, 4]
      in = {b.view(x, kFloat32, contiguous(op == OpId::Im2col ? std::vector<std::int64_t>{1, 1, 2, 2}
                                                             : std::vector<std::int64_t>{1, 1, 4}))};
      out_geo = contiguous(op == OpId::Im2col ? std::vector<std::int64_t>{1, 1, 4}
                                              : std::vector<std::int64_t>{1, 1, 2, 2});
      break;
  }
  const auto y = b.value(static_cast<std::size_t>(out_geo.numel()) * element_size(out_t));
  trace::Node& node = b.node(op, kFloat32, b.view(y, out_t, out_geo), in, 1);
  if (info.kind == OpKind::Window) node.attrs = trace::Window2d{}.attrs();
}

TEST(KernelTable, EveryOpHasAKernelThatRuns) {
  for (int i = 0; i < trace::kNumOps; ++i) {
    const OpId op = static_cast<OpId>(i);
    ASSERT_NE(kernels::kernel_for(op), nullptr) << trace::name(op);
    SegmentBuilder b;
    add_minimal_node(b, op);
    EXPECT_NO_THROW(b.run()) << trace::name(op);
    EXPECT_TRUE(b.storage(b.segment.nodes.back().out.value).is_allocated()) << trace::name(op);
  }
}

}  // namespace
}  // namespace kiln::jit::testing

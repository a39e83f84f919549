// OpId and the per-op facts of the op table (trace/ops.def).
#pragma once

#include <array>
#include <cstdint>

namespace kiln::trace {

enum class OpKind : std::uint8_t { Creation, Unary, Binary, Ternary, Reduction, MatMul, Index, Scan, Window };

/// How an op's result dtype follows from its operands (LibTorch's rules).
enum class DtypeRule : std::uint8_t {
  Given,          // the caller states the output dtype (creation, copy/cast)
  Promote,        // promoted operand type
  PromoteNoBool,  // promoted; bool operands are an error
  Float,          // promoted; integral and bool results become float32
  Compare,        // computed in the promoted type, result bool
  Logical,        // operands read as bool (nonzero), result bool
  Where,          // condition bool; values promoted
  Accumulate,     // reductions that widen: integral and bool become int64
  Same,           // dtype of the first tensor operand
  Index,          // int64 positions (argmax/argmin)
};

enum class OpId : std::uint8_t {
#define KILN_OP(id, name, kind, arity, rule) id,
#include "trace/ops.def"
#undef KILN_OP
};

inline constexpr int kNumOps = 0
#define KILN_OP(id, name, kind, arity, rule) +1
#include "trace/ops.def"
#undef KILN_OP
    ;

struct OpInfo {
  const char* name;
  OpKind kind;
  int arity;
  DtypeRule rule;
};

inline constexpr std::array<OpInfo, kNumOps> kOpInfo = {{
#define KILN_OP(id, name, kind, arity, rule) {name, OpKind::kind, arity, DtypeRule::rule},
#include "trace/ops.def"
#undef KILN_OP
}};

constexpr const OpInfo& info(OpId op) { return kOpInfo[static_cast<int>(op)]; }
constexpr const char* name(OpId op) { return info(op).name; }
constexpr bool is_elementwise(OpId op) {
  OpKind k = info(op).kind;
  return k == OpKind::Creation || k == OpKind::Unary || k == OpKind::Binary || k == OpKind::Ternary;
}

}  // namespace kiln::trace

// Comparisons and logical ops (bool results) and where.
#include "jit/kernels/map_kernel.h"

namespace kiln::jit::kernels {
namespace fn {

struct Eq { template <class T> static bool apply(T a, T b) { return a == b; } };
struct Ne { template <class T> static bool apply(T a, T b) { return a != b; } };
struct Lt { template <class T> static bool apply(T a, T b) { return a < b; } };
struct Le { template <class T> static bool apply(T a, T b) { return a <= b; } };
struct Gt { template <class T> static bool apply(T a, T b) { return a > b; } };
struct Ge { template <class T> static bool apply(T a, T b) { return a >= b; } };
// Bitwise on the two truth values: no short circuit, so the loop vectorizes.
struct LogicalAnd { template <class T> static bool apply(T a, T b) { return (a != T(0)) & (b != T(0)); } };
struct LogicalOr { template <class T> static bool apply(T a, T b) { return (a != T(0)) | (b != T(0)); } };
struct Where { template <class T> static T apply(bool c, T a, T b) { return c ? a : b; } };

}  // namespace fn

void Eq(const KernelCall& c) { map_kernel<fn::Eq, kAllTypes, 2>(c); }
void Ne(const KernelCall& c) { map_kernel<fn::Ne, kAllTypes, 2>(c); }
void Lt(const KernelCall& c) { map_kernel<fn::Lt, kAllTypes, 2>(c); }
void Le(const KernelCall& c) { map_kernel<fn::Le, kAllTypes, 2>(c); }
void Gt(const KernelCall& c) { map_kernel<fn::Gt, kAllTypes, 2>(c); }
void Ge(const KernelCall& c) { map_kernel<fn::Ge, kAllTypes, 2>(c); }
void LogicalAnd(const KernelCall& c) { map_kernel<fn::LogicalAnd, kAllTypes, 2>(c); }
void LogicalOr(const KernelCall& c) { map_kernel<fn::LogicalOr, kAllTypes, 2>(c); }

// The condition is bool; the values have the node's dtype.
void Where(const KernelCall& c) {
  visit_dtype<kAllTypes>(c.node->dtype, "where", [&]<class T>() {
    run_elementwise(c.out, std::span(c.in, 3), &map_loop<fn::Where, T, bool, T, T>);
  });
}

}  // namespace kiln::jit::kernels

#include "jit/tier1/partials.h"

#include <cstring>
#include <type_traits>

#include "jit/kernels/dtype_dispatch.h"
#include "jit/kernels/reduce_loop.h"
#include "jit/kernels/wrapping.h"

namespace kiln::jit {
namespace {

using trace::OpId;

template <class T>
T value_of(const PartialSlot& slot) {
  T v;
  std::memcpy(&v, slot.value, sizeof(T));
  return v;
}

// NaN is the extreme: once the running value is NaN it stays (as tier 0).
template <class T>
bool more_extreme(T candidate, T current, bool max) {
  if (candidate != candidate) return current == current;
  return max ? candidate > current : candidate < current;
}

template <class T>
void fold(const KernelInstr& r, const PartialSlot* slots, std::int64_t stride, std::int64_t count, char* out,
          ScalarType out_dtype) {
  const bool max = r.op == OpId::Amax || r.op == OpId::Argmax;
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::int64_t>) {  // the accumulators of sum and prod
    if (r.op == OpId::Sum || r.op == OpId::Prod) {
      const bool product = r.op == OpId::Prod;
      T acc = value_of<T>(slots[0]);
      for (std::int64_t c = 1; c < count; ++c) {
        const T v = value_of<T>(slots[c * stride]);
        if constexpr (std::is_floating_point_v<T>) acc = product ? acc * v : acc + v;
        else acc = product ? wrapping_mul(acc, v) : wrapping_add(acc, v);
      }
      return kernels::store_result(out_dtype, out, acc);
    }
  }
  if (r.op == OpId::Amax || r.op == OpId::Amin) {
    T acc = value_of<T>(slots[0]);
    for (std::int64_t c = 1; c < count; ++c)
      if (const T v = value_of<T>(slots[c * stride]); more_extreme(v, acc, max)) acc = v;
    return kernels::store_result(out_dtype, out, acc);
  }
  // Arg reductions: the earliest range's extreme wins ties.
  T best{};
  std::int64_t position = -1;
  for (std::int64_t c = 0; c < count; ++c) {
    const PartialSlot& s = slots[c * stride];
    const T v = value_of<T>(s);
    if (s.position >= 0 && (position < 0 || more_extreme(v, best, max))) {
      best = v;
      position = s.position;
    }
  }
  kernels::store_as(out_dtype, out, position < 0 ? std::int64_t{0} : position);
}

}  // namespace

void combine_partials(const KernelInstr& reduction, const PartialSlot* slots, std::int64_t stride,
                      std::int64_t count, void* out, ScalarType out_dtype) {
  visit_dtype<kAllTypes>(accumulator_dtype(reduction), trace::name(reduction.op), [&]<class T>() {
    fold<T>(reduction, slots, stride, count, static_cast<char*>(out), out_dtype);
  });
}

}  // namespace kiln::jit

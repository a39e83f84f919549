// LibTorch's result_type: operands rank as tensors with dims, then zero-dim
// tensors, then plain numbers; a lower rank only counts when its category
// (bool < integral < floating) is higher.
#include "trace/record.h"

namespace kiln::trace {
namespace {

enum class Category { None, Bool, Integral, Floating };

Category category(ScalarType t) {
  if (t == ScalarType::Bool) return Category::Bool;
  return is_floating_point(t) ? Category::Floating : Category::Integral;
}

struct Slot {
  bool set = false;
  ScalarType type = ScalarType::Bool;
  void add(ScalarType t) {
    type = set ? promote_types(type, t) : t;
    set = true;
  }
};

// LibTorch's combine_categories: `lower` only matters if its category is higher.
Slot combine(Slot higher, Slot lower) {
  if (!higher.set) return lower;
  if (!lower.set) return higher;
  if (category(higher.type) == Category::Floating) return higher;
  if (higher.type == ScalarType::Bool || category(lower.type) == Category::Floating) {
    higher.type = promote_types(higher.type, lower.type);
  }
  return higher;
}

}  // namespace

ScalarType result_type(std::initializer_list<Input> inputs) {
  Slot dimmed, zero_dim, number;
  for (const Input& in : inputs) {
    if (in.tensor) {
      (in.tensor->geo.ndim > 0 ? dimmed : zero_dim).add(in.tensor->dtype);
    } else {
      // A plain number counts as the default dtype of its category.
      ScalarType t = in.scalar.is_floating_point() ? kDefaultFloat
                     : in.scalar.is_bool()         ? ScalarType::Bool
                                                   : ScalarType::Int64;
      number.add(t);
    }
  }
  Slot result = combine(dimmed, combine(zero_dim, number));
  return result.set ? result.type : kDefaultFloat;
}

}  // namespace kiln::trace

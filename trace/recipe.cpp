#include "trace/recipe.h"

#include <algorithm>

#include "trace/op.h"
#include "trace/storage.h"

namespace kiln::trace {
namespace {

// Installs `recipe` (or none, with `why`) on `out`, and tells its inputs
// that `out` reads them; the recipe it replaces is destroyed after the lock
// is released.
void install(const std::shared_ptr<Storage>& out, RecipePtr recipe, const char* why) {
  RecipePtr old;
  {
    std::lock_guard lock(memory::residency_mutex());
    if (recipe)
      for (const Recipe::Input& in : recipe->inputs) in.storage->add_dependent(out);
    old = out->swap_recipe(std::move(recipe), why);
  }
}

// Memory the user can write behind kiln's back: a recipe reading it could
// not tell that it changed.
bool user_writable(const Storage& s) { return s.is_borrowed() || s.is_pinned_forever(); }

}  // namespace

void RecipeDeleter::operator()(Recipe* recipe) const noexcept { delete recipe; }

HeldRef::HeldRef(std::shared_ptr<Storage> storage) : s_(std::move(storage)) {
  if (s_) s_->count_recipe_holder(+1);
}

void HeldRef::reset() noexcept {
  if (!s_) return;
  s_->count_recipe_holder(-1);
  s_.reset();
}

RecipeRules::RecipeRules(const Segment& segment)
    : first_(segment.values.size() + 1, 0), keep_(segment.values.size(), false), cost_(segment.values.size(), 0) {
  const std::size_t n = segment.values.size();
  for (const Node& node : segment.nodes) ++first_[node.out.value + 1];
  for (std::size_t v = 0; v < n; ++v) first_[v + 1] += first_[v];
  writer_nodes_.resize(segment.nodes.size());
  std::vector<std::uint32_t> filled(first_.begin(), first_.end() - 1);
  for (std::uint32_t i = 0; i < segment.nodes.size(); ++i) writer_nodes_[filled[segment.nodes[i].out.value]++] = i;
  for (std::uint32_t v = 0; v < n; ++v) {
    const std::span<const std::uint32_t> nodes = writers(v);
    const Value& value = segment.values[v];
    if (nodes.empty() || !value.produced || value.storage->is_borrowed() || value.storage->is_kept_resident()) continue;
    const Node& first = segment.nodes[nodes.front()];
    bool keep = writes_whole(first.out, *value.storage);
    for (int k = 0; keep && k < first.arity; ++k) keep = first.in[k].is_scalar() || first.in[k].value != v;
    keep_[v] = keep;
  }
}

void after_write(const Segment& segment, RecipeRules& rules, std::uint32_t index, std::uint32_t ran_until,
                 std::int64_t cost_ns) {
  const Node& last = segment.nodes[index];
  const std::uint32_t value = last.out.value;
  const std::shared_ptr<Storage>& out_ptr = segment.values[value].storage;
  Storage& out = *out_ptr;
  const std::int64_t cost = rules.add_cost(value, cost_ns);
  const std::span<const std::uint32_t> writers = rules.writers(value);
  if (!rules.may_keep(value)) {
    if (out.has_recipe() || out.is_tracked()) install(out_ptr, nullptr, "written in place, or only in part");
    return;
  }
  if (writers.back() != index) return;  // made whole once its last writer ran
  RecipePtr recipe(new Recipe);
  recipe->cost_ns = cost;
  recipe->site = segment.site;
  std::uint32_t depth = 0;
  std::vector<std::uint32_t> slot_of_value;  // segment value -> recipe input, for the values read
  std::vector<std::uint32_t> read_values;
  const char* refused = nullptr;
  auto slot = [&](std::uint32_t v) -> std::uint32_t {
    for (std::size_t j = 0; j < read_values.size(); ++j)
      if (read_values[j] == v) return slot_of_value[j];
    const std::shared_ptr<Storage>& storage = segment.values[v].storage;
    if (user_writable(*storage)) refused = "made from memory the user can write (from_blob, data_ptr)";
    // Fused away by a compiled kernel, with nothing to make it again.
    if (!storage->has_recipe() && !storage->is_allocated()) refused = "made from a value that was never kept";
    Recipe::Input input;
    input.storage = storage.get();
    if (storage->has_recipe()) {
      input.held = HeldRef(storage);
      depth = std::max(depth, storage->recipe_depth());
    } else {
      input.watch = storage;
      input.leaf = true;
    }
    read_values.push_back(v);
    slot_of_value.push_back(static_cast<std::uint32_t>(recipe->inputs.size()));
    recipe->inputs.push_back(std::move(input));
    return slot_of_value.back();
  };
  for (std::uint32_t i : writers) {
    const Node& node = segment.nodes[i];
    for (int k = 0; k < node.arity; ++k) {
      const Operand& in = node.in[k];
      if (in.is_scalar() || in.value == value) continue;
      slot(in.value);
      for (std::uint32_t w : rules.writers(in.value))
        if (w > i && w <= ran_until) refused = "made from a tensor overwritten while it was made";
    }
  }
  if (depth + 1 > kMaxRecipeDepth) refused = "its chain of producers is too deep to keep (over 1024 ops)";
  if (refused) {
    install(out_ptr, nullptr, refused);
    return;
  }
  recipe->depth = depth + 1;
  // The value itself comes after the inputs.
  const std::uint32_t self = static_cast<std::uint32_t>(recipe->inputs.size());
  recipe->nodes.reserve(writers.size());
  for (std::uint32_t i : writers) {
    Node node = segment.nodes[i];
    for (int k = 0; k < node.arity; ++k)
      if (!node.in[k].is_scalar()) node.in[k].value = node.in[k].value == value ? self : slot(node.in[k].value);
    node.out.value = self;
    recipe->nodes.push_back(node);
  }
  install(out_ptr, std::move(recipe), nullptr);
}

void forget_overwritten(const Segment& segment, const Node& node) {
  const std::shared_ptr<Storage>& out = segment.values[node.out.value].storage;
  if (out->has_recipe()) install(out, nullptr, "written in place");
}

}  // namespace kiln::trace

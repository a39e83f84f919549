#include "jit/tier1/shape_family.h"

#include <algorithm>

#include <xxhash.h>

#include "jit/tier1/keyed_table.h"

namespace kiln::jit {
std::uint64_t family_key(const trace::Segment& segment) {
  std::vector<std::int64_t> words;
  words.reserve(segment.nodes.size() * 8 + segment.values.size());
  auto put = [&](const trace::Operand& o) {
    if (o.is_scalar()) {
      words.push_back(-1 - static_cast<std::int64_t>(o.scalar.type()));
      return;
    }
    std::int64_t broadcast = 0;  // which dims have stride 0
    for (int d = 0; d < o.geo.ndim; ++d) broadcast |= std::int64_t{o.geo.strides[d] == 0} << d;
    words.push_back((std::int64_t{o.value} << 24) | (std::int64_t{o.geo.ndim} << 16) | (broadcast << 4) |
                    static_cast<std::int64_t>(o.dtype));
  };
  for (const trace::Node& n : segment.nodes) {
    words.push_back((static_cast<std::int64_t>(n.op) << 16) | (static_cast<std::int64_t>(n.dtype) << 8) | n.arity);
    words.push_back(n.attrs.i[0]);
    words.push_back(n.attrs.i[1]);
    for (int k = 0; k < n.arity; ++k) put(n.in[k]);
    put(n.out);
  }
  for (const trace::Value& v : segment.values) words.push_back(v.produced | v.live << 1);
  return XXH3_64bits(words.data(), words.size() * sizeof(std::int64_t));
}

bool ShapeFamily::note(std::uint64_t key) {
  std::lock_guard lock(mu_);
  if (keys_.size() < 2 && std::find(keys_.begin(), keys_.end(), key) == keys_.end()) keys_.push_back(key);
  return keys_.size() >= 2;
}

std::shared_ptr<ShapeFamily> family_of(const trace::Segment& segment) {
  return KeyedTable<ShapeFamily>::get(family_key(segment));
}

}  // namespace kiln::jit

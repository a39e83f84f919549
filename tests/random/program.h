// The random-program suite's model of kiln's tensors: each reference tensor
// is a view (element positions) into a shared reference storage, so views,
// in-place writes through views and aliasing operands are modelled exactly
// as LibTorch defines them (an in-place op reads all its inputs first).
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/common/reference.h"

namespace rprog {

using kref::Ref;
using kref::Shape;

struct Storage {
  std::vector<double> data;
};

/// A reference tensor: `pos[i]` is where element i (row-major) lives in `store`.
struct View {
  std::shared_ptr<Storage> store;
  Shape shape;
  std::vector<std::int64_t> pos;

  static View fresh(const Ref& r) {
    View v;
    v.store = std::make_shared<Storage>(Storage{r.v});
    v.shape = r.shape;
    v.pos.resize(r.v.size());
    for (std::size_t i = 0; i < v.pos.size(); ++i) v.pos[i] = static_cast<std::int64_t>(i);
    return v;
  }
  Ref read() const {
    std::vector<double> out(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i) out[i] = store->data[pos[i]];
    return Ref(shape, out);
  }
  /// Writes `r` (already of this view's shape) through the view.
  void write(const Ref& r) const {
    for (std::size_t i = 0; i < pos.size(); ++i) store->data[pos[i]] = r.v[i];
  }
  /// A view of this view: element `idx` of `new_shape` is element `to_old(idx)` of this one.
  View derive(const Shape& new_shape, const std::function<Shape(const Shape&)>& to_old) const {
    View v;
    v.store = store;
    v.shape = new_shape;
    v.pos.resize(kref::numel(new_shape));
    for (std::size_t i = 0; i < v.pos.size(); ++i)
      v.pos[i] = pos[kref::ravel(to_old(kref::unravel(static_cast<std::int64_t>(i), new_shape)), shape)];
    return v;
  }
  /// Same elements in the same row-major order under another shape (a reshape view).
  View reshaped(const Shape& s) const {
    View v = *this;
    v.shape = s;
    return v;
  }
  bool overlaps_itself() const {
    std::vector<std::int64_t> p = pos;
    std::sort(p.begin(), p.end());
    return std::adjacent_find(p.begin(), p.end()) != p.end();
  }
};

struct Entry {
  kiln::Tensor t;
  View ref;
  std::string name;
};

inline double max_abs(const Ref& r) {
  double m = 0;
  for (double x : r.v) m = std::max(m, std::abs(x));
  return m;
}

inline std::string shape_str(const Shape& s) { return kref::str(s); }

}  // namespace rprog

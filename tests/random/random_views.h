// Views and in-place ops in random programs. Views derive their reference
// element positions from their base, so a later write through any alias
// is seen by all of them; in-place ops read every input before writing.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "tests/random/generator.h"

namespace rprog {

inline std::int64_t norm_index(std::int64_t i, std::int64_t n) {
  if (i < 0) i += n;
  return std::clamp<std::int64_t>(i, 0, n);
}

/// A random shape with `numel` elements (numel > 0), up to 3 dims.
inline Shape factor_shape(Program& p, std::int64_t numel) {
  Shape out;
  std::int64_t rest = numel;
  int dims = p.rint(1, 3);
  for (int i = 1; i < dims; ++i) {
    std::vector<std::int64_t> divisors;
    for (std::int64_t d = 1; d <= rest; ++d)
      if (rest % d == 0) divisors.push_back(d);
    std::int64_t d = p.choose(divisors);
    out.push_back(d);
    rest /= d;
  }
  out.push_back(rest);
  return out;
}

inline void op_view(Program& p) {
  Entry e = p.pick();
  const Shape& s = e.ref.shape;
  const int nd = static_cast<int>(s.size());
  const View& v = e.ref;
  const std::string& n = e.name;
  switch (p.rint(0, 10)) {
    case 0: {
      if (nd < 1) return;
      int a = p.rint(0, nd - 1), b = p.rint(0, nd - 1);
      Shape ns = s;
      std::swap(ns[a], ns[b]);
      return p.add_view(e.t.transpose(a - (p.chance(0.5) ? nd : 0), b), v.derive(ns, [=](Shape i) {
        std::swap(i[a], i[b]);
        return i;
      }), n + ".transpose(" + std::to_string(a) + ", " + std::to_string(b) + ")");
    }
    case 1: {
      if (nd < 2) return;
      std::vector<std::int64_t> perm(nd);
      std::iota(perm.begin(), perm.end(), 0);
      for (int i = nd - 1; i > 0; --i) std::swap(perm[i], perm[p.rint(0, i)]);
      Shape ns(nd);
      for (int k = 0; k < nd; ++k) ns[k] = s[perm[k]];
      return p.add_view(e.t.permute(perm), v.derive(ns, [=](const Shape& i) {
        Shape o(nd);
        for (int k = 0; k < nd; ++k) o[perm[k]] = i[k];
        return o;
      }), n + ".permute(" + kref::str(perm) + ")");
    }
    case 2:
    case 3: {  // slice with a step, python-style bounds
      if (nd < 1) return;
      int d = p.rint(0, nd - 1);
      std::int64_t len = s[d], start = p.rint(-static_cast<int>(len), static_cast<int>(len)),
                   end = p.rint(0, static_cast<int>(len) + 1), step = p.rint(1, 3);
      std::int64_t s0 = norm_index(start, len), e0 = std::max(norm_index(end, len), s0);
      Shape ns = s;
      ns[d] = (e0 - s0 + step - 1) / step;
      return p.add_view(e.t.slice(d, start, end, step), v.derive(ns, [=](Shape i) {
        i[d] = s0 + i[d] * step;
        return i;
      }), n + ".slice(" + std::to_string(d) + ", " + std::to_string(start) + ", " + std::to_string(end) + ", " +
              std::to_string(step) + ")");
    }
    case 4: {  // select, or narrow
      std::vector<int> nonempty;
      for (int d = 0; d < nd; ++d)
        if (s[d] > 0) nonempty.push_back(d);
      if (nonempty.empty()) return;
      const int d = p.choose(nonempty);
      std::int64_t i = p.rint(0, static_cast<int>(s[d]) - 1);
      if (p.chance(0.5)) {
        std::int64_t len = p.rint(0, static_cast<int>(s[d] - i));
        Shape ns = s;
        ns[d] = len;
        return p.add_view(e.t.narrow(d, i, len), v.derive(ns, [=](Shape x) {
          x[d] += i;
          return x;
        }), n + ".narrow(" + std::to_string(d) + ", " + std::to_string(i) + ", " + std::to_string(len) + ")");
      }
      Shape ns = s;
      ns.erase(ns.begin() + d);
      std::int64_t written = p.chance(0.5) ? i : i - s[d];
      return p.add_view(e.t.select(d, written), v.derive(ns, [=](Shape x) {
        x.insert(x.begin() + d, i);
        return x;
      }), n + ".select(" + std::to_string(d) + ", " + std::to_string(written) + ")");
    }
    case 5: {  // unsqueeze / squeeze
      if (nd < 4 && p.chance(0.5)) {
        int d = p.rint(0, nd);
        Shape ns = s;
        ns.insert(ns.begin() + d, 1);
        return p.add_view(e.t.unsqueeze(d), v.derive(ns, [=](Shape x) {
          x.erase(x.begin() + d);
          return x;
        }), n + ".unsqueeze(" + std::to_string(d) + ")");
      }
      Shape ns;
      for (auto x : s)
        if (x != 1) ns.push_back(x);
      return p.add_view(e.t.squeeze(), v.derive(ns, [=](const Shape& x) {
        Shape o;
        std::size_t k = 0;
        for (auto d : s) o.push_back(d == 1 ? 0 : x[k++]);
        return o;
      }), n + ".squeeze()");
    }
    case 6: {  // expand size-1 dims and maybe a new leading dim
      Shape ns = s;
      for (auto& d : ns)
        if (d == 1) d = p.rint(1, 3);
      std::size_t lead = (nd < 4 && p.chance(0.4)) ? 1 : 0;
      if (lead) ns.insert(ns.begin(), p.rint(1, 3));
      if (kref::numel(ns) > 1000) return;
      return p.add_view(e.t.expand(ns), v.derive(ns, [=](const Shape& x) {
        Shape o;
        for (std::size_t d = 0; d < s.size(); ++d) o.push_back(s[d] == 1 ? 0 : x[d + lead]);
        return o;
      }), n + ".expand(" + kref::str(ns) + ")");
    }
    case 7: {  // reshape: a view exactly when LibTorch's would be (always for contiguous input)
      if (kref::numel(s) == 0) return;
      Shape ns = factor_shape(p, kref::numel(s));
      kiln::Tensor r = p.chance(0.3) && e.t.is_contiguous() ? e.t.view(ns) : e.t.reshape(ns);
      if (e.t.is_contiguous() && !r.is_same_storage(e.t)) p.defect(n + ".reshape(" + kref::str(ns) + ") of a contiguous tensor copied");
      if (r.is_same_storage(e.t)) return p.add_view(r, v.reshaped(ns), n + ".reshape(" + kref::str(ns) + ")");
      return p.add_result(r, v.read().reshape(ns), n + ".reshape(" + kref::str(ns) + ") [copy]");
    }
    case 8: {  // contiguous / clone / flatten
      if (p.chance(0.4)) return p.add_result(e.t.clone(), v.read(), n + ".clone()");
      kiln::Tensor c = p.chance(0.5) ? e.t.contiguous() : e.t.flatten();
      Shape ns = c.dim() == nd ? s : Shape{kref::numel(s)};
      if (e.t.is_contiguous() && !c.is_same_storage(e.t)) p.defect(n + ".contiguous()/flatten() of a contiguous tensor copied");
      if (c.is_same_storage(e.t)) return p.add_view(c, v.reshaped(ns), n + ".contiguous()/flatten() [view]");
      return p.add_result(c, v.read().reshape(ns), n + ".contiguous()/flatten() [copy]");
    }
    case 9: {  // one piece of split / chunk
      if (nd < 1 || s[0] == 0) return;
      std::int64_t size = p.rint(1, static_cast<int>(s[0]));
      std::vector<kiln::Tensor> parts = e.t.split(size);
      std::size_t k = p.rint(0, static_cast<int>(parts.size()) - 1);
      std::int64_t begin = static_cast<std::int64_t>(k) * size, len = std::min(size, s[0] - begin);
      Shape ns = s;
      ns[0] = len;
      return p.add_view(parts[k], v.derive(ns, [=](Shape x) {
        x[0] += begin;
        return x;
      }), n + ".split(" + std::to_string(size) + ")[" + std::to_string(k) + "]");
    }
    default: {  // index_select (a copy)
      if (nd < 1 || s[0] == 0) return;
      std::vector<std::int64_t> idx(p.rint(0, 4));
      for (auto& i : idx) i = p.rint(0, static_cast<int>(s[0]) - 1);
      return p.add_result(e.t.index_select(0, kiln::tensor(idx)), kref::index_select(v.read(), 0, idx),
                          n + ".index_select(0, " + kref::str(idx) + ")");
    }
  }
}

}  // namespace rprog

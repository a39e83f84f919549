// The op families of the random programs: each records kiln ops on pool
// entries and the same computation on the reference (see generator.h for
// the value ranges and tolerances).
#pragma once

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "tests/random/generator.h"

namespace rprog {

inline std::string dims_str(const std::vector<std::int64_t>& d) { return kref::str(d); }

/// Unary ops, including a few composites that keep the domain safe.
inline void op_unary(Program& p) {
  Entry e = p.pick();
  Ref a = e.ref.read();
  const double m = max_abs(a);
  auto F = [&](Ref r) { return p.finish(std::move(r)); };
  auto M = [&](const Ref& r, double (*f)(double)) { return F(kref::map(r, f)); };
  int k = p.floating() ? p.rint(0, 11) : p.rint(0, 4);
  if (!p.floating()) {
    switch (k) {
      case 0: return p.add_result(-e.t, M(a, [](double x) { return -x; }), "-" + e.name);
      case 1: return p.add_result(e.t.abs(), M(a, [](double x) { return std::abs(x); }), e.name + ".abs()");
      case 2: return p.add_result(kiln::relu(e.t), M(a, [](double x) { return std::max(x, 0.0); }), "relu(" + e.name + ")");
      case 3: return p.add_result(e.t.clamp(-3, 3), M(a, [](double x) { return std::clamp(x, -3.0, 3.0); }),
                                  e.name + ".clamp(-3, 3)");
      default:
        if (m > 1000) return;
        return p.add_result(e.t.pow(2), M(a, [](double x) { return x * x; }), e.name + ".pow(2)");
    }
  }
  switch (k) {
    case 0: return p.add_result(e.t.neg(), M(a, [](double x) { return -x; }), e.name + ".neg()");
    case 1:
      if (m > 8) return p.add_result(e.t.tanh(), M(a, [](double x) { return std::tanh(x); }), e.name + ".tanh()");
      return p.add_result(e.t.exp(), M(a, [](double x) { return std::exp(x); }), e.name + ".exp()");
    case 2: return p.add_result(kiln::sin(e.t), M(a, [](double x) { return std::sin(x); }), "sin(" + e.name + ")");
    case 3: return p.add_result(e.t.cos(), M(a, [](double x) { return std::cos(x); }), e.name + ".cos()");
    case 4: return p.add_result(e.t.sigmoid(), M(a, [](double x) { return 1 / (1 + std::exp(-x)); }), e.name + ".sigmoid()");
    case 5: return p.add_result(e.t.relu(), M(a, [](double x) { return std::max(x, 0.0); }), e.name + ".relu()");
    case 6:
      return p.add_result(kiln::gelu(e.t), M(a, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }),
                          "gelu(" + e.name + ")");
    case 7: return p.add_result(kiln::silu(e.t), M(a, [](double x) { return x / (1 + std::exp(-x)); }), "silu(" + e.name + ")");
    case 8: {
      Ref r = M(M(a, [](double x) { return std::abs(x); }), [](double x) { return std::log1p(x); });
      return p.add_result(e.t.abs().log1p(), r, e.name + ".abs().log1p()");
    }
    case 9: {
      Ref r = M(M(M(a, [](double x) { return std::abs(x); }), [](double x) { return x + 1; }),
                [](double x) { return std::sqrt(x); });
      return p.add_result((e.t.abs() + 1).sqrt(), r, "(" + e.name + ".abs() + 1).sqrt()");
    }
    case 10: return p.add_result(e.t.clamp(-1, 0.5), M(a, [](double x) { return std::clamp(x, -1.0, 0.5); }),
                                 e.name + ".clamp(-1, 0.5)");
    default: return p.add_result(e.t * e.t.tanh(), F(kref::zip(a, M(a, [](double x) { return std::tanh(x); }),
                                                          std::multiplies<>())),
                                 e.name + " * " + e.name + ".tanh()");
  }
}

/// Binary ops against a broadcast partner (which may alias), in either order, and numbers.
inline void op_binary(Program& p) {
  Entry e = p.pick();
  Shape ps = p.shrink_to_broadcast(e.ref.shape);
  if (ps.size() == e.ref.shape.size() && ps.size() < 4 && p.chance(0.2))
    ps.insert(ps.begin(), p.rint(1, 3));  // the partner adds a leading dim
  if (kref::numel(ps) > 1000) return;
  Entry q = p.operand_of_shape(ps);
  if (p.chance(0.5)) std::swap(e, q);
  Ref a = e.ref.read(), b = q.ref.read();
  auto F = [&](Ref r) { return p.finish(std::move(r)); };
  const std::string an = e.name, bn = q.name;
  const bool small = max_abs(a) <= 1000 && max_abs(b) <= 1000;
  switch (p.rint(0, p.floating() ? 9 : 7)) {
    case 0: return p.add_result(e.t + q.t, F(kref::zip(a, b, std::plus<>())), an + " + " + bn);
    case 1: return p.add_result(e.t - q.t, F(kref::zip(a, b, std::minus<>())), an + " - " + bn);
    case 2:
      if (!p.floating() && !small) return;
      return p.add_result(e.t * q.t, F(kref::zip(a, b, std::multiplies<>())), an + " * " + bn);
    case 3: return p.add_result(kiln::maximum(e.t, q.t), F(kref::zip(a, b, [](double x, double y) { return std::max(x, y); })),
                                "maximum(" + an + ", " + bn + ")");
    case 4: return p.add_result(e.t.minimum(q.t), F(kref::zip(a, b, [](double x, double y) { return std::min(x, y); })),
                                an + ".minimum(" + bn + ")");
    case 5: return p.add_result(kiln::where(e.t > q.t, e.t, q.t),
                                F(kref::zip(a, b, [](double x, double y) { return x > y ? x : y; })),
                                "where(" + an + " > " + bn + ", " + an + ", " + bn + ")");
    case 6: {
      int c = p.rint(-3, 3);
      return p.add_result(e.t.add(q.t, c), F(kref::zip(a, b, [c](double x, double y) { return x + c * y; })),
                          an + ".add(" + bn + ", " + std::to_string(c) + ")");
    }
    case 7: {
      int c = p.rint(-3, 3);
      if (p.chance(0.5)) return p.add_result(c - e.t, F(kref::map(a, [c](double x) { return c - x; })), std::to_string(c) + " - " + an);
      return p.add_result(e.t * c, F(kref::map(a, [c](double x) { return x * c; })), an + " * " + std::to_string(c));
    }
    case 8: {
      Ref d = F(kref::map(F(kref::zip(b, b, std::multiplies<>())), [](double x) { return x + 1; }));
      return p.add_result(e.t / (q.t * q.t + 1), F(kref::zip(a, d, std::divides<>())),
                          an + " / (" + bn + " * " + bn + " + 1)");
    }
    default: {
      double c = p.choose(std::vector<double>{0.5, -1.5, 2.0, 0.25});
      return p.add_result(e.t + c, F(kref::map(a, [c](double x) { return x + c; })), an + " + " + std::to_string(c));
    }
  }
}

/// Small matrix products: vector and matrix operands, broadcast batches.
inline void op_matmul(Program& p) {
  Entry e = p.pick();
  const Shape& s = e.ref.shape;
  if (s.empty() || s.size() > 3 || s.back() > 8) return;
  Ref a = e.ref.read();
  const std::int64_t k = s.back();
  Shape bs;
  switch (p.rint(0, 2)) {
    case 0: bs = {k}; break;
    case 1: bs = {k, p.rint(1, 4)}; break;
    default:
      bs = Shape(s.begin(), s.end() - std::min<std::size_t>(s.size(), 2));  // a's batch dims
      for (auto& d : bs)
        if (p.chance(0.3)) d = 1;
      if (bs.empty()) bs.push_back(p.rint(1, 3));
      bs.push_back(k);
      bs.push_back(p.rint(1, 4));
  }
  Entry q = p.operand_of_shape(bs);
  Ref b = q.ref.read();
  if (!p.floating() && (max_abs(a) > 1000 || max_abs(b) > 1000)) return;
  Ref out = kref::matmul(a, b);
  if (out.numel() > 1000) return;
  auto abs_ref = [](const Ref& r) { return kref::map(r, [](double x) { return std::abs(x); }); };
  Ref mags = kref::matmul(abs_ref(a), abs_ref(b));
  p.note_magnitude(max_abs(mags));
  p.add_result(e.t.matmul(q.t), p.finish(out), "matmul(" + e.name + ", " + q.name + ")");
}

}  // namespace rprog

// In-place ops in random programs, through any non-overlapping view, with
// operands that may alias the target (x.add_(x.t()), shifted slices of the
// same storage). The reference reads every input before it writes.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "tests/random/generator.h"

namespace rprog {

inline void op_inplace(Program& p) {
  Entry e = p.pick();
  if (e.ref.overlaps_itself()) return;  // expanded views are not writable
  if (e.t.numel() == 0) {
    // kiln rejects writes into empty expanded views (LibTorch does not): covered by
    // InPlaceEmpty.WriteIntoAnEmptyExpandedViewIsANoOp in the frontend suite.
    for (std::int64_t d = 0; d < e.t.dim(); ++d)
      if (e.t.stride(d) == 0 && e.t.size(d) > 1) return;
  }
  const Shape& s = e.ref.shape;
  const Ref a = e.ref.read();
  auto F = [&](Ref r) { return p.finish(std::move(r)); };

  // the operand: the target's own transpose (square matrices), a pool entry or a new leaf
  Entry q;
  if (s.size() == 2 && s[0] == s[1] && p.chance(0.3)) {
    q = Entry{e.t.t(), e.ref.derive(s, [](Shape i) {
                std::swap(i[0], i[1]);
                return i;
              }),
              e.name + ".t()"};
  } else {
    q = p.operand_of_shape(p.shrink_to_broadcast(s));
  }
  const Ref b = q.ref.read();
  const std::string lhs = e.name, rhs = q.name;
  Ref result;
  std::string what;
  const bool small = max_abs(a) <= 1000 && max_abs(b) <= 1000;
  switch (p.rint(0, 9)) {
    case 0:
      e.t.add_(q.t);
      result = F(kref::zip(a, b, std::plus<>()));
      what = lhs + ".add_(" + rhs + ")";
      break;
    case 1: {
      int c = p.rint(-2, 2);
      e.t.sub_(q.t, c);
      result = F(kref::zip(a, b, [c](double x, double y) { return x - c * y; }));
      what = lhs + ".sub_(" + rhs + ", " + std::to_string(c) + ")";
      break;
    }
    case 2:
      if (max_abs(b) > (p.floating() ? 2 : 10) || !small) return;
      e.t *= q.t;
      result = F(kref::zip(a, b, std::multiplies<>()));
      what = lhs + " *= " + rhs;
      break;
    case 3: {
      int c = p.rint(-2, 2);
      e.t.mul_(c);
      result = F(kref::map(a, [c](double x) { return x * c; }));
      what = lhs + ".mul_(" + std::to_string(c) + ")";
      break;
    }
    case 4:
      e.t.copy_(q.t);
      result = F(kref::expand(b, s));
      what = lhs + ".copy_(" + rhs + ")";
      break;
    case 5:
      e.t.clamp_(-1, 1);
      result = F(kref::map(a, [](double x) { return std::clamp(x, -1.0, 1.0); }));
      what = lhs + ".clamp_(-1, 1)";
      break;
    case 6:
      e.t.relu_();
      result = F(kref::map(a, [](double x) { return std::max(x, 0.0); }));
      what = lhs + ".relu_()";
      break;
    case 7: {
      int c = p.rint(-3, 3);
      if (p.chance(0.5)) {
        e.t.fill_(c);
        result = Ref::filled(s, c);
        what = lhs + ".fill_(" + std::to_string(c) + ")";
      } else {
        e.t.zero_();
        result = Ref::filled(s, 0);
        what = lhs + ".zero_()";
      }
      break;
    }
    case 8:
      if (!p.floating()) {
        e.t += 3;
        result = F(kref::map(a, [](double x) { return x + 3; }));
        what = lhs + " += 3";
        break;
      }
      e.t.div_(-2.0);
      result = F(kref::map(a, [](double x) { return x / -2.0; }));
      what = lhs + ".div_(-2.0)";
      break;
    default:
      e.t -= q.t;
      result = F(kref::zip(a, b, std::minus<>()));
      what = lhs + " -= " + rhs;
  }
  e.ref.write(kref::expand(result, s));
  p.log(what);
  p.note_magnitude(max_abs(result));
  // keep values in range: rescale or clamp in place when they grew too much
  const double m = max_abs(result);
  if (p.floating() && m > 64) {
    double f = std::ldexp(1.0, -static_cast<int>(std::ceil(std::log2(m / 4))));
    e.t.mul_(f);
    e.ref.write(kref::map(result, [f](double x) { return x * f; }));
    p.log(lhs + ".mul_(" + std::to_string(f) + ") (rescaled)");
  } else if (!p.floating() && m > 10000) {
    e.t.clamp_(-1000, 1000);
    e.ref.write(kref::map(result, [](double x) { return std::clamp(x, -1000.0, 1000.0); }));
    p.log(lhs + ".clamp_(-1000, 1000)");
  }
}

}  // namespace rprog

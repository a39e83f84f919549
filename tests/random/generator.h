// A seeded generator of random kiln programs, run on kiln and on the
// aliasing-aware reference (program.h) side by side. Program holds the pool
// of live tensors and the building blocks; the op families are in
// random_ops.h.
//
// Values stay in safe ranges so that the reference and kiln cannot differ
// for IEEE reasons: float results are rescaled by an exact power of two
// when they exceed 8, integers are clamped to [-1000, 1000]; exp, prod and
// products of integers only run on small enough inputs; division only by
// (x * x + 1); var/std only over at least two elements; max-like
// reductions never over an empty dim.
//
// Tolerances: Long programs are exact. Double programs: |got - want| <=
// 1e-9 * (M + |want|), M the largest magnitude (or sum of magnitudes
// inside a reduction or product) the program has produced. Float programs
// round the reference to float32 after every op, so +, -, *, / agree
// bit for bit and only transcendental ulps and summation order differ:
// |got - want| <= 1e-4 * (M + |want|).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/random/program.h"

namespace rprog {

class Program {
 public:
  Program(unsigned seed, kiln::ScalarType dtype) : seed_(seed), gen_(seed), dt_(dtype) {}

  // --- randomness --------------------------------------------------------
  int rint(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }
  double runif(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen_); }
  bool chance(double p) { return runif(0, 1) < p; }
  template <class T>
  const T& choose(const std::vector<T>& v) { return v[rint(0, static_cast<int>(v.size()) - 1)]; }

  kiln::ScalarType dtype() const { return dt_; }
  bool floating() const { return kiln::is_floating_point(dt_); }

  /// The reference value as kiln stores it (float32 rounding; integers are exact).
  Ref finish(Ref r) const { return dt_ == kiln::kFloat32 ? kref::cast(std::move(r), dt_) : r; }
  void note_magnitude(double m) { mag_ = std::max(mag_, m); }

  Shape random_shape(int max_rank = 4) {
    Shape s(rint(0, max_rank));
    for (auto& d : s) d = chance(0.04) ? 0 : rint(1, 5);
    return s;
  }

  Ref random_values(const Shape& s) {
    Ref r = Ref::filled(s, 0);
    for (double& x : r.v) x = floating() ? runif(-2, 2) : rint(-5, 5);
    return finish(r);
  }

  /// A shape that broadcasts to `s` (dims dropped from the front or set to 1).
  Shape shrink_to_broadcast(const Shape& s) {
    Shape out(s.begin() + rint(0, static_cast<int>(s.size())), s.end());
    for (auto& d : out)
      if (chance(0.3)) d = 1;
    return out;
  }

  // --- the pool ----------------------------------------------------------
  std::vector<Entry>& pool() { return pool_; }
  Entry& pick() { return pool_[rint(0, static_cast<int>(pool_.size()) - 1)]; }

  void log(const std::string& line) { log_.push_back(line); }
  /// A broken promise seen while generating (reported by check_all()).
  void defect(const std::string& what) {
    if (defect_.empty()) defect_ = what;
    log("DEFECT: " + what);
  }

  /// Gradients: every leaf's values move by `eps` along a fixed random
  /// direction (the same in every run of a seed), and with `track` each
  /// leaf's kiln tensor is a copy of a root that requires grad, so that the
  /// program may write it in place (roots() holds them, directions() the
  /// direction of each).
  void differentiate(bool track, double eps) {
    track_ = track;
    eps_ = eps;
  }
  const std::vector<kiln::Tensor>& roots() const { return roots_; }
  const std::vector<std::vector<double>>& directions() const { return directions_; }

  /// Adds a fresh leaf of shape `s`.
  Entry leaf(const Shape& s) {
    Ref r = random_values(s);
    kiln::Tensor t = kref::make(r, dt_);
    if (track_ || eps_ != 0) {
      std::vector<double> d(r.v.size());
      for (std::size_t i = 0; i < d.size(); ++i) {
        d[i] = std::uniform_real_distribution<double>(-1, 1)(direction_gen_);
        r.v[i] += eps_ * d[i];
      }
      directions_.push_back(std::move(d));
      t = kref::make(r, dt_);
      if (track_) {
        roots_.push_back(t.requires_grad_(true));
        t = t.clone();
      }
    }
    Entry e{std::move(t), View::fresh(r), name()};
    note_magnitude(max_abs(r));
    log(e.name + " = leaf " + shape_str(s));
    return e;
  }

  /// A pool entry of exactly shape `s` (possibly aliasing others), or a new leaf.
  Entry operand_of_shape(const Shape& s) {
    std::vector<int> fits;
    for (int i = 0; i < static_cast<int>(pool_.size()); ++i)
      if (pool_[i].ref.shape == s) fits.push_back(i);
    if (!fits.empty() && chance(0.6)) return pool_[choose(fits)];
    Entry e = leaf(s);
    add(e);
    return e;
  }

  /// Adds an out-of-place result, keeping its values in the safe range.
  void add_result(kiln::Tensor t, const Ref& r, const std::string& what) {
    Entry e{std::move(t), View::fresh(r), name()};
    log(e.name + " = " + what + "  " + shape_str(r.shape));
    note_magnitude(max_abs(r));
    bound(e);
    add(e);
  }
  /// Adds a view sharing the reference storage.
  void add_view(kiln::Tensor t, View v, const std::string& what) {
    Entry e{std::move(t), std::move(v), name()};
    log(e.name + " = " + what + "  " + shape_str(e.ref.shape));
    add(e);
  }

  /// Rescales (exactly) or clamps an entry whose values left the safe range.
  void bound(Entry& e) {
    Ref r = e.ref.read();
    double m = max_abs(r);
    if (floating() && m > 8) {
      double f = std::ldexp(1.0, -static_cast<int>(std::ceil(std::log2(m / 4))));
      e.t = e.t * f;
      e.ref = View::fresh(kref::map(r, [f](double x) { return x * f; }));
      log("  " + e.name + " *= " + std::to_string(f) + " (rescaled)");
    } else if (!floating() && m > 1000) {
      e.t = e.t.clamp(-1000, 1000);
      e.ref = View::fresh(kref::map(r, [](double x) { return std::clamp(x, -1000.0, 1000.0); }));
      log("  " + e.name + " clamped to [-1000, 1000]");
    }
  }

  void drop_random() {
    int i = rint(0, static_cast<int>(pool_.size()) - 1);
    log("drop " + pool_[i].name);
    pool_.erase(pool_.begin() + i);
  }

  // --- checking ------------------------------------------------------------
  ::testing::AssertionResult check(const Entry& e) {
    Ref want = e.ref.read();
    if (e.t.sizes().vec() != want.shape)
      return fail(e.name + ": shape " + shape_str(e.t.sizes().vec()) + ", expected " + shape_str(want.shape));
    if (e.t.dtype() != dt_) return fail(e.name + ": dtype " + kiln::to_string(e.t.dtype()));
    Ref got = kref::of(e.t);
    double scale = floating() ? (dt_ == kiln::kFloat32 ? 1e-4 : 1e-9) : 0;
    kref::Tol tol{scale, scale * mag_};
    ::testing::AssertionResult r = kref::close(got, want, tol);
    if (!r) return fail(e.name + ": " + r.message());
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult check_all() {
    if (!defect_.empty()) return fail(defect_);
    for (const Entry& e : pool_) {
      ::testing::AssertionResult r = check(e);
      if (!r) return r;
    }
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult fail(const std::string& what) {
    std::ostringstream out;
    out << "seed " << seed_ << " (" << kiln::to_string(dt_) << "), M = " << mag_ << ": " << what << "\nprogram:\n";
    for (const std::string& l : log_) out << "  " << l << "\n";
    return ::testing::AssertionFailure() << out.str();
  }

 private:
  std::string name() {
    std::ostringstream n;
    n << 't' << next_id_++;
    return n.str();
  }
  void add(const Entry& e) { pool_.push_back(e); }

  unsigned seed_;
  std::mt19937 gen_;
  std::mt19937 direction_gen_{seed_ + 1};
  bool track_ = false;
  double eps_ = 0;
  std::vector<kiln::Tensor> roots_;
  std::vector<std::vector<double>> directions_;
  kiln::ScalarType dt_;
  std::vector<Entry> pool_;
  std::vector<std::string> log_;
  std::string defect_;
  int next_id_ = 0;
  double mag_ = 1;
};

}  // namespace rprog

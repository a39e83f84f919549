// Shared by the optimizer tests: a few steps of the loss 0.5 p.p + c.p (whose
// gradient is p + c) run with a kiln optimizer, and the same loop with the
// update written out over std::vector<double>.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <typeinfo>
#include <vector>

#include <kiln/torch.h>

namespace optim_reference {

using Vec = std::vector<double>;

inline const Vec kStart = {0.5, -1.0, 2.0, 0.25};
inline const Vec kC = {0.1, -0.3, 0.7, 0.0};

/// Runs `steps` steps of `opt` on p and returns p.
inline Vec run_kiln(torch::optim::Optimizer& opt, kiln::Tensor& p, int steps) {
  kiln::Tensor c = torch::tensor(kC, torch::kFloat64);
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    ((p * p).sum() * 0.5 + (p * c).sum()).backward();
    opt.step();
  }
  return p.to_vector<double>();
}

/// The same loop from kStart with `update(p, grad)` written out.
inline Vec run_reference(int steps, const std::function<void(Vec&, const Vec&)>& update) {
  Vec p = kStart;
  for (int s = 0; s < steps; ++s) {
    Vec g(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) g[i] = p[i] + kC[i];
    update(p, g);
  }
  return p;
}

inline void expect_close(const Vec& got, const Vec& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "element " << i;
}

/// A float64 leaf parameter holding kStart.
inline kiln::Tensor param() { return torch::tensor(kStart, torch::kFloat64).requires_grad_(true); }

/// `f()` throws exactly kiln::ValueError (not another kiln::Error) with
/// exactly `message`.
inline void expect_value_error(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected kiln::ValueError: " << message;
  } catch (const kiln::Error& e) {
    EXPECT_EQ(typeid(e), typeid(kiln::ValueError)) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

}  // namespace optim_reference

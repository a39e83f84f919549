// What the nn suites share: tensors to and from float64 vectors, a module's
// printed text, element-wise closeness, and an error check that goes through
// the error suite's kerr::throws (the exact type, the message's parts).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/errors/expect_error.h"

namespace knn {

inline std::vector<double> values(const kiln::Tensor& t) {
  return t.to(torch::kFloat64).contiguous().to_vector<double>();
}

inline kiln::Tensor dbl(const std::vector<double>& v, const std::vector<std::int64_t>& shape) {
  return torch::tensor(v, torch::kFloat64).reshape(shape);
}

/// What `std::cout << module` prints (a module or its holder).
template <class M>
std::string printed(const M& module) {
  std::ostringstream out;
  out << module;
  return out.str();
}

inline void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

/// `fn` throws exactly E, with every part of `parts` in its message.
template <class E, class Fn>
void expect_error(Fn fn, const std::vector<std::string>& parts) {
  EXPECT_TRUE(kerr::throws<E>(fn, parts));
}

}  // namespace knn

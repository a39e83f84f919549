// Helpers for the error suite: the exact kiln::Error subclass, the message
// parts, and a witness that other tensors survive the throw.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <typeinfo>
#include <vector>

#include <kiln/kiln.h>

namespace kerr {

/// Runs `call`; passes when it throws exactly `E` (not merely a subclass of
/// kiln::Error of another kind) whose message starts with "[" (the op name)
/// and contains every part of `parts`.
template <class E>
::testing::AssertionResult throws(const std::function<void()>& call, const std::vector<std::string>& parts = {}) {
  try {
    call();
  } catch (const E& e) {
    if (typeid(e) != typeid(E))
      return ::testing::AssertionFailure() << "threw a subclass " << typeid(e).name() << ": " << e.what();
    std::string what = e.what();
    if (what.empty() || what[0] != '[')
      return ::testing::AssertionFailure() << "message does not start with \"[op]\": " << what;
    for (const std::string& p : parts)
      if (what.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks \"" << p << "\": " << what;
    return ::testing::AssertionSuccess() << what;
  } catch (const kiln::Error& e) {
    return ::testing::AssertionFailure() << "threw another kiln::Error (" << typeid(e).name() << "): " << e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-kiln exception (" << typeid(e).name() << "): " << e.what();
  } catch (...) {
    return ::testing::AssertionFailure() << "threw something that is not a std::exception";
  }
  return ::testing::AssertionFailure() << "did not throw";
}

/// Tensors made before a failing call: one already read, one still pending.
/// After the throw both must read correctly, and new work must still run.
class Survivors {
 public:
  Survivors() {
    computed_ = kiln::arange(6, kiln::kFloat32).reshape({2, 3}) * 2;
    EXPECT_EQ(computed_.sum().item<float>(), 30.0f);
    pending_ = kiln::arange(4, kiln::kInt64) + 10;
  }
  ::testing::AssertionResult intact() const {
    try {
      std::vector<float> c = computed_.to_vector<float>();
      if (c != std::vector<float>{0, 2, 4, 6, 8, 10})
        return ::testing::AssertionFailure() << "a tensor computed before the throw changed";
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure() << "a tensor computed before the throw cannot be read: " << e.what();
    }
    try {
      std::vector<std::int64_t> p = pending_.to_vector<std::int64_t>();
      if (p != std::vector<std::int64_t>{10, 11, 12, 13})
        return ::testing::AssertionFailure() << "a tensor pending at the throw is wrong";
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure() << "a tensor recorded (pending) before the throw cannot be read: "
                                           << e.what();
    }
    try {
      if ((computed_ + 1).sum().item<float>() != 36.0f)
        return ::testing::AssertionFailure() << "new work after the throw is wrong";
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure() << "new work after the throw fails: " << e.what();
    }
    return ::testing::AssertionSuccess();
  }

 private:
  kiln::Tensor computed_, pending_;
};

}  // namespace kerr

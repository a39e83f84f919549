#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <kiln/error.h>

#include "jit/threads.h"

namespace kiln::jit {
namespace {

TEST(Threads, SetAndGet) {
  const int before = num_threads();
  EXPECT_GE(before, 1);
  set_num_threads(1);
  EXPECT_EQ(num_threads(), 1);
  EXPECT_EQ(kernel_arena()->max_concurrency(), 1);
  // The pool is as big as the kernels' arena: compiles have their own thread.
  EXPECT_EQ(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism), 1u);
  set_num_threads(3);
  EXPECT_EQ(num_threads(), 3);
  set_num_threads(before);
}

TEST(Threads, RejectsLessThanOne) {
  EXPECT_THROW(set_num_threads(0), ValueError);
  EXPECT_THROW(set_num_threads(-2), ValueError);
}

}  // namespace
}  // namespace kiln::jit

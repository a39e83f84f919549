// register_post_accumulate_grad_hook fires once per backward pass, after the
// leaf's last accumulation, with its final .grad; queue_callback runs when
// the pass ends and is an error outside one.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

namespace {

TEST(PostAccumulateGradHook, FiresOncePerPassWithTheFinalGradient) {
  auto w = kiln::ones({3}, kiln::requires_grad());
  std::vector<std::vector<float>> seen;
  kiln::autograd::register_post_accumulate_grad_hook(w, [&](const kiln::Tensor& g) {
    seen.push_back(g.to_vector<float>());
  });
  auto y = (w * 2).sum() + (w * 3).sum();  // two paths into the leaf
  y.backward();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], std::vector<float>({5, 5, 5}));
  ((w * 1).sum()).backward();  // accumulates onto the 5s
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1], std::vector<float>({6, 6, 6}));
}

TEST(PostAccumulateGradHook, QueuedCallbacksRunAfterEveryHookOfThePass) {
  auto a = kiln::ones({2}, kiln::requires_grad());
  auto b = kiln::ones({2}, kiln::requires_grad());
  std::vector<std::string> order;
  bool queued = false;
  auto hook = [&](const char* name) {
    return [&, name](const kiln::Tensor&) {
      order.push_back(name);
      if (!queued) {
        queued = true;
        kiln::autograd::queue_callback([&] { order.push_back("end"); });
      }
    };
  };
  kiln::autograd::register_post_accumulate_grad_hook(a, hook("a"));
  kiln::autograd::register_post_accumulate_grad_hook(b, hook("b"));
  (a * b).sum().backward();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order.back(), "end");
}

TEST(PostAccumulateGradHook, MisuseIsAnAutogradError) {
  EXPECT_THROW(kiln::autograd::queue_callback([] {}), kiln::AutogradError);
  auto leaf = kiln::ones({2}, kiln::requires_grad());
  try {
    kiln::autograd::register_post_accumulate_grad_hook(leaf * 2, [](const kiln::Tensor&) {});
    FAIL();
  } catch (const kiln::AutogradError& e) {
    EXPECT_NE(std::string(e.what()).find("[Float [2]]"), std::string::npos) << e.what();
  }
}

}  // namespace

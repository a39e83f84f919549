// LibTorch's device plumbing: CPU requests are no-ops, CUDA requests are
// errors at the call; Device parsing and printing; TORCH_CHECK / AT_ASSERT.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include <kiln/torch.h>

namespace {

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const kiln::ValueError& e) {
    return e.what();
  }
  return "no ValueError";
}

TEST(Device, ParsesAndPrintsLibTorchSpellings) {
  EXPECT_EQ(torch::Device("cpu"), torch::Device(torch::kCPU));
  EXPECT_EQ(torch::Device("cuda:1").index(), 1);
  EXPECT_TRUE(torch::Device("cuda").is_cuda());
  EXPECT_FALSE(torch::Device("cuda").has_index());
  EXPECT_EQ(torch::Device("cuda:3").str(), "cuda:3");
  std::ostringstream out;
  out << torch::Device(torch::kCPU) << " " << torch::kCUDA;
  EXPECT_EQ(out.str(), "cpu cuda");
  for (const char* bad : {"gpu", "cuda:", "cuda:-1", "cuda:x", "cpu:2", "cuda:999999"})
    EXPECT_THROW(torch::Device{std::string(bad)}, kiln::ValueError) << bad;
  EXPECT_NE(message_of([] { torch::Device d("tpu"); }).find("'tpu'"), std::string::npos);
}

TEST(Device, CpuPlumbingIsANoOp) {
  EXPECT_FALSE(torch::cuda::is_available());
  EXPECT_EQ(torch::cuda::device_count(), 0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::Tensor x = torch::tensor({1.0, 2.0});
  EXPECT_EQ(x.device(), torch::Device(torch::kCPU));
  EXPECT_TRUE(x.is_cpu());
  EXPECT_FALSE(x.is_cuda());
  EXPECT_TRUE(x.to(device).is_same(x));
  EXPECT_TRUE(x.cpu().is_same(x));
  torch::Tensor copied = x.to(device, /*non_blocking=*/false, /*copy=*/true);
  EXPECT_FALSE(copied.is_same_storage(x));
  EXPECT_EQ(copied.to_vector<double>(), x.to_vector<double>());
  EXPECT_EQ(x.to(device, torch::kFloat64).dtype(), torch::kFloat64);
  EXPECT_EQ(torch::zeros({2}, torch::TensorOptions().device(device).dtype(torch::kInt32)).dtype(), torch::kInt32);
  EXPECT_EQ(torch::ones({2}, torch::device(torch::kCPU)).dtype(), torch::kFloat32);

  torch::nn::Linear model(3, 2);
  torch::Tensor w = model->weight;
  model->to(device);
  EXPECT_TRUE(model->weight.is_same(w));
  model->to(device, torch::kFloat64);
  EXPECT_EQ(model->weight.dtype(), torch::kFloat64);
}

TEST(Device, CudaRequestsAreErrorsNamingTheCall) {
  torch::Tensor x = torch::tensor({1.0, 2.0});
  EXPECT_NE(message_of([&] { (void)x.to(torch::kCUDA); }).find("[to] device cuda is not available"),
            std::string::npos);
  EXPECT_NE(message_of([] { (void)torch::zeros({2}, torch::TensorOptions().device(torch::Device("cuda:0"))); })
                .find("[zeros] device cuda:0"),
            std::string::npos);
  EXPECT_THROW((void)torch::rand({2}, torch::device(torch::kCUDA)), kiln::ValueError);
  EXPECT_THROW((void)torch::tensor({1, 2}, torch::device(torch::kCUDA)), kiln::ValueError);
  float data[2] = {1, 2};
  EXPECT_THROW((void)torch::from_blob(data, {2}, torch::device(torch::kCUDA)), kiln::ValueError);
  torch::nn::Linear model(3, 2);
  EXPECT_NE(message_of([&] { model->to(torch::kCUDA); }).find("[nn::Module::to]"), std::string::npos);
}

TEST(TorchChecks, CheckThrowsErrorWithTheMessageAssertThrowsInternalError) {
  int rank = 3;
  try {
    TORCH_CHECK(rank == 2, "expected a matrix, got rank ", rank);
    FAIL() << "TORCH_CHECK did not throw";
  } catch (const kiln::Error& e) {
    EXPECT_STREQ(e.what(), "expected a matrix, got rank 3");
  }
  try {
    TORCH_CHECK(rank < 0);
    FAIL() << "TORCH_CHECK did not throw";
  } catch (const kiln::Error& e) {
    EXPECT_STREQ(e.what(), "Expected rank < 0 to be true, but got false.");
  }
  EXPECT_NO_THROW(TORCH_CHECK(rank == 3, "never built"));
  EXPECT_THROW(AT_ASSERT(rank == 2), kiln::InternalError);
  EXPECT_THROW(TORCH_INTERNAL_ASSERT(rank == 2, "rank ", rank), kiln::InternalError);
}

}  // namespace

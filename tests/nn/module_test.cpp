// nn::Module and its holder: registration, the module tree, modes,
// gradients, dtype conversion, printing; Linear against a plain reference.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <kiln/torch.h>

namespace {

using kiln::Tensor;

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 3));
    fc2 = register_module("fc2", torch::nn::Linear(torch::nn::LinearOptions(3, 2).bias(false)));
    scale = register_buffer("scale", torch::ones({2}));
  }
  Tensor forward(Tensor x) { return fc2(fc1(x).relu()) * scale; }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  Tensor scale;
};
TORCH_MODULE(Net);

TEST(Module, NamedParametersBuffersAndChildrenInRegistrationOrder) {
  Net net;
  EXPECT_EQ(net->named_parameters().keys(), (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight"}));
  EXPECT_EQ(net->named_parameters(false).size(), 0u);
  EXPECT_EQ(net->named_buffers().keys(), (std::vector<std::string>{"scale"}));
  EXPECT_EQ(net->named_children().keys(), (std::vector<std::string>{"fc1", "fc2"}));
  EXPECT_EQ(net->named_modules().keys(), (std::vector<std::string>{"", "fc1", "fc2"}));
  EXPECT_EQ(net->modules(false).size(), 2u);
  for (const Tensor& p : net->parameters()) {
    EXPECT_TRUE(p.requires_grad());
    EXPECT_TRUE(p.is_leaf());
  }
  EXPECT_FALSE(net->named_buffers()["scale"].requires_grad());
  EXPECT_TRUE(net->fc1->weight.is_same(net->named_parameters()["fc1.weight"]));
}

TEST(Module, PrintsAsLibTorchLaysItOut) {
  Net net;
  std::ostringstream out;
  out << *net;
  EXPECT_EQ(net->name(), "(anonymous namespace)::NetImpl");  // the demangled class name, as LibTorch's
  EXPECT_EQ(out.str(),
            "(anonymous namespace)::NetImpl(\n"
            "  (fc1): kiln::nn::Linear(in_features=4, out_features=3, bias=true)\n"
            "  (fc2): kiln::nn::Linear(in_features=3, out_features=2, bias=false)\n"
            ")");
}

TEST(Module, TrainEvalAndZeroGradReachEverySubmodule) {
  Net net;
  net->eval();
  EXPECT_FALSE(net->is_training());
  EXPECT_FALSE(net->fc2->is_training());
  net->train();
  EXPECT_TRUE(net->fc1->is_training());
  net->forward(torch::randn({5, 4})).sum().backward();
  for (const Tensor& p : net->parameters()) EXPECT_TRUE(p.grad().defined());
  net->zero_grad(false);
  for (const Tensor& p : net->parameters())
    for (float g : p.grad().to_vector<float>()) EXPECT_EQ(g, 0.0f);
  net->zero_grad();
  for (const Tensor& p : net->parameters()) EXPECT_FALSE(p.grad().defined());
}

TEST(Module, ToConvertsParametersInPlaceKeepingTheirHandles) {
  Net net;
  Tensor w = net->fc1->weight;
  std::vector<float> before = w.to_vector<float>();
  net->to(torch::kFloat64);
  EXPECT_EQ(w.dtype(), torch::kFloat64);
  EXPECT_EQ(net->named_buffers()["scale"].dtype(), torch::kFloat64);
  EXPECT_TRUE(w.requires_grad());
  std::vector<double> after = w.to_vector<double>();
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], static_cast<double>(before[i]));
  EXPECT_EQ(net->forward(torch::randn({2, 4}, torch::kFloat64)).dtype(), torch::kFloat64);
}

TEST(Module, RegistrationRejectsBadNamesAndDuplicates) {
  torch::nn::Module m;
  m.register_parameter("w", torch::ones({2}));
  EXPECT_THROW(m.register_parameter("w", torch::ones({2})), kiln::ValueError);
  EXPECT_THROW(m.register_parameter("a.b", torch::ones({2})), kiln::ValueError);
  EXPECT_THROW(m.register_buffer("", torch::ones({2})), kiln::ValueError);
  EXPECT_THROW(m.register_module("fc", std::shared_ptr<torch::nn::LinearImpl>()), kiln::ValueError);
  torch::nn::Linear empty = nullptr;
  EXPECT_TRUE(empty.is_empty());
  EXPECT_THROW(empty->forward(torch::ones({1, 1})), kiln::ValueError);
}

TEST(Linear, MatchesAPlainReferenceAndLibTorchsInitBounds) {
  torch::manual_seed(3);
  torch::nn::Linear fc(5, 3);
  const double bound = 1 / std::sqrt(5.0);
  for (const Tensor& p : fc->parameters())
    for (float v : p.to_vector<float>()) EXPECT_LE(std::abs(v), bound);
  Tensor x = torch::randn({2, 5});
  std::vector<float> xs = x.to_vector<float>(), w = fc->weight.to_vector<float>(), b = fc->bias.to_vector<float>();
  std::vector<float> y = fc(x).to_vector<float>();
  for (int i = 0; i < 2; ++i)
    for (int o = 0; o < 3; ++o) {
      double want = b[o];
      for (int k = 0; k < 5; ++k) want += double(xs[i * 5 + k]) * w[o * 5 + k];
      EXPECT_NEAR(y[i * 3 + o], want, 1e-5);
    }
  EXPECT_THROW(fc(torch::randn({2, 4})), kiln::ShapeError);
}

TEST(Init, FormulasAsLibTorch) {
  EXPECT_DOUBLE_EQ(torch::nn::init::calculate_gain(torch::kReLU), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(torch::nn::init::calculate_gain(torch::kTanh), 5.0 / 3.0);
  Tensor w = torch::empty({64, 32, 3});
  auto [in, out] = torch::nn::init::calculate_fan_in_and_fan_out(w);
  EXPECT_EQ(in, 96);
  EXPECT_EQ(out, 192);
  torch::nn::init::xavier_uniform_(w);
  const double bound = std::sqrt(6.0 / (96 + 192));
  double sumsq = 0;
  for (float v : w.to_vector<float>()) {
    EXPECT_LE(std::abs(v), bound);
    sumsq += double(v) * v;
  }
  EXPECT_NEAR(sumsq / w.numel(), bound * bound / 3, bound * bound / 3 * 0.1);  // variance of U(-b, b)
  torch::nn::init::constant_(w, 0.5);
  for (float v : w.to_vector<float>()) EXPECT_EQ(v, 0.5f);
  EXPECT_THROW(torch::nn::init::kaiming_uniform_(torch::empty({3})), kiln::ValueError);
}

}  // namespace

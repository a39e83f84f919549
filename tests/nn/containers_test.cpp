// The containers: Sequential (forward equal to the chained calls, names,
// indexing, extend, iteration), AnyModule, ModuleList, ModuleDict and
// Functional; parameter names and printing as LibTorch's; index and key errors.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <kiln/torch.h>

#include "tests/nn/nn_helpers.h"

namespace {

using knn::printed;
using kiln::Tensor;
using Keys = std::vector<std::string>;

std::vector<float> values(const Tensor& t) { return t.contiguous().to_vector<float>(); }

template <class E, class Fn>
void expect_error(Fn fn, const std::string& message) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown";
  } catch (const E& e) {
    EXPECT_EQ(std::string(e.what()), message);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

TEST(Sequential, ForwardIsTheChainedCalls) {
  torch::manual_seed(1);
  torch::nn::Linear fc1(3, 4), fc2(4, 2);
  torch::nn::ReLU relu;
  torch::nn::Sequential seq(fc1, relu, fc2, torch::nn::Softmax(1));
  Tensor x = torch::randn({5, 3});
  EXPECT_EQ(values(seq->forward(x)), values(torch::softmax(fc2(relu(fc1(x))), 1)));
  EXPECT_EQ(values(seq(x)), values(seq->forward(x)));
  EXPECT_EQ(values(seq->forward<Tensor>(x)), values(seq->forward(x)));
  // The modules are shared, not copied: gradients reach fc1's own weight.
  seq(x).sum().backward();
  EXPECT_TRUE(fc1->weight.grad().defined());
  EXPECT_EQ(seq->size(), 4u);
  EXPECT_TRUE(seq->ptr(0).get() == fc1.get());
  EXPECT_TRUE(seq->ptr<torch::nn::LinearImpl>(2).get() == fc2.get());
  EXPECT_EQ(seq->at<torch::nn::LinearImpl>(0).options.out_features(), 4);
  EXPECT_EQ(seq[1]->name(), "kiln::nn::ReLU");
  // LibTorch's as<>: by holder or by module class, null for another type.
  EXPECT_EQ(seq[0]->as<torch::nn::Linear>(), fc1.get());
  EXPECT_EQ(seq[2]->as<torch::nn::LinearImpl>(), fc2.get());
  EXPECT_EQ(seq[1]->as<torch::nn::Linear>(), nullptr);
}

TEST(Sequential, ParametersAreNamedByPositionAsLibTorch) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Linear(4, 2));
  EXPECT_EQ(seq->named_parameters().keys(), (Keys{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(seq->parameters().size(), 4u);
  EXPECT_EQ(seq->named_children().keys(), (Keys{"0", "1", "2"}));
  seq->push_back(torch::nn::Linear(2, 2));
  seq->push_back("out", torch::nn::Sigmoid());
  EXPECT_EQ(seq->named_children().keys(), (Keys{"0", "1", "2", "3", "out"}));
  EXPECT_EQ(seq->forward(torch::randn({2, 3})).sizes().vec(), (std::vector<std::int64_t>{2, 2}));
}

TEST(Sequential, NamedConstructionKeepsTheNames) {
  torch::nn::Sequential seq({{"fc", torch::nn::Linear(3, 4)}, {"act", torch::nn::Tanh()}});
  EXPECT_EQ(seq->named_parameters().keys(), (Keys{"fc.weight", "fc.bias"}));
  EXPECT_EQ(printed(seq),
            "kiln::nn::Sequential(\n"
            "  (fc): kiln::nn::Linear(in_features=3, out_features=4, bias=true)\n"
            "  (act): kiln::nn::Tanh()\n"
            ")");
}

TEST(Sequential, PrintsAsLibTorch) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Dropout(0.2),
                            torch::nn::Sequential(torch::nn::Flatten(), torch::nn::Identity()));
  EXPECT_EQ(printed(seq),
            "kiln::nn::Sequential(\n"
            "  (0): kiln::nn::Linear(in_features=3, out_features=4, bias=true)\n"
            "  (1): kiln::nn::ReLU()\n"
            "  (2): kiln::nn::Dropout(p=0.2, inplace=false)\n"
            "  (3): kiln::nn::Sequential(\n"
            "    (0): kiln::nn::Flatten(start_dim=1, end_dim=-1)\n"
            "    (1): kiln::nn::Identity()\n"
            "  )\n"
            ")");
  EXPECT_EQ(printed(torch::nn::Sequential()), "kiln::nn::Sequential");
}

// A user's module (forward taking Tensor by value) inside a Sequential.
struct BlockImpl : torch::nn::Module {
  BlockImpl() { fc = register_module("fc", torch::nn::Linear(3, 3)); }
  Tensor forward(Tensor x) { return fc(x) + x; }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Block);

TEST(Sequential, HoldsUsersModulesAndSharedPointers) {
  Block block;
  torch::nn::Sequential seq(block, std::make_shared<torch::nn::LinearImpl>(3, 2));
  seq->push_back(std::make_shared<torch::nn::LogSoftmaxImpl>(1));
  EXPECT_EQ(seq->named_parameters().keys(), (Keys{"0.fc.weight", "0.fc.bias", "1.weight", "1.bias"}));
  Tensor x = torch::randn({4, 3});
  EXPECT_EQ(values(seq(x)), values(torch::log_softmax(seq->at<torch::nn::LinearImpl>(1).forward(block(x)), 1)));
  EXPECT_EQ(printed(seq),
            "kiln::nn::Sequential(\n"
            "  (0): (anonymous namespace)::BlockImpl(\n"
            "    (fc): kiln::nn::Linear(in_features=3, out_features=3, bias=true)\n"
            "  )\n"
            "  (1): kiln::nn::Linear(in_features=3, out_features=2, bias=true)\n"
            "  (2): kiln::nn::LogSoftmax(dim=1)\n"
            ")");
}

TEST(Sequential, ExtendAndIterate) {
  torch::nn::Sequential a(torch::nn::Linear(2, 3));
  torch::nn::Sequential b(torch::nn::ReLU(), torch::nn::Linear(3, 1));
  a->extend(*b);
  EXPECT_EQ(a->size(), 3u);
  EXPECT_EQ(a->named_parameters().keys(), (Keys{"0.weight", "0.bias", "2.weight", "2.bias"}));
  a->extend(std::vector<torch::nn::Sigmoid>{torch::nn::Sigmoid()});
  Keys names;
  for (const torch::nn::AnyModule& m : *a) names.push_back(m.ptr()->name());
  EXPECT_EQ(names, (Keys{"kiln::nn::Linear", "kiln::nn::ReLU", "kiln::nn::Linear", "kiln::nn::Sigmoid"}));
  Tensor x = torch::randn({4, 2});
  Tensor chained = x;
  for (auto& m : *a) chained = m.forward(chained);
  EXPECT_EQ(values(a(x)), values(chained));
}

TEST(Sequential, TrainAndEvalReachItsModules) {
  torch::nn::Sequential seq(torch::nn::Dropout(0.5));
  seq->eval();
  Tensor x = torch::ones({100});
  EXPECT_EQ(values(seq(x)), values(x));
  EXPECT_FALSE(seq[0]->is_training());
}

TEST(Sequential, IndexAndEmptyErrors) {
  torch::nn::Sequential seq{torch::nn::ReLU(), torch::nn::Tanh()};
  expect_error<kiln::IndexError>([&] { seq[2]->name(); },
                                 "[nn::Sequential] index 2 is out of range for a Sequential of size 2");
  expect_error<kiln::IndexError>([&] { seq->ptr(7); },
                                 "[nn::Sequential] index 7 is out of range for a Sequential of size 2");
  expect_error<kiln::ValueError>([&] { seq->ptr<torch::nn::LinearImpl>(0); },
                                 "[nn::Sequential] the module is a kiln::nn::ReLUImpl (kiln::nn::ReLU), not a "
                                 "kiln::nn::LinearImpl");
  expect_error<kiln::ValueError>([] { torch::nn::Sequential()->forward(torch::ones({1})); },
                                 "[nn::Sequential] cannot call forward() on an empty Sequential");
  EXPECT_THROW(seq->push_back("0", torch::nn::ReLU()), kiln::ValueError);  // the name is taken
}

TEST(AnyModule, ForwardsAndCastsBack) {
  torch::nn::Linear fc(3, 2);
  torch::nn::AnyModule any(fc);
  Tensor x = torch::randn({4, 3});
  EXPECT_EQ(values(any.forward(x)), values(fc(x)));
  EXPECT_EQ(values(any.forward<Tensor>(x)), values(fc(x)));
  EXPECT_TRUE(any.ptr().get() == fc.get());
  EXPECT_TRUE(&any.get<torch::nn::LinearImpl>() == fc.get());
  EXPECT_TRUE(any.get<torch::nn::Linear>().get() == fc.get());
  EXPECT_TRUE(any.type_info() == typeid(torch::nn::LinearImpl));
  torch::nn::AnyModule from_value(torch::nn::SigmoidImpl{});
  EXPECT_EQ(values(from_value.forward(torch::zeros({2}))), (std::vector<float>{0.5f, 0.5f}));
  expect_error<kiln::ValueError>([&] { any.get<torch::nn::ReLUImpl>(); },
                                 "[nn::AnyModule] the module is a kiln::nn::LinearImpl (kiln::nn::Linear), not a "
                                 "kiln::nn::ReLUImpl");
  torch::nn::AnyModule empty;
  EXPECT_TRUE(empty.is_empty());
  expect_error<kiln::ValueError>([&] { empty.forward(x); },
                                 "[nn::AnyModule] cannot call forward() on an empty AnyModule");
}

TEST(ModuleList, PushBackInsertExtendAndIterate) {
  torch::nn::ModuleList list(torch::nn::Linear(2, 3), torch::nn::Linear(3, 4));
  list->push_back(torch::nn::ReLU());
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->named_parameters().keys(), (Keys{"0.weight", "0.bias", "1.weight", "1.bias"}));
  torch::nn::Linear front(5, 2);
  list->insert(0, front);
  EXPECT_EQ(list->named_children().keys(), (Keys{"0", "1", "2", "3"}));
  EXPECT_TRUE(list->ptr(0).get() == front.get());
  EXPECT_EQ(list->named_parameters().keys(),
            (Keys{"0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(list->at<torch::nn::LinearImpl>(1).options.in_features(), 2);
  list->insert(4, torch::nn::Tanh());  // at the end
  list->extend(*torch::nn::ModuleList(torch::nn::Sigmoid()));
  Keys names;
  for (const auto& m : *list) names.push_back(m->name());
  EXPECT_EQ(names, (Keys{"kiln::nn::Linear", "kiln::nn::Linear", "kiln::nn::Linear", "kiln::nn::ReLU",
                         "kiln::nn::Tanh", "kiln::nn::Sigmoid"}));
  EXPECT_EQ(list[3]->name(), "kiln::nn::ReLU");
  Tensor x = torch::randn({2, 5});
  for (std::size_t i = 0; i < 3; ++i) x = list->at<torch::nn::LinearImpl>(i).forward(x);
  EXPECT_EQ(x.sizes().vec(), (std::vector<std::int64_t>{2, 4}));
}

TEST(ModuleList, PrintsAsLibTorchAndRejectsBadIndices) {
  torch::nn::ModuleList list(torch::nn::Linear(2, 3), torch::nn::GELU());
  EXPECT_EQ(printed(list),
            "kiln::nn::ModuleList(\n"
            "  (0): kiln::nn::Linear(in_features=2, out_features=3, bias=true)\n"
            "  (1): kiln::nn::GELU()\n"
            ")");
  expect_error<kiln::IndexError>([&] { list[2]->name(); },
                                 "[nn::ModuleList] index 2 is out of range for a ModuleList of size 2");
  expect_error<kiln::IndexError>([&] { list->insert(3, torch::nn::ReLU()); },
                                 "[nn::ModuleList] insert position 3 is out of range for a ModuleList of size 2");
  EXPECT_THROW(list->push_back(std::shared_ptr<torch::nn::Module>()), kiln::ValueError);
}

TEST(ModuleDict, LookupUpdatePopInInsertionOrder) {
  torch::nn::Linear cls(8, 10);
  torch::nn::ModuleDict dict(torch::nn::ModuleDictImpl::Pairs{{"cls", cls.ptr()},
                                                              {"act", torch::nn::ReLU().ptr()}});
  EXPECT_EQ(dict->size(), 2u);
  EXPECT_EQ(dict->keys(), (Keys{"cls", "act"}));
  EXPECT_TRUE(dict->contains("act"));
  EXPECT_FALSE(dict->contains("box"));
  EXPECT_TRUE(dict["cls"].get() == cls.get());
  EXPECT_TRUE(&dict->at<torch::nn::LinearImpl>("cls") == cls.get());
  EXPECT_EQ(dict->named_parameters().keys(), (Keys{"cls.weight", "cls.bias"}));
  torch::nn::Linear replacement(8, 3);
  dict->update({{"box", torch::nn::Linear(8, 4).ptr()}, {"cls", replacement.ptr()}});
  EXPECT_EQ(dict->keys(), (Keys{"cls", "act", "box"}));  // a replaced module keeps its place
  EXPECT_TRUE(dict["cls"].get() == replacement.get());
  EXPECT_EQ(dict->named_parameters().keys(), (Keys{"cls.weight", "cls.bias", "box.weight", "box.bias"}));
  EXPECT_EQ(dict->named_parameters()["cls.weight"].size(0), 3);
  std::shared_ptr<torch::nn::Module> act = dict->pop("act");
  EXPECT_EQ(act->name(), "kiln::nn::ReLU");
  EXPECT_EQ(dict->keys(), (Keys{"cls", "box"}));
  EXPECT_EQ(dict->named_children().keys(), (Keys{"cls", "box"}));
  EXPECT_EQ(dict->values().size(), 2u);
  Keys iterated;
  for (const auto& item : *dict) iterated.push_back(item.key());
  EXPECT_EQ(iterated, (Keys{"cls", "box"}));
  EXPECT_EQ(dict->items()[1].first, "box");
  EXPECT_EQ(printed(dict),
            "kiln::nn::ModuleDict(\n"
            "  (cls): kiln::nn::Linear(in_features=8, out_features=3, bias=true)\n"
            "  (box): kiln::nn::Linear(in_features=8, out_features=4, bias=true)\n"
            ")");
  dict->clear();
  EXPECT_TRUE(dict->empty());
  EXPECT_TRUE(dict->parameters().empty());
}

TEST(ModuleDict, MissingKeysAndBadNames) {
  torch::nn::ModuleDict dict(torch::nn::ModuleDictImpl::Pairs{{"a", torch::nn::ReLU().ptr()}});
  expect_error<kiln::IndexError>([&] { dict["b"]->name(); }, "[nn::ModuleDict] no module under key 'b' (1 keys)");
  expect_error<kiln::IndexError>([&] { dict->pop("b"); }, "[nn::ModuleDict] no module under key 'b' (1 keys)");
  EXPECT_THROW(dict->update({{"a.b", torch::nn::ReLU().ptr()}}), kiln::ValueError);
  EXPECT_FALSE(dict->contains("a.b"));
}

TEST(Functional, WrapsFunctionsLambdasAndBoundArguments) {
  Tensor x = torch::randn({3, 4});
  EXPECT_EQ(values(torch::nn::Functional(torch::relu)(x)), values(torch::relu(x)));
  EXPECT_EQ(values(torch::nn::Functional(torch::softmax, 0)(x)), values(torch::softmax(x, 0)));
  torch::nn::Functional twice([](Tensor t) { return t * 2; });
  EXPECT_EQ(values(twice(x)), values(x * 2));
  torch::nn::Sequential seq(torch::nn::Linear(4, 2), torch::nn::Functional(torch::tanh));
  EXPECT_EQ(printed(seq),
            "kiln::nn::Sequential(\n"
            "  (0): kiln::nn::Linear(in_features=4, out_features=2, bias=true)\n"
            "  (1): kiln::nn::Functional()\n"
            ")");
  EXPECT_EQ(values(seq(x)), values(torch::tanh(seq->at<torch::nn::LinearImpl>(0).forward(x))));
}

}  // namespace

// LibTorch side of the elementwise math rows (bench/math_bench.cpp).
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <stdexcept>

#include "torch_peer.h"

namespace torch_peer {
namespace {

at::Tensor tensor(const Floats& v) {
  return at::from_blob(const_cast<float*>(v.data()), {static_cast<std::int64_t>(v.size())}, at::kFloat).clone();
}

at::Tensor apply(ChainOp op, const at::Tensor& v, const at::Tensor& y) {
  switch (op) {
    case ChainOp::exp: return at::exp(v);
    case ChainOp::tanh: return at::tanh(v);
    case ChainOp::sigmoid: return at::sigmoid(v);
    case ChainOp::sin: return at::sin(v);
    case ChainOp::erf: return at::erf(v);
    case ChainOp::gelu: return at::gelu(v);
    case ChainOp::log1p: return at::log1p(v);
    case ChainOp::add: return v + y;
    case ChainOp::sub: return v - y;
    case ChainOp::mul: return v * y;
    case ChainOp::maximum: return at::maximum(v, y);
    case ChainOp::half: return v * 0.5;
  }
  throw std::logic_error("unknown chain op");
}

using Unary = at::Tensor (*)(const at::Tensor&);

Unary unary_named(const std::string& name) {
  if (name == "exp") return [](const at::Tensor& x) { return at::exp(x); };
  if (name == "log") return [](const at::Tensor& x) { return at::log(x); };
  if (name == "tanh") return [](const at::Tensor& x) { return at::tanh(x); };
  if (name == "sigmoid") return [](const at::Tensor& x) { return at::sigmoid(x); };
  if (name == "erf") return [](const at::Tensor& x) { return at::erf(x); };
  if (name == "gelu") return [](const at::Tensor& x) { return at::gelu(x); };
  throw std::invalid_argument("torch_peer::unary: no op named " + name);
}

class UnaryOp final : public Op {
 public:
  UnaryOp(Unary f, const Floats& x) : f_(f), x_(tensor(x)) {}
  void run() override {
    c10::InferenceMode guard;
    last_ = f_(x_);
  }
  Floats result() override { return Floats(last_.data_ptr<float>(), last_.data_ptr<float>() + last_.numel()); }

 private:
  Unary f_;
  at::Tensor x_, last_;
};

class ChainProgram final : public Op {
 public:
  ChainProgram(const Floats& x, const Floats& y, ChainsOfRound chains, int iterations)
      : x_(tensor(x)), y_(tensor(y)), chains_(chains), iterations_(iterations) {}
  void run() override { run_round(++round_); }
  Floats result() override { return run_round(0); }

 private:
  Floats run_round(std::uint64_t round) {
    c10::InferenceMode guard;
    const std::vector<Chain> chains = chains_(round);
    Floats read(static_cast<std::size_t>(iterations_));
    for (int i = 0; i < iterations_; ++i) {
      at::Tensor v = x_;
      for (ChainOp op : chains[static_cast<std::size_t>(i) % chains.size()]) v = apply(op, v, y_);
      read[static_cast<std::size_t>(i)] = v.data_ptr<float>()[i % v.numel()];
    }
    return read;
  }

  at::Tensor x_, y_;
  ChainsOfRound chains_;
  int iterations_;
  std::uint64_t round_ = 0;
};

}  // namespace

std::unique_ptr<Op> unary(const std::string& name, const Floats& x) { return std::make_unique<UnaryOp>(unary_named(name), x); }

std::unique_ptr<Op> chain_program(const Floats& x, const Floats& y, ChainsOfRound chains, int iterations) {
  return std::make_unique<ChainProgram>(x, y, chains, iterations);
}

}  // namespace torch_peer

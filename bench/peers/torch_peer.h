// LibTorch (ATen, eager) as a benchmark peer, behind an interface without
// LibTorch types: LibTorch 1.13's headers are built as C++17 in their own
// translation unit (torch_peer.cpp), and the C++20 bench programs that
// include this header never parse them. Inputs are copied into LibTorch
// tensors once, when an Op is made; run() is one eager call.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch_peer {

using Floats = std::vector<float>;

/// One prepared computation. run() computes it (LibTorch is eager: the
/// result is ready on return), result() copies the last result out.
class Op {
 public:
  virtual ~Op() = default;
  virtual void run() = 0;
  virtual Floats result() = 0;
};

/// Intra-op threads of ATen and of the BLAS it calls (OpenBLAS).
void set_threads(int n);

/// "LibTorch 1.13.0, CPU capability AVX512", for the report.
std::string describe();

std::unique_ptr<Op> add(const Floats& a, const Floats& b);
/// GELU (tanh form) written op by op, as bench/gelu_variants.h writes it for kiln.
std::unique_ptr<Op> gelu_chain(const Floats& x);
/// LibTorch's one fused kernel: torch::gelu(x, "tanh").
std::unique_ptr<Op> gelu_fused(const Floats& x);
std::unique_ptr<Op> sum(const Floats& x);
std::unique_ptr<Op> softmax_rows(const Floats& x, std::int64_t rows, std::int64_t cols);
std::unique_ptr<Op> layer_norm(const Floats& x, std::int64_t rows, std::int64_t cols, const Floats& gamma, const Floats& beta,
                               double eps);
/// C = A B, N x N row-major (torch::mm).
std::unique_ptr<Op> mm(const Floats& a, const Floats& b, std::int64_t n);

/// An MLP of Linear layers with ReLU between them (and after the last one
/// when relu_last: one layer with its activation); weights[i] is
/// [dims[i+1], dims[i]] (LibTorch's Linear layout), biases[i] [dims[i+1]].
struct Mlp {
  std::vector<std::int64_t> dims;
  std::vector<Floats> weights, biases;
  bool relu_last = false;
};
std::unique_ptr<Op> mlp(const Floats& x, std::int64_t batch, const Mlp& net);

// Autograd (grad mode on, as a training loop runs): run() resets the
// gradients, computes the loss and runs backward; result() is every
// gradient, flattened and concatenated in the order of the leaves.

/// mean((mlp(x) - target)^2), backward to every weight and bias
/// (result: w0, b0, w1, b1, ...).
std::unique_ptr<Op> mlp_train(const Floats& x, std::int64_t batch, const Mlp& net, const Floats& target);
/// The 10-op elementwise chain of bench/autograd_bench.cpp, sum, backward
/// to x (result: x's gradient).
std::unique_ptr<Op> chain_train(const Floats& x);
/// `ops` multiplications y = y * a on a tiny x (requires_grad as given),
/// forward only: autograd's recording cost (result: y).
std::unique_ptr<Op> mul_chain(const Floats& x, const Floats& a, int ops, bool requires_grad);

}  // namespace torch_peer

namespace torch_peer {

// Training steps written as a LibTorch program writes them (torch::nn
// modules, torch::optim, cross_entropy): run() is one step (zero_grad,
// forward, loss, backward, optimizer step); result() starts again from the
// initial weights with a fresh optimizer, runs `check_steps` steps and
// returns every parameter (w0, b0, w1, b1, ...), so that it compares with
// kiln whatever ran before.
/// SGD(lr 0.01, momentum 0.9) or Adam(lr 1e-3), LibTorch's other defaults.
enum class Optim { sgd_momentum, adam };
std::unique_ptr<Op> mlp_classifier_train(const Floats& x, const std::vector<std::int64_t>& labels, std::int64_t batch,
                                         const Mlp& net, Optim optim, int check_steps);
/// A small CNN on [batch, 1, 28, 28] images: Conv2d(1, 16, 3, padding 1),
/// BatchNorm2d, ReLU, MaxPool2d(2), Conv2d(16, 32, 3, padding 1),
/// BatchNorm2d, ReLU, MaxPool2d(2), Flatten, Linear(1568, 10). The
/// convolutions have no bias: batch norm would subtract it again, leaving
/// it a gradient of rounding noise that Adam scales up to full steps. `params` are
/// its initial parameters in parameters() order.
std::unique_ptr<Op> cnn_classifier_train(const Floats& x, const std::vector<std::int64_t>& labels, std::int64_t batch,
                                         const std::vector<Floats>& params, Optim optim, int check_steps);
/// The same CNN in eval mode (running statistics at their initial values),
/// inference mode on: run() is one forward, result() its logits.
std::unique_ptr<Op> cnn_classifier_infer(const Floats& x, std::int64_t batch, const std::vector<Floats>& params);
/// `blocks` pre-norm residual MLP blocks on [batch, width] inputs,
/// x + Linear(hidden, width)(relu(Linear(width, hidden)(LayerNorm(x)))), then
/// Linear(width, classes), from LibTorch's own initialization (the program
/// whose memory bench/memory_bench.cpp compares; its values are not compared).
struct ResidualStack {
  int blocks;
  std::int64_t width, hidden, classes;
};
std::unique_ptr<Op> residual_stack_classifier_train(const Floats& x, const std::vector<std::int64_t>& labels,
                                                    std::int64_t batch, const ResidualStack& shape, Optim optim,
                                                    int check_steps);

}  // namespace torch_peer

namespace torch_peer {

// Elementwise math (bench/math_bench.cpp), LibTorch's eager kernels.

/// One unary op by its kiln/LibTorch name: exp, log, tanh, sigmoid, erf,
/// gelu (the exact, erf form).
std::unique_ptr<Op> unary(const std::string& name, const Floats& x);

/// The ops of a chain program; binary ones take the program's second input
/// y, `half` multiplies by 0.5.
enum class ChainOp : std::uint8_t { exp, tanh, sigmoid, sin, erf, gelu, log1p, add, sub, mul, maximum, half };
using Chain = std::vector<ChainOp>;
/// The chains a program runs in one round (round 0 is the checked one).
using ChainsOfRound = std::vector<Chain> (*)(std::uint64_t round);

/// A program of changing structure: iteration i of `iterations` applies
/// chains[i % chains.size()] to x and reads element i % x.size() of the
/// result, as a program looking at one value per iteration does. run() runs
/// the next round's chains (1, 2, ...); result() runs round 0 and returns
/// the values read.
std::unique_ptr<Op> chain_program(const Floats& x, const Floats& y, ChainsOfRound chains, int iterations);

}  // namespace torch_peer

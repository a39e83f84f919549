// LibTorch side of bench/peers/torch_peer.h: the only translation unit that
// includes LibTorch headers (C++17), so that LibTorch's compile time is paid
// once. ATen's functions are what torch:: forwards to for these ops.
#include "torch_peer.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/version.h>

#include <cstring>
#include <functional>
#include <sstream>
#include <utility>

// OpenBLAS, which Debian's LibTorch calls for mm/addmm: its threads are not
// ATen's, so set_threads() sets both.
extern "C" void openblas_set_num_threads(int);

namespace torch_peer {
namespace {

at::Tensor tensor(const Floats& v, at::IntArrayRef sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

at::Tensor tensor(const Floats& v) { return tensor(v, {static_cast<std::int64_t>(v.size())}); }

// Inference mode, as a LibTorch user serving a model runs: no autograd
// bookkeeping on any op.
class FnOp final : public Op {
 public:
  explicit FnOp(std::function<at::Tensor()> f) : f_(std::move(f)) {}
  void run() override {
    c10::InferenceMode guard;
    last_ = f_();
  }
  Floats result() override {
    at::Tensor c = last_.contiguous();
    return Floats(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }

 private:
  std::function<at::Tensor()> f_;
  at::Tensor last_;
};

std::unique_ptr<Op> op(std::function<at::Tensor()> f) { return std::make_unique<FnOp>(std::move(f)); }

Floats flat(const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  return Floats(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// A training step with autograd on: the leaves' gradients reset (to none, as
// zero_grad(set_to_none) does), loss(leaves).backward().
class TrainOp final : public Op {
 public:
  using Loss = std::function<at::Tensor(const std::vector<at::Tensor>&)>;
  TrainOp(std::vector<at::Tensor> leaves, Loss loss) : leaves_(std::move(leaves)), loss_(std::move(loss)) {
    for (at::Tensor& l : leaves_) l.requires_grad_(true);
  }
  void run() override {
    for (at::Tensor& l : leaves_) l.mutable_grad().reset();
    loss_(leaves_).backward();
  }
  Floats result() override {
    Floats out;
    for (const at::Tensor& l : leaves_) {
      Floats g = flat(l.grad());
      out.insert(out.end(), g.begin(), g.end());
    }
    return out;
  }

 private:
  std::vector<at::Tensor> leaves_;
  Loss loss_;
};

// The one line of at::show_config() that says which kernels ATen dispatches to.
std::string cpu_capability() {
  std::istringstream in(at::show_config());
  for (std::string line; std::getline(in, line);)
    if (auto p = line.find("CPU capability usage:"); p != std::string::npos) return line.substr(p + 22);
  return "unknown";
}

}  // namespace

void set_threads(int n) {
  at::set_num_threads(n);
  openblas_set_num_threads(n);
}

std::string describe() {
  std::ostringstream s;
  s << "LibTorch " << TORCH_VERSION_MAJOR << '.' << TORCH_VERSION_MINOR << '.' << TORCH_VERSION_PATCH << ", CPU capability "
    << cpu_capability();
  return s.str();
}

std::unique_ptr<Op> add(const Floats& a, const Floats& b) {
  return op([x = tensor(a), y = tensor(b)] { return x + y; });
}

std::unique_ptr<Op> gelu_chain(const Floats& v) {
  return op([x = tensor(v)] { return 0.5 * x * (1 + at::tanh(0.7978845608 * (x + 0.044715 * x * x * x))); });
}

std::unique_ptr<Op> gelu_fused(const Floats& v) {
  return op([x = tensor(v)] { return at::gelu(x, "tanh"); });
}

std::unique_ptr<Op> sum(const Floats& v) {
  return op([x = tensor(v)] { return x.sum(); });
}

std::unique_ptr<Op> softmax_rows(const Floats& v, std::int64_t rows, std::int64_t cols) {
  return op([x = tensor(v, {rows, cols})] { return at::softmax(x, 1); });
}

std::unique_ptr<Op> layer_norm(const Floats& v, std::int64_t rows, std::int64_t cols, const Floats& gamma, const Floats& beta,
                               double eps) {
  return op([x = tensor(v, {rows, cols}), g = tensor(gamma), b = tensor(beta), cols, eps] {
    return at::layer_norm(x, {cols}, g, b, eps);
  });
}

std::unique_ptr<Op> mm(const Floats& a, const Floats& b, std::int64_t n) {
  return op([x = tensor(a, {n, n}), y = tensor(b, {n, n})] { return at::mm(x, y); });
}

std::unique_ptr<Op> mlp(const Floats& x, std::int64_t batch, const Mlp& net) {
  std::vector<at::Tensor> w, b;
  for (std::size_t i = 0; i + 1 < net.dims.size(); ++i) {
    w.push_back(tensor(net.weights[i], {net.dims[i + 1], net.dims[i]}));
    b.push_back(tensor(net.biases[i]));
  }
  return op([in = tensor(x, {batch, net.dims[0]}), w, b, relu_last = net.relu_last] {
    at::Tensor h = in;
    for (std::size_t i = 0; i < w.size(); ++i) {
      h = at::linear(h, w[i], b[i]);
      if (i + 1 < w.size() || relu_last) h = at::relu(h);
    }
    return h;
  });
}

std::unique_ptr<Op> mlp_train(const Floats& x, std::int64_t batch, const Mlp& net, const Floats& target) {
  std::vector<at::Tensor> leaves;
  for (std::size_t i = 0; i + 1 < net.dims.size(); ++i) {
    leaves.push_back(tensor(net.weights[i], {net.dims[i + 1], net.dims[i]}));
    leaves.push_back(tensor(net.biases[i]));
  }
  at::Tensor in = tensor(x, {batch, net.dims.front()}), want = tensor(target, {batch, net.dims.back()});
  return std::make_unique<TrainOp>(leaves, [in, want](const std::vector<at::Tensor>& p) {
    at::Tensor h = in;
    for (std::size_t i = 0; i < p.size(); i += 2) {
      h = at::linear(h, p[i], p[i + 1]);
      if (i + 2 < p.size()) h = at::relu(h);
    }
    return (h - want).pow(2).mean();
  });
}

std::unique_ptr<Op> chain_train(const Floats& v) {
  return std::make_unique<TrainOp>(std::vector<at::Tensor>{tensor(v)}, [](const std::vector<at::Tensor>& p) {
    const at::Tensor& x = p[0];
    at::Tensor y = x * 1.5;
    y = y + 0.5;
    y = at::tanh(y);
    y = y * 2;
    y = at::sigmoid(y);
    y = y - 0.25;
    y = at::exp(y);
    y = y * x;
    y = at::sin(y);
    y = y * 0.5;
    return y.sum();
  });
}

namespace {

// Forward only, with grad mode on, so that every op records its node when
// the input requires grad.
class RecordOp final : public Op {
 public:
  RecordOp(at::Tensor x, at::Tensor a, int ops) : x_(std::move(x)), a_(std::move(a)), ops_(ops) {}
  void run() override {
    at::Tensor y = x_;
    for (int i = 0; i < ops_; ++i) y = y * a_;
    last_ = y;
  }
  Floats result() override { return flat(last_.detach()); }

 private:
  at::Tensor x_, a_, last_;
  int ops_;
};

}  // namespace

std::unique_ptr<Op> mul_chain(const Floats& x, const Floats& a, int ops, bool requires_grad) {
  at::Tensor t = tensor(x);
  t.requires_grad_(requires_grad);
  return std::make_unique<RecordOp>(t, tensor(a), ops);
}

}  // namespace torch_peer

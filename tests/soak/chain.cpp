#include "chain.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

namespace soak {
namespace {

// Each op once: its name, how kiln runs it and how the reference does.
// `y` is the chain's value so far, `x` the chain's input, `s` the scalar.
struct OpRow {
  Op op;
  const char* name;
  kiln::Tensor (*on_tensor)(const kiln::Tensor& y, const kiln::Tensor& x, double s);
  double (*on_double)(double y, double x, double s);
};

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

constexpr std::array<OpRow, 11> kOps{{
    {Op::Exp, "exp", [](const kiln::Tensor& y, const kiln::Tensor&, double) { return y.exp(); },
     [](double y, double, double) { return std::exp(y); }},
    {Op::Tanh, "tanh", [](const kiln::Tensor& y, const kiln::Tensor&, double) { return y.tanh(); },
     [](double y, double, double) { return std::tanh(y); }},
    {Op::Log1p, "log1p", [](const kiln::Tensor& y, const kiln::Tensor&, double) { return y.log1p(); },
     [](double y, double, double) { return std::log1p(y); }},
    {Op::Sigmoid, "sigmoid", [](const kiln::Tensor& y, const kiln::Tensor&, double) { return y.sigmoid(); },
     [](double y, double, double) { return sigmoid(y); }},
    {Op::Sin, "sin", [](const kiln::Tensor& y, const kiln::Tensor&, double) { return y.sin(); },
     [](double y, double, double) { return std::sin(y); }},
    {Op::Relu, "relu", [](const kiln::Tensor& y, const kiln::Tensor&, double) { return y.relu(); },
     [](double y, double, double) { return y > 0 ? y : 0.0; }},
    {Op::Abs, "abs", [](const kiln::Tensor& y, const kiln::Tensor&, double) { return y.abs(); },
     [](double y, double, double) { return std::fabs(y); }},
    {Op::MulScalar, "mul", [](const kiln::Tensor& y, const kiln::Tensor&, double s) { return y * s; },
     [](double y, double, double s) { return y * s; }},
    {Op::AddScalar, "add", [](const kiln::Tensor& y, const kiln::Tensor&, double s) { return y + s; },
     [](double y, double, double s) { return y + s; }},
    {Op::MulInput, "mul_input", [](const kiln::Tensor& y, const kiln::Tensor& x, double) { return y * x; },
     [](double y, double x, double) { return y * x; }},
    {Op::AddInput, "add_input", [](const kiln::Tensor& y, const kiln::Tensor& x, double) { return y + x; },
     [](double y, double x, double) { return y + x; }},
}};

const OpRow& row(Op op) { return kOps[static_cast<std::size_t>(op)]; }

bool takes_scalar(Op op) { return op == Op::MulScalar || op == Op::AddScalar; }

// Scalars on a 1/8 grid: reproducible in messages, exact in float.
double random_scalar(std::mt19937_64& rng, Op op) {
  std::uniform_int_distribution<int> eighths = op == Op::MulScalar ? std::uniform_int_distribution<int>(4, 12)
                                                                   : std::uniform_int_distribution<int>(-8, 8);
  return eighths(rng) / 8.0;
}

Step random_step(std::mt19937_64& rng, Op op) { return {op, takes_scalar(op) ? random_scalar(rng, op) : 0.0}; }

std::vector<std::int64_t> random_shape(std::mt19937_64& rng) {
  if (std::bernoulli_distribution(0.5)(rng)) return {std::uniform_int_distribution<std::int64_t>(1, 4096)(rng)};
  std::uniform_int_distribution<std::int64_t> side(1, 64);
  return {side(rng), side(rng)};
}

Chain with_shape(std::vector<Step> steps, std::mt19937_64& rng) {
  Chain c{std::move(steps), random_shape(rng), 0};
  std::int64_t n = 1;
  for (std::int64_t d : c.shape) n *= d;
  c.read_at = std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng);
  return c;
}

int random_length(std::mt19937_64& rng) { return std::uniform_int_distribution<int>(2, 12)(rng); }

Op random_op(std::mt19937_64& rng) {
  return static_cast<Op>(std::uniform_int_distribution<std::size_t>(0, kOps.size() - 1)(rng));
}

}  // namespace

float Chain::run(const kiln::Tensor& input) const {
  kiln::Tensor y = input;
  for (const Step& s : steps) y = row(s.op).on_tensor(y, input, s.scalar);
  return y.flatten().select(0, read_at).item<float>();
}

Chain::Reference Chain::reference(double x) const {
  Reference r{x, std::fabs(x)};
  for (const Step& s : steps) {
    r.value = row(s.op).on_double(r.value, x, s.scalar);
    r.scale = std::max(r.scale, std::fabs(r.value));
  }
  return r;
}

std::string Chain::describe() const {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << ']';
  for (const Step& s : steps) {
    out << ' ' << row(s.op).name;
    if (takes_scalar(s.op)) out << '(' << s.scalar << ')';
  }
  return out.str();
}

Chain random_chain(std::mt19937_64& rng) {
  std::vector<Step> steps;
  for (int i = random_length(rng); i > 0; --i) steps.push_back(random_step(rng, random_op(rng)));
  return with_shape(std::move(steps), rng);
}

Chain checkable_chain(std::mt19937_64& rng) {
  std::vector<Step> steps;
  for (int i = random_length(rng); i > 0; --i) {
    Op op = random_op(rng);
    const bool squashed = !steps.empty() && steps.back().op == Op::Sigmoid;
    if ((op == Op::Exp || op == Op::Log1p) && !squashed) steps.push_back({Op::Sigmoid});
    steps.push_back(random_step(rng, op));
  }
  return with_shape(std::move(steps), rng);
}

}  // namespace soak

// The op structures the soak program runs: elementwise chains over one input
// tensor (unary ops, scalar mul/add, mul/add with the input again), each
// with a double reference of the same steps.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace soak {

enum class Op : std::uint8_t { Exp, Tanh, Log1p, Sigmoid, Sin, Relu, Abs, MulScalar, AddScalar, MulInput, AddInput };

struct Step {
  Op op;
  double scalar = 0;  // MulScalar and AddScalar only
};

struct Chain {
  std::vector<Step> steps;
  std::vector<std::int64_t> shape;  // {n} or {a, b}
  std::int64_t read_at = 0;          // the flat index of the one value read back

  /// Applies the steps to `input` (of `shape`); returns the value at read_at.
  float run(const kiln::Tensor& input) const;
  /// The same steps in double on input value `x` (the element at read_at);
  /// `scale` is the largest magnitude on the way, which float rounding
  /// errors are relative to.
  struct Reference {
    double value;
    double scale;
  };
  Reference reference(double x) const;
  /// "[4, 7] tanh mul(0.5) exp", for messages.
  std::string describe() const;
};

/// A chain of 2 to 12 steps drawn from every op (values may overflow or go
/// NaN: nobody checks them), over a random shape of up to 4096 elements.
Chain random_chain(std::mt19937_64& rng);

/// A chain whose values stay small and defined on randn inputs (exp and
/// log1p only after a sigmoid), so the float result can be checked against
/// the double reference.
Chain checkable_chain(std::mt19937_64& rng);

}  // namespace soak

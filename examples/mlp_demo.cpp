// A small MLP evaluated over generated data, batch after batch, the way an
// inference loop is written against LibTorch: a "teacher" network labels
// random inputs, a perturbed "student" copy is scored on them (accuracy and
// cross-entropy). Every op is recorded and run at the .item() reads; the
// counters at the end show the segments, their keys and the memory used.
//
// Usage: mlp_demo [BATCHES] (default 200). To watch it live, run it longer
// with a stats file and point the dashboard at it:
//   KILN_STATS=/tmp/mlp.json mlp_demo 50000 &  kiln stat /tmp/mlp.json
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <iostream>

#include <kiln/kiln.h>

namespace F = kiln::nn::functional;

struct Mlp {
  kiln::Tensor w1, b1, w2, b2;

  kiln::Tensor forward(const kiln::Tensor& x) const {
    return F::linear(F::gelu(F::linear(x, w1, b1)), w2, b2);
  }

  static Mlp random(int in, int hidden, int out) {
    return {kiln::randn({hidden, in}) / std::sqrt(double(in)), kiln::zeros({hidden}),
            kiln::randn({out, hidden}) / std::sqrt(double(hidden)), kiln::zeros({out})};
  }

  Mlp perturbed(double noise) const {
    auto jitter = [noise](const kiln::Tensor& t) { return t + noise * kiln::randn_like(t); };
    return {jitter(w1), b1, jitter(w2), b2};
  }
};

int main(int argc, char** argv) {
  kiln::manual_seed(42);
  const int batches = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  const int batch = 256, in = 64, hidden = 256, classes = 10;
  Mlp teacher = Mlp::random(in, hidden, classes);
  Mlp student = teacher.perturbed(0.01);

  double correct = 0, loss_sum = 0;
  for (int i = 0; i < batches; ++i) {
    kiln::Tensor x = kiln::randn({batch, in});
    kiln::Tensor labels = teacher.forward(x).argmax(1);
    kiln::Tensor logits = student.forward(x);
    // Cross-entropy: mean of -log_softmax at the label.
    kiln::Tensor nll = -logits.log_softmax(1).gather(1, labels.unsqueeze(1)).mean();
    correct += (logits.argmax(1) == labels).sum().item<std::int64_t>();
    loss_sum += nll.item<float>();
  }
  std::printf("student vs teacher over %d x %d samples: accuracy %.2f%%, cross-entropy %.4f\n", batches, batch,
              100.0 * correct / (batches * batch), loss_sum / batches);
  std::cout << kiln::stats();
  return 0;
}

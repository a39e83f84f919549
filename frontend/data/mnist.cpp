#include <kiln/data/datasets/mnist.h>

#include <cstdint>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/data/idx_file.h"

namespace kiln::data::datasets {

namespace {

using kiln::detail::cat;

std::string join(const std::string& root, const char* name) {
  if (root.empty() || root.back() == '/') return root + name;
  return root + "/" + name;
}

// float32 [N, 1, rows, cols] in [0, 1], as LibTorch scales the bytes.
Tensor to_images(const detail::IdxFile& idx) {
  Tensor images = empty({idx.sizes[0], 1, idx.sizes[1], idx.sizes[2]}, kFloat32);
  if (idx.bytes.empty()) return images;
  float* out = images.data_ptr<float>();
  for (std::size_t i = 0; i < idx.bytes.size(); ++i) out[i] = static_cast<float>(idx.bytes[i]) / 255.0f;
  return images;
}

Tensor to_targets(const detail::IdxFile& idx) {
  Tensor targets = empty({idx.sizes[0]}, kInt64);
  if (idx.bytes.empty()) return targets;
  std::int64_t* out = targets.data_ptr<std::int64_t>();
  for (std::size_t i = 0; i < idx.bytes.size(); ++i) out[i] = idx.bytes[i];
  return targets;
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode) : train_(mode == Mode::kTrain) {
  const char* prefix = train_ ? "train" : "t10k";
  const detail::IdxFile images = detail::read_idx(join(root, prefix) + "-images-idx3-ubyte", 3, "MNIST");
  const detail::IdxFile labels = detail::read_idx(join(root, prefix) + "-labels-idx1-ubyte", 1, "MNIST");
  if (images.sizes[0] != labels.sizes[0])
    throw IOError(cat("[MNIST] ", images.path, " holds ", images.sizes[0], " images but ", labels.path, " holds ",
                      labels.sizes[0], " labels"));
  images_ = to_images(images);
  targets_ = to_targets(labels);
}

Example<> MNIST::get(std::size_t index) {
  const auto i = static_cast<std::int64_t>(index);
  return {images_.select(0, i), targets_.select(0, i)};
}

std::optional<std::size_t> MNIST::size() const { return static_cast<std::size_t>(images_.size(0)); }

bool MNIST::is_train() const noexcept { return train_; }

const Tensor& MNIST::images() const { return images_; }

const Tensor& MNIST::targets() const { return targets_; }

}  // namespace kiln::data::datasets

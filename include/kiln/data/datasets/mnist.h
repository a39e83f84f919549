// datasets::MNIST: the MNIST digits (or any dataset in its IDX layout, such
// as Fashion-MNIST), read from the four files of Yann LeCun's distribution
// in `root`: train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte. Each file may also be
// gzip-compressed with a ".gz" suffix, as the files are downloaded (LibTorch
// reads only uncompressed files).
//
// The whole split is read at construction into two tensors, as LibTorch
// does: images float32 [N, 1, rows, cols] scaled to [0, 1] and targets
// int64 [N]. A file that is missing, unreadable, truncated, of the wrong
// kind (magic number) or that disagrees with its partner on the number of
// examples throws kiln::IOError naming the file and what was expected.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <kiln/data/datasets/base.h>
#include <kiln/data/example.h>
#include <kiln/frontend/tensor.h>

namespace kiln::data::datasets {

class MNIST : public Dataset<MNIST> {
 public:
  /// Which split: the 60000 training or the 10000 test examples.
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  /// {image [1, rows, cols], target []} of example `index` (views, no copy).
  Example<> get(std::size_t index) override;
  std::optional<std::size_t> size() const override;
  bool is_train() const noexcept;
  /// All images, float32 [N, 1, rows, cols] in [0, 1].
  const Tensor& images() const;
  /// All labels, int64 [N].
  const Tensor& targets() const;

 private:
  Tensor images_, targets_;
  bool train_;
};

}  // namespace kiln::data::datasets

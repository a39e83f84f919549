// A data loader with worker threads: each worker records its examples' ops
// into its own trace buffer and runs them before handing the batch over;
// the consumer computes on batches while the workers build the next ones,
// and an epoch abandoned midway leaves no worker touching freed state.
// Small and deterministic, as CI runs this suite under ThreadSanitizer.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;
namespace data = kiln::data;

/// Example i is computed with kiln ops on whichever thread asks for it:
/// data = relu(arange(4) * i + 1) as a [1, 2, 2] image, target = i.
struct Computed : data::datasets::Dataset<Computed> {
  data::Example<> get(std::size_t index) override {
    Tensor image = (kiln::arange(4, kiln::kFloat32) * static_cast<double>(index) + 1).relu().reshape({1, 2, 2});
    return {image, kiln::scalar_tensor(static_cast<std::int64_t>(index))};
  }
  std::optional<std::size_t> size() const override { return 24; }
};

TEST(DataLoaderThreads, WorkersBuildBatchesTheConsumerComputesOn) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Computed().map(data::transforms::Normalize<>(1.0, 2.0)).map(data::transforms::Stack<>()),
      data::DataLoaderOptions(5).workers(2).max_jobs(3));
  for (int round = 0; round < 2; ++round) {
    std::int64_t seen = 0;
    for (auto& batch : *loader) {
      // Normalized, an image sums to sum((arange(4) * i + 1 - 1) / 2) = 3 * i.
      std::vector<float> row_sums = batch.data.sum({1, 2, 3}).to_vector<float>();
      std::vector<std::int64_t> targets = batch.target.to_vector<std::int64_t>();
      ASSERT_EQ(row_sums.size(), targets.size());
      for (std::size_t k = 0; k < targets.size(); ++k) {
        EXPECT_EQ(targets[k], seen);
        EXPECT_EQ(row_sums[k], 3.0f * static_cast<float>(seen));
        ++seen;
      }
    }
    EXPECT_EQ(seen, 24) << "round " << round;
  }
}

TEST(DataLoaderThreads, AbandonedEpochAndDestructionWithBatchesInFlight) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Computed().map(data::transforms::Stack<>()), data::DataLoaderOptions(2).workers(2).max_jobs(4));
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1}));
    break;
  }
  auto it = loader->begin();
  EXPECT_EQ(it->target.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1}));
  loader.reset();  // joins the workers while they may still build batches 2 to 4
}

}  // namespace

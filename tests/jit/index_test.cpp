// index_select and gather against plain loops; bad indices throw IndexError.
#include <kiln/error.h>

#include "tests/jit/op_checks.h"

namespace kiln::jit::testing {
namespace {

TEST(IndexKernels, IndexSelectAlongEachDimEveryType) {
  for_each_type<bool, std::int32_t, std::int64_t, float, double>([]<class T>() {
    const ScalarType t = dtype_of<T>();
    std::vector<T> src(3 * 4);
    for (int i = 0; i < 12; ++i) src[i] = static_cast<T>(i % 5);
    const std::vector<std::int64_t> index = {2, 0, 2, 1, 0};
    for (int dim : {0, 1}) {
      SegmentBuilder b;
      const auto x = b.input(src), idx = b.input(index);
      const std::int64_t rows = dim == 0 ? 5 : 3, cols = dim == 0 ? 4 : 5;
      const auto y = b.value(static_cast<std::size_t>(rows * cols) * sizeof(T));
      b.node(OpId::IndexSelect, t, b.view(y, t, contiguous({rows, cols})),
             {b.view(x, t, contiguous({3, 4})), b.view(idx, kInt64, contiguous({5}))}, dim);
      b.run();
      const auto got = b.read<T>(y);
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          const T want = dim == 0 ? src[index[i] * 4 + j] : src[i * 4 + index[j]];
          EXPECT_EQ(got[i * cols + j], want) << t << " dim " << dim << " at " << i << "," << j;
        }
    }
  });
}

TEST(IndexKernels, IndexSelectFromATransposedSourceWithAStridedIndex) {
  SegmentBuilder b;
  std::vector<float> stored(12);  // source [4, 3] stored as its transpose [3, 4]
  for (int i = 0; i < 12; ++i) stored[i] = static_cast<float>(i);
  const auto x = b.input(stored);
  const auto idx = b.input(std::vector<std::int64_t>{3, -9, 0, -9, 3});  // every other element is used
  const auto y = b.value(3 * 3 * 4);
  b.node(OpId::IndexSelect, kFloat32, b.view(y, kFloat32, contiguous({3, 3})),
         {b.view(x, kFloat32, transposed(contiguous({3, 4}))), b.view(idx, kInt64, strided({3}, {2}))}, 0);
  b.run();
  const auto got = b.read<float>(y);
  const int rows[] = {3, 0, 3};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(got[i * 3 + j], stored[j * 4 + rows[i]]) << i << "," << j;
}

TEST(IndexKernels, GatherAlongEachDim) {
  const std::vector<double> src = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // [3, 4]
  const std::vector<std::int64_t> index = {3, 0, 1, 1, 2, 0};             // [2, 3]
  for (int dim : {0, 1}) {
    std::vector<std::int64_t> idx = index;
    if (dim == 0)
      for (auto& v : idx) v %= 3;
    SegmentBuilder b;
    const auto x = b.input(src), i = b.input(idx);
    const auto y = b.value(6 * 8);
    b.node(OpId::Gather, kFloat64, b.view(y, kFloat64, contiguous({2, 3})),
           {b.view(x, kFloat64, contiguous({3, 4})), b.view(i, kInt64, contiguous({2, 3}))}, dim);
    b.run();
    const auto got = b.read<double>(y);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c) {
        const std::int64_t v = idx[r * 3 + c];
        EXPECT_EQ(got[r * 3 + c], dim == 0 ? src[v * 4 + c] : src[r * 4 + v]) << dim << ": " << r << "," << c;
      }
  }
}

TEST(IndexKernels, OutOfRangeIndexThrowsIndexErrorBeforeWriting) {
  for (std::int64_t bad : {5, 7, -1}) {
    SegmentBuilder b;
    const auto x = b.input(std::vector<float>{1, 2, 3, 4, 5});
    const auto i = b.input(std::vector<std::int64_t>{0, bad, 1});
    const auto y = b.input(std::vector<float>{-1, -1, -1});
    b.node(OpId::IndexSelect, kFloat32, b.view(y, kFloat32, contiguous({3})),
           {b.view(x, kFloat32, contiguous({5})), b.view(i, kInt64, contiguous({3}))}, 0);
    try {
      b.run();
      FAIL() << "no error for index " << bad;
    } catch (const IndexError& e) {
      EXPECT_EQ(std::string(e.what()),
                "[index_select] index " + std::to_string(bad) + " is out of bounds for dimension 0 with size 5");
    }
    EXPECT_EQ(b.read<float>(y), (std::vector<float>{-1, -1, -1}));
  }
  SegmentBuilder b;
  const auto x = b.input(std::vector<float>(6, 0));
  const auto i = b.input(std::vector<std::int64_t>{0, 3});
  const auto y = b.value(8);
  b.node(OpId::Gather, kFloat32, b.view(y, kFloat32, contiguous({2, 1})),
         {b.view(x, kFloat32, contiguous({2, 3})), b.view(i, kInt64, contiguous({2, 1}))}, 1);
  EXPECT_THROW(b.run(), IndexError);
}

TEST(IndexKernels, Int32IndicesAreWidened) {
  SegmentBuilder b;
  const auto x = b.input(std::vector<std::int64_t>{10, 20, 30});
  const auto i = b.input(std::vector<std::int32_t>{2, 2, 0});
  const auto y = b.value(24);
  b.node(OpId::IndexSelect, kInt64, b.view(y, kInt64, contiguous({3})),
         {b.view(x, kInt64, contiguous({3})), b.view(i, kInt32, contiguous({3}))}, 0);
  b.run();
  EXPECT_EQ(b.read<std::int64_t>(y), (std::vector<std::int64_t>{30, 30, 10}));
}

}  // namespace
}  // namespace kiln::jit::testing

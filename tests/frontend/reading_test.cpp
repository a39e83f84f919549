// Reading values: item<T>() and item() (a Scalar of the right kind),
// to_vector<T>() conversions, data_ptr<T>() of tensors and views,
// operator<< (LibTorch's type line), and bool conversion.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Tensor;

std::string print(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

TEST(Reading, ItemConvertsToTheRequestedType) {
  Tensor f = kiln::tensor({2.75f});
  EXPECT_EQ(f.item<float>(), 2.75f);
  EXPECT_EQ(f.item<double>(), 2.75);
  EXPECT_EQ(f.item<std::int64_t>(), 2);
  EXPECT_EQ(kiln::tensor({-2.75f}).item<std::int32_t>(), -2);
  EXPECT_TRUE(f.item<bool>());
  EXPECT_EQ(kiln::tensor({7}).item<double>(), 7.0);
  EXPECT_EQ(kiln::tensor({true}).item<int>(), 1);
  EXPECT_EQ(kiln::ones({1, 1, 1}).item<float>(), 1.0f);  // one element, any rank
}

TEST(Reading, ItemScalarKeepsTheCategory) {
  kiln::Scalar i = kiln::tensor({7}).item();
  EXPECT_TRUE(i.is_integral());
  EXPECT_EQ(i.to_long(), 7);
  kiln::Scalar f = kiln::scalar_tensor(0.5, kiln::kFloat64).item();
  EXPECT_TRUE(f.is_floating_point());
  EXPECT_EQ(f.to_double(), 0.5);
  kiln::Scalar b = kiln::tensor({true}).item();
  EXPECT_TRUE(b.is_bool());
  EXPECT_TRUE(b.to_bool());
}

TEST(Reading, ToVectorConvertsAndFollowsTheViewsOrder) {
  Tensor x = kiln::tensor({{1.5, -2.5}, {3.0, 4.25}}, kiln::kFloat64);
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{1.5, -2.5, 3.0, 4.25}));
  EXPECT_EQ(x.t().to_vector<double>(), (std::vector<double>{1.5, 3.0, -2.5, 4.25}));
  EXPECT_EQ(x.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, -2, 3, 4}));
  EXPECT_EQ(x.to_vector<bool>(), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(kiln::tensor({true, false}).to_vector<float>(), (std::vector<float>{1, 0}));
  EXPECT_EQ(x.select(1, 1).to_vector<float>(), (std::vector<float>{-2.5f, 4.25f}));
  EXPECT_EQ(kiln::ones({2, 2}).expand({3, 2, 2}).to_vector<float>().size(), 12u);
}

TEST(Reading, DataPtrOfContiguousTensorsAndViews) {
  Tensor x = kiln::arange(12, kiln::kInt32).reshape({3, 4});
  const std::int32_t* p = x.data_ptr<std::int32_t>();
  for (int i = 0; i < 12; ++i) EXPECT_EQ(p[i], i);
  Tensor row = x.select(0, 2);
  EXPECT_EQ(row.data_ptr<std::int32_t>(), p + 8);
  Tensor col = x.t().select(0, 1);  // column 1: stride 4
  EXPECT_EQ(col.data_ptr<std::int32_t>(), p + 1);
  EXPECT_EQ(col.stride(0), 4);
  EXPECT_EQ(col.data_ptr<std::int32_t>()[4], 5);
}

TEST(Reading, PrintingShowsValuesAndLibTorchsTypeLine) {
  std::string m = print(kiln::arange(6, kiln::kFloat32).reshape({2, 3}));
  EXPECT_NE(m.find("[ CPUFloatType{2,3} ]"), std::string::npos) << m;
  EXPECT_NE(m.find('5'), std::string::npos) << m;
  EXPECT_NE(print(kiln::tensor({1, 2})).find("[ CPULongType{2} ]"), std::string::npos);
  EXPECT_NE(print(kiln::tensor({1}, kiln::kInt32)).find("CPUIntType{1}"), std::string::npos);
  EXPECT_NE(print(kiln::tensor({true})).find("CPUBoolType{1}"), std::string::npos);
  EXPECT_NE(print(kiln::scalar_tensor(2.5, kiln::kFloat64)).find("[ CPUDoubleType{} ]"), std::string::npos);
  EXPECT_NE(print(kiln::zeros({0, 3})).find("CPUFloatType{0,3}"), std::string::npos);
}

// The exact text LibTorch prints for the same tensors.
TEST(Reading, PrintingMatchesLibTorchCharacterForCharacter) {
  EXPECT_EQ(print(kiln::arange(6, kiln::kFloat32).view({2, 3}) / 3),
            " 0.0000  0.3333  0.6667\n 1.0000  1.3333  1.6667\n[ CPUFloatType{2,3} ]");
  EXPECT_EQ(print(kiln::tensor({1, 2, 3})), " 1\n 2\n 3\n[ CPULongType{3} ]");
  EXPECT_EQ(print(kiln::tensor({-1.5, 20.25})), " -1.5000\n 20.2500\n[ CPUFloatType{2} ]");
  EXPECT_EQ(print(kiln::tensor({1.5}).sum()), "1.5\n[ CPUFloatType{} ]");
  EXPECT_EQ(print(kiln::tensor({true, false})), " 1\n 0\n[ CPUBoolType{2} ]");
  EXPECT_EQ(print(kiln::tensor({123456.5, 100000.25})), "1e+05 *\n 1.2346\n 1.0000\n[ CPUFloatType{2} ]");
  EXPECT_EQ(print(kiln::tensor({1e-8, 1.0})), " 1.0000e-08\n 1.0000e+00\n[ CPUFloatType{2} ]");
  EXPECT_EQ(print(kiln::tensor({std::nan(""), 2.0})), "nan\n 2\n[ CPUFloatType{2} ]");
  EXPECT_EQ(print(kiln::zeros({0})), "[ CPUFloatType{0} ]");
  // More than 2 dims: one matrix per leading index, 1-based, first index fastest.
  EXPECT_EQ(print(kiln::arange(8).view({2, 2, 2})),
            "(1,.,.) = \n  0  1\n  2  3\n\n(2,.,.) = \n  4  5\n  6  7\n[ CPULongType{2,2,2} ]");
  EXPECT_EQ(print(kiln::arange(4).view({2, 2, 1, 1})),
            "(1,1,.,.) = \n  0\n\n(2,1,.,.) = \n  2\n\n(1,2,.,.) = \n  1\n\n(2,2,.,.) = \n  3\n"
            "[ CPULongType{2,2,1,1} ]");
  // Wider than 80 characters: column blocks.
  const std::string wide = print(kiln::arange(15, kiln::kFloat32).view({1, 15}) / 7);
  EXPECT_EQ(wide.substr(0, 24), "Columns 1 to 10 0.0000  ");
  EXPECT_NE(wide.find("\nColumns 11 to 15 1.4286  1.5714"), std::string::npos) << wide;
  // The stream's own format is restored.
  std::ostringstream out;
  out << std::setprecision(2) << kiln::tensor({0.123456}) << " " << 3.14159;
  EXPECT_EQ(out.str(), " 0.1235\n[ CPUFloatType{1} ] 3.1");
}

TEST(Reading, PrintingAViewPrintsTheViewsValues) {
  Tensor x = kiln::tensor({{1, 2}, {3, 4}});
  std::string s = print(x.t() * 10);  // [[10, 30], [20, 40]]
  EXPECT_LT(s.find("10"), s.find("30"));
  EXPECT_LT(s.find("30"), s.find("20"));
  EXPECT_LT(s.find("20"), s.find("40"));
}

TEST(Reading, BoolConversionOfOneElement) {
  EXPECT_TRUE(static_cast<bool>(kiln::ones({1}) > 0));
  EXPECT_FALSE(static_cast<bool>(kiln::zeros({1, 1})));
  EXPECT_TRUE(static_cast<bool>(kiln::scalar_tensor(-0.5)));
  int taken = 0;
  if (kiln::tensor({3}).eq(3)) ++taken;
  EXPECT_EQ(taken, 1);
}

TEST(Reading, QueriesDoNotNeedTheValues) {
  Tensor x = kiln::ones({2, 3, 4}, kiln::kFloat64).permute({2, 0, 1});
  EXPECT_EQ(x.dim(), 3);
  EXPECT_EQ(x.numel(), 24);
  EXPECT_EQ(x.size(-1), 3);
  EXPECT_EQ(x.size(0), 4);
  EXPECT_EQ(x.stride(0), 1);
  EXPECT_EQ(x.element_size(), 8u);
  EXPECT_EQ(x.scalar_type(), kiln::kFloat64);
  EXPECT_TRUE(x.is_floating_point());
  EXPECT_FALSE(kiln::ones({2}, kiln::kInt32).is_floating_point());
  EXPECT_EQ(x.options().dtype(), kiln::kFloat64);
  EXPECT_TRUE(x.defined());
  EXPECT_FALSE(Tensor().defined());
}

}  // namespace

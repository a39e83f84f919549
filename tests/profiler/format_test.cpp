#include <gtest/gtest.h>

#include <cstdint>

#include "profiler/format.h"

namespace kiln::profiler {
namespace {

TEST(ProfilerFormat, BytesInBinaryUnits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.00 KiB");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes((1 << 20) - 1), "1.00 MiB");  // not "1024.00 KiB"
  EXPECT_EQ(format_bytes(std::uint64_t{60} << 20), "60.00 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 29), "1.50 GiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 40), "1.00 TiB");
  EXPECT_EQ(format_bytes(UINT64_MAX), "16.00 EiB");
}

}  // namespace
}  // namespace kiln::profiler

// libFuzzer target: the tuning database reader (autotune/tuning_db_format.*).
// Any bytes are either refused with std::runtime_error or read as entries that
// write back to a file that reads as the same entries.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "autotune/tuning_db_format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kiln::autotune;
  const TuningContext context{"cpu", "avx2", "0.1.0", "19.1"};
  TuningEntries entries;
  try {
    entries = detail::parse_tuning_db(std::string_view(reinterpret_cast<const char*>(data), size), context);
  } catch (const std::runtime_error&) {
    return 0;
  }
  const TuningEntries again = detail::parse_tuning_db(detail::format_tuning_db(entries, context), context);
  if (again.size() != entries.size()) std::abort();
  return 0;
}

// libFuzzer target for the settings parsers: arbitrary bytes go to every
// parser; a parser may accept them or throw kiln::ValueError, nothing else
// (any other exception, a crash or a sanitizer report is a finding).
// Not a GoogleTest suite (tests/CMakeLists.txt skips tests/fuzz/); built
// and run by `make fuzz` (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <kiln/setting_parsers.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace s = kiln::settings;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto each = [&](auto parse) {
    try {
      parse();
    } catch (const kiln::ValueError&) {
      // the expected answer to bad text
    }
  };
  each([&] { s::parse_int("KILN_FUZZ", text, INT64_MIN, INT64_MAX); });
  each([&] { s::parse_int("KILN_FUZZ", text, 1, 1 << 16); });
  each([&] { s::parse_bytes("KILN_FUZZ", text); });
  each([&] { s::parse_bool("KILN_FUZZ", text); });
  each([&] { s::parse_duration("KILN_FUZZ", text, s::TimeUnit::Milliseconds, 1); });
  each([&] { s::parse_duration("KILN_FUZZ", text, s::TimeUnit::Seconds, 0); });
  each([&] { s::parse_choice("KILN_FUZZ", text, "0|1|online"); });
  each([&] { s::parse_list("KILN_FUZZ", text, "spec|ir|opt|asm"); });
  each([&] { s::parse_path("KILN_FUZZ", text); });
  return 0;
}

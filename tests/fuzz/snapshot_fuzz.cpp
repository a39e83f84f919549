// libFuzzer target: `kiln stat`'s reading of a stats snapshot. Any bytes must
// give a status (never a crash), and a snapshot that reads as Ok must draw a
// dashboard frame, which reads every field it shows through the lax view.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/dashboard.h"
#include "tools/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kiln::tools;
  Snapshot s = read_snapshot("fuzz.json", std::string(reinterpret_cast<const char*>(data), size));
  if (s.status != SnapshotStatus::Ok) return 0;
  View view;
  view.width = 100;
  view.height = 40;
  view.now_ms = s.written_at_ms();
  (void)render_dashboard(s, &s, view);
  return 0;
}

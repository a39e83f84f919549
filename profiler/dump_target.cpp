#include "profiler/dump_target.h"

#include <mutex>

#include "profiler/settings/settings.h"

namespace kiln::profiler {
namespace {

using settings::Id;

struct Slot {
  std::mutex mutex;
  DumpTarget target;
};

// Read when libkiln loads, like the other variables a compile thread
// needs: a bad value is thrown to the user's thread at its first op, not
// into a background compile.
Slot& slot() {
  static Slot* s = [] {
    auto* fresh = new Slot;  // compile tasks may read it while the process exits
    fresh->target.stages = settings::read_at_load(Id::Dump, [] { return settings::read_text(Id::Dump); }, std::string());
    fresh->target.dir = settings::read_at_load(Id::DumpDir, [] { return settings::read_text(Id::DumpDir); }, std::string("."));
    return fresh;
  }();
  return *s;
}

const bool g_read_at_load = (slot(), true);

}  // namespace

DumpTarget dump_target() {
  Slot& s = slot();
  std::lock_guard lock(s.mutex);
  return s.target;
}

void set_dump_target(const std::string& stages, const std::string& dir) {
  if (!stages.empty()) settings::validate(Id::Dump, stages);
  if (!dir.empty()) settings::validate(Id::DumpDir, dir);
  Slot& s = slot();
  std::lock_guard lock(s.mutex);
  s.target = {stages, dir.empty() ? "." : dir};
  settings::clear_load_error(Id::Dump);
  settings::clear_load_error(Id::DumpDir);
}

bool dumps_stage(std::string_view stages, std::string_view stage) {
  while (!stages.empty()) {
    const std::size_t comma = stages.find(',');
    const std::string_view head = stages.substr(0, comma);
    if (head == stage || head == "all") return true;
    if (comma == std::string_view::npos) break;
    stages.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace kiln::profiler

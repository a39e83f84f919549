// resolve(): see resolve.h.
#include "autotune/resolve.h"

namespace kiln::autotune {

Config resolve(const std::optional<Config>& explicit_config, const TuningDb* db, const std::string& key,
               const ConfigSpace& space, const std::function<Config()>& heuristic) {
  if (explicit_config) return *explicit_config;
  if (db != nullptr) {
    // A config outside the space was tuned for another version of the kernel family.
    if (std::optional<TuningEntry> entry = db->lookup(key); entry && space.contains(entry->config)) {
      return entry->config;
    }
  }
  return heuristic();
}

}  // namespace kiln::autotune

#include <cstdlib>

#include "tools/commands.h"

namespace kiln::tools {

std::string stats_path_option(Args& args) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--stats") {
      std::string path = args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      return path;
    }
  }
  const char* env = std::getenv("KILN_STATS");
  return env ? env : "";
}

}  // namespace kiln::tools

#include <optional>
#include <string>

#include <kiln/setting_parsers.h>

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
  const std::optional<std::string> env = settings::environment("KILN_STATS");
  return env ? settings::parse_path("KILN_STATS", *env) : "";
}

}  // namespace kiln::tools

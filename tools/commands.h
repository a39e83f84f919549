// The subcommands of the `kiln` program. Each takes its arguments (after
// the subcommand's name), prints to stdout/stderr and returns the exit
// status: 0 done, 1 bad file or failed action, 2 bad usage.
#pragma once

#include <string>
#include <vector>

namespace kiln::tools {

using Args = std::vector<std::string>;

int stat_command(const Args& args);
int explain_command(const Args& args);
int cache_command(const Args& args);
/// Executes kiln-tune (installed beside this program) with these arguments;
/// returns only if that fails.
int tune_command(int argc, char** argv);

/// The snapshot path: `--stats PATH` if given (removed from args), else KILN_STATS; "" if neither.
std::string stats_path_option(Args& args);

}  // namespace kiln::tools

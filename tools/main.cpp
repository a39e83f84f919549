// The `kiln` command-line program: the dashboard and inspection of a
// running (or finished) kiln program's stats snapshot, and the kernel cache.
#include <cstdlib>
#include <iostream>

#include <kiln/error.h>
#include <kiln/version.h>

#include "tools/commands.h"

namespace {

const char* kUsage =
    "usage: kiln <command> [options]\n"
    "  stat [PATH] [--once|--json] [--interval S]  live dashboard of a program run with KILN_STATS=PATH\n"
    "  explain KEY [--stats PATH]                  ops, fused groups, state and IR of a segment or kernel\n"
    "  cache ls|stat|clear [--dir DIR]             the on-disk kernel cache\n"
    "  tune KERNEL SHAPE ... | ls | clear          tune kernels on this machine (kiln tune --help)\n"
    "  version                                     kiln's version\n";

int run(int argc, char** argv) {
  using namespace kiln::tools;
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string command = argv[1];
  Args args(argv + 2, argv + argc);
  if (command == "stat") return stat_command(args);
  if (command == "explain") return explain_command(args);
  if (command == "cache") return cache_command(args);
  if (command == "tune") return tune_command(argc - 2, argv + 2);
  if (command == "version" || command == "--version") {
    std::cout << "kiln " << kiln::kVersion << "\n";
    return 0;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "kiln: unknown command '" << command << "'\n" << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const kiln::ValueError& e) {  // a malformed KILN_* variable
    std::cerr << "kiln: " << e.what() << "\n";
    return 2;
  }
}

// `kiln tune ...`: tuning runs kiln's kernels, which this program does not
// link (it only reads files), so the work is done by kiln-tune, installed
// beside it, in place of this process.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "tools/commands.h"

namespace kiln::tools {

int tune_command(int argc, char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path tuner = self.parent_path() / "kiln-tune";
  if (ec || !std::filesystem::exists(tuner)) {
    std::cerr << "kiln tune: " << tuner << " not found (it is installed beside kiln)\n";
    return 1;
  }
  // The tuner is a kiln program: it must not write the snapshot or trace of
  // the program this shell may be watching.
  for (const char* name : {"KILN_STATS", "KILN_TRACE_EVENTS", "KILN_REPORT"}) ::unsetenv(name);
  std::vector<char*> args{const_cast<char*>("kiln-tune")};
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(tuner.c_str(), args.data());
  std::cerr << "kiln tune: cannot run " << tuner << ": " << std::strerror(errno) << "\n";
  return 1;
}

}  // namespace kiln::tools

// The frames of `kiln stat`: pure functions from snapshots to screen lines,
// so that `--once`, the live loop and the tests draw the same thing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/snapshot.h"

namespace kiln::tools {

struct View {
  int width = 80;
  int height = 24;
  std::int64_t now_ms = 0;  // Unix time the frame is drawn at
  bool pid_alive = true;    // whether the snapshot's writer still runs
  std::string footer;       // last line (key help in the live view); empty: none
};

/// A frame for a good snapshot. `prev` (may be null) is an earlier snapshot
/// of the same file: rates are taken between the two; without it, rates
/// are averages since the program started. At most view.height lines, each
/// at most view.width columns.
std::vector<std::string> render_dashboard(const Snapshot& cur, const Snapshot* prev, const View& view);

/// A frame that only says what is wrong with the file (missing, corrupt, ...).
std::vector<std::string> render_problem(const std::string& message, const View& view);

}  // namespace kiln::tools

// The live screen of `kiln stat`: the alternate screen with a hidden
// cursor and unbuffered keys, restored on every way out (return, `q`,
// SIGINT, SIGTERM, exit()).
#pragma once

#include <string>
#include <vector>

namespace kiln::tools {

class Terminal {
 public:
  /// Switches stdout's terminal to the alternate screen and installs the
  /// signal handlers. Throws std::runtime_error when stdin/stdout is not a terminal.
  Terminal();
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  /// Columns and rows (TIOCGWINSZ; 80x24 when unknown).
  void size(int& width, int& height) const;
  /// Redraws the screen in place with `lines`.
  void draw(const std::vector<std::string>& lines);

  enum class Event { Timeout, Quit, Resize, Key };
  /// Waits up to `timeout_ms` for a key or a signal.
  Event wait(int timeout_ms);
};

}  // namespace kiln::tools

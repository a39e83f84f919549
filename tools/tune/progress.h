// The progress of `kiln tune` on stderr: a bar redrawn in place on a
// terminal, plain lines (one per tenth of the search) otherwise, so logs
// of a tuning run stay readable.
#pragma once

#include <cstdint>
#include <string>

#include <kiln/tune.h>

namespace kiln::tools {

class TuneProgress {
 public:
  /// `label`: what is tuned ("matmul 128x512x512"); `index`/`count`: its place in the run.
  TuneProgress(std::string label, int index, int count);
  void update(const kiln::tune::Progress& p);
  /// The last state, full when the search ran to its end, then a new line.
  void finish(const kiln::tune::Result& r);

 private:
  void draw(const kiln::tune::Progress& p, double done, const char* note);

  std::string label_;
  int index_, count_;
  bool terminal_;
  int last_tenth_ = -1;
  double last_done_ = 0;
};

}  // namespace kiln::tools

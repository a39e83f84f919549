#include "tools/tune/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "tools/format.h"

namespace kiln::tools {

TuneProgress::TuneProgress(std::string label, int index, int count)
    : label_(std::move(label)), index_(index), count_(count), terminal_(::isatty(STDERR_FILENO) != 0) {}

void TuneProgress::update(const kiln::tune::Progress& p) {
  const double done = p.planned ? std::min(1.0, double(p.evaluated) / double(p.planned)) : 0.0;
  if (!terminal_) {
    const int tenth = static_cast<int>(done * 10);
    if (tenth == last_tenth_) return;
    last_tenth_ = tenth;
  }
  draw(p, done, "");
}

void TuneProgress::finish(const kiln::tune::Result& r) {
  kiln::tune::Progress p{r.evaluated, r.evaluated, r.tuning_seconds, r.tuned_ms};
  draw(p, r.complete ? 1.0 : double(last_done_), r.complete ? "" : "  budget reached");
  if (terminal_) std::fputs("\n", stderr);
}

void TuneProgress::draw(const kiln::tune::Progress& p, double done, const char* note) {
  last_done_ = done;
  const std::string best = p.best_ms > 0 ? "best " + millis(p.best_ms) : "best -";
  if (!terminal_) {
    std::fprintf(stderr, "[%d/%d] %s: %llu/%llu candidates, %s, %.1f s%s\n", index_, count_, label_.c_str(),
                 static_cast<unsigned long long>(p.evaluated), static_cast<unsigned long long>(p.planned),
                 best.c_str(), p.elapsed_seconds, note);
    return;
  }
  constexpr int kWidth = 30;
  std::string bar(static_cast<std::size_t>(done * kWidth), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r\033[K[%d/%d] %-24s [%s] %3d%%  %llu/%llu  %s  %.1f s%s", index_, count_, label_.c_str(),
               bar.c_str(), static_cast<int>(done * 100), static_cast<unsigned long long>(p.evaluated),
               static_cast<unsigned long long>(p.planned), best.c_str(), p.elapsed_seconds, note);
  std::fflush(stderr);
}

}  // namespace kiln::tools

// The human report (kiln::print_stats(), KILN_REPORT=1): a compact summary of
// where time went, where the program cut the trace and which segments recur,
// followed by advice derived from those numbers.
#pragma once

#include <iosfwd>

#include <kiln/profiler/stats.h>

namespace kiln::profiler {

void write_report(std::ostream& out, const Stats& stats);

}  // namespace kiln::profiler

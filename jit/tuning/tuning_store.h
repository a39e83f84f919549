// The process's tuning database (autotune/tuning_db.h) as the JIT uses it:
// where the file is, and the context its entries are valid for -- this CPU,
// the vector ISA the kernels run, kiln's and LLVM's versions. A database
// written on another machine or by another build is ignored and rebuilt.
//
// Location: KILN_TUNING_DB if set, else tuning.json in the kernel cache's
// directory (KILN_CACHE_DIR); none when that is off.
//
// KILN_AUTOTUNE: unset or 1, kernels use what the database holds (tuned by
// `kiln tune`); 0, every kernel runs its heuristic; `online`, besides, a
// hot product or compiled kernel with no entry is tuned in the background
// while the program runs (KILN_AUTOTUNE_BUDGET seconds each, default 2)
// and its winner used from then on. Online tuning is not the default because a swapped config
// changes the order of floating-point sums in the middle of a run: a
// program's results would depend on when tuning finished.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include <kiln/settings.h>

#include "autotune/tuning_db.h"

namespace kiln::jit::tuning {

using kiln::AutotuneMode;
/// KILN_AUTOTUNE, read at first use; set_autotune_mode overrides it.
AutotuneMode autotune_mode();
void set_autotune_mode(AutotuneMode mode);
/// Seconds one online tuning may take (KILN_AUTOTUNE_BUDGET, default 2);
/// the setter throws kiln::ValueError unless it is > 0.
double online_budget_seconds();
void set_online_budget_seconds(double seconds);

/// The database, or null when there is no place for it.
std::shared_ptr<autotune::TuningDb> tuning_db();

/// Points the process at another database file (tests, `kiln tune --db`).
void set_tuning_db_file(const std::filesystem::path& file);

/// Bumped whenever this process changed what the database holds (a store,
/// a clear, another file): kernels that remember looked-up configs drop
/// them when it moved.
std::uint64_t tuning_generation();
void bump_tuning_generation();

}  // namespace kiln::jit::tuning

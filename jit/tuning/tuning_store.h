// The process's tuning database (autotune/tuning_db.h) as the JIT uses it:
// where the file is, and the context its entries are valid for -- this CPU,
// the vector ISA the kernels run, kiln's and LLVM's versions. A database
// written on another machine or by another build is ignored and rebuilt.
//
// Location: KILN_TUNING_DB if set, else tuning.json in the kernel cache's
// directory (KILN_CACHE_DIR); none when that is off. KILN_AUTOTUNE=0 turns
// tuned configs off: every kernel runs its heuristic default.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "autotune/tuning_db.h"

namespace kiln::jit::tuning {

/// False under KILN_AUTOTUNE=0.
bool autotune_enabled();

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

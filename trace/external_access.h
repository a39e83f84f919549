// External accesses: storages that something outside the trace (a collective
// on the communication thread of frontend/distributed/) is reading or
// writing now. Their bytes are off limits until it completes, so recording
// an op on such a storage, or preparing it for access (item(), data_ptr(),
// another collective), first waits for it.
//
// A side table rather than a field of Storage: only collectives use it, and
// the check every op pays is one relaxed load of a counter that is zero
// whenever no collective is in flight.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

#include "trace/storage.h"

namespace kiln::trace {

/// What an access waits on: returns once the outside reader or writer is
/// done with the storage's bytes (or throws its failure).
class ExternalAccess {
 public:
  virtual ~ExternalAccess() = default;
  virtual void wait() = 0;
};

/// From now until end_external_access(s), accesses to `s` wait on `access`.
/// The caller has materialized `s` (prepare_access with for_write) and holds
/// a reference to it for that time.
void begin_external_access(const Storage& s, std::shared_ptr<ExternalAccess> access);
/// `s` is the trace's again. Called once the outside access has completed.
void end_external_access(const Storage& s) noexcept;
/// Storages under an outside access now: zero but while a collective runs.
extern std::atomic<std::size_t> g_external_accesses;
void await_external_access_slow(const Storage& s);

/// Waits for an outside access to `s`, if one is in flight. Inline, since
/// every recorded op checks each of its operands: with none in flight it is
/// one load (an out-of-line call cost about 16 instructions per op).
inline void await_external_access(const Storage& s) {
  if (g_external_accesses.load(std::memory_order_acquire) != 0) [[unlikely]]
    await_external_access_slow(s);
}

}  // namespace kiln::trace

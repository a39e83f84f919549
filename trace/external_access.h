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
/// Waits for an outside access to `s`, if one is in flight.
void await_external_access(const Storage& s);

}  // namespace kiln::trace

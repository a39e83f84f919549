// The descriptor every rank sends every other before a collective: what it
// is about to run. Ranks compare them, so collectives issued in different
// orders or with different shapes fail on every rank with a message,
// instead of deadlocking or mixing bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/distributed.h>

namespace kiln::distributed {

enum class CollectiveKind : std::uint8_t { Allreduce, Broadcast, Allgather, ReduceScatter, Barrier };
const char* to_string(CollectiveKind kind) noexcept;
const char* to_string(ReduceOp::RedOpType op) noexcept;

/// Fixed size and trivially copyable: sent as bytes (every rank runs the same program).
struct Descriptor {
  std::uint64_t seq = 0;  // the group's collective count, from 1
  CollectiveKind kind = CollectiveKind::Barrier;
  std::uint8_t dtype = 0;  // kiln::ScalarType
  std::uint8_t op = 0;     // ReduceOp::RedOpType
  std::uint8_t ndim = 0;
  std::int32_t root = 0;
  std::int64_t sizes[8] = {};

  bool operator==(const Descriptor&) const = default;
};

/// `kind`'s descriptor for a tensor shaped `t` (undefined: a barrier).
Descriptor describe(std::uint64_t seq, CollectiveKind kind, const Tensor& t, ReduceOp::RedOpType op, int root);

/// Bytes of the tensor it describes (0 for a barrier), for the counters.
std::uint64_t payload_bytes(const Descriptor& d) noexcept;

/// "allreduce #3 of Float [4] (SUM)", for messages.
std::string to_string(const Descriptor& d);

/// Empty when every rank's descriptor equals `all[0]`'s; else the message
/// naming each rank's collective ("rank 0: allreduce #3 of Float [4] ...").
std::string mismatch(const std::vector<Descriptor>& all);

}  // namespace kiln::distributed

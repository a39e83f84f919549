#include "frontend/distributed/descriptor.h"

#include <algorithm>

#include <kiln/dtype.h>

namespace kiln::distributed {

const char* to_string(CollectiveKind kind) noexcept {
  switch (kind) {
    case CollectiveKind::Allreduce: return "allreduce";
    case CollectiveKind::Broadcast: return "broadcast";
    case CollectiveKind::Allgather: return "allgather";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
    case CollectiveKind::Barrier: return "barrier";
  }
  return "?";
}

std::uint64_t payload_bytes(const Descriptor& d) noexcept {
  if (d.kind == CollectiveKind::Barrier) return 0;
  std::uint64_t n = element_size(static_cast<ScalarType>(d.dtype));
  for (std::uint8_t i = 0; i < d.ndim; ++i) n *= static_cast<std::uint64_t>(d.sizes[i]);
  return n;
}

const char* to_string(ReduceOp::RedOpType op) noexcept {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
  }
  return "?";
}

Descriptor describe(std::uint64_t seq, CollectiveKind kind, const Tensor& t, ReduceOp::RedOpType op, int root) {
  Descriptor d;
  d.seq = seq;
  d.kind = kind;
  d.op = op;
  d.root = root;
  if (t.defined()) {
    d.dtype = static_cast<std::uint8_t>(t.dtype());
    const auto sizes = t.sizes();
    d.ndim = static_cast<std::uint8_t>(sizes.size());
    std::copy(sizes.begin(), sizes.end(), d.sizes);
  }
  return d;
}

std::string to_string(const Descriptor& d) {
  std::string s = detail::cat(to_string(d.kind), " #", d.seq);
  if (d.kind == CollectiveKind::Barrier) return s;
  s += detail::cat(" of ", static_cast<ScalarType>(d.dtype), " ", IntArrayRef(d.sizes, d.ndim));
  if (d.kind == CollectiveKind::Allreduce || d.kind == CollectiveKind::ReduceScatter)
    s += detail::cat(" (", to_string(static_cast<ReduceOp::RedOpType>(d.op)), ")");
  if (d.kind == CollectiveKind::Broadcast) s += detail::cat(" (root ", d.root, ")");
  return s;
}

std::string mismatch(const std::vector<Descriptor>& all) {
  if (std::all_of(all.begin(), all.end(), [&](const Descriptor& d) { return d == all[0]; })) return {};
  std::string message = "the ranks issued different collectives:";
  for (std::size_t r = 0; r < all.size(); ++r) message += detail::cat(r ? "; " : " ", "rank ", r, ": ", to_string(all[r]));
  return message;
}

}  // namespace kiln::distributed

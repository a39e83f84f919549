// This process's memory, for the soak program's report: what the kernel
// says it holds (RSS) and what of it is glibc's heap, so growth can be
// told apart (heap: records and vectors; the rest: JIT code pages, thread
// stacks, libraries).
#pragma once

#include <cstdint>

namespace soak {

/// Resident set size in bytes (/proc/self/statm), 0 if unreadable.
std::uint64_t rss_bytes();

/// Bytes glibc's malloc has handed out and not had back (mallinfo2:
/// arena in use plus mmapped blocks).
std::uint64_t heap_bytes();

}  // namespace soak

// Files a program is writing when SIGINT or SIGTERM ends it: the timeline
// (KILN_TRACE_EVENTS) would be left without its closing bracket and the
// stats snapshot (KILN_STATS) without its final write. Each writer registers
// a flush here when it opens its file; the first registration installs
// handlers for both signals.
//
// A signal handler may not take the locks a flush needs (the interrupted
// thread may hold them), so the handler only writes the signal's number to a
// pipe. A thread of its own waits on that pipe, runs the flushes (taking
// locks like any thread: the interrupted ones keep running and release
// them), then restores the default action and raises the signal again, so
// the program ends as it would have, with the signal as its exit status.
//
// A handler the program installed before kiln's is called instead (it owns
// the signal's meaning, e.g. a graceful stop that exits normally, when the
// files are closed at exit as usual); a signal the program ignores stays
// ignored. A second signal during the flush ends the program at once, and a
// forked child, which has no flushing thread, gets the default action.
#pragma once

namespace kiln::profiler {

using Flush = void (*)() noexcept;

/// Runs `flush` when SIGINT or SIGTERM arrives, before the program ends;
/// registering the same function twice is one registration. At most a few
/// flushes (one per writer) can be registered; returns false past that or
/// when the handlers cannot be set up (then the signals act as before).
bool flush_on_termination_signals(Flush flush) noexcept;

}  // namespace kiln::profiler

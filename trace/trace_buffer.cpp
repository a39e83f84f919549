#include "trace/trace_buffer.h"

#include <algorithm>
#include <atomic>
#include <string>

#include <xxhash.h>

#include <kiln/error.h>

#include "profiler/cut_sites.h"
#include "profiler/settings/settings.h"
#include "trace/external_access.h"
#include "trace/executor.h"

namespace kiln::trace {
namespace {

constexpr std::uint64_t kKeySeed = 0x6b696c6e2d6b6579ull;  // "kiln-key"

// Every live buffer, so that a thread can flush the others. Lock order:
// the registry first, then a buffer's mutex.
std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
std::vector<TraceBuffer*>& registry() {
  static std::vector<TraceBuffer*> buffers;
  return buffers;
}

std::atomic<std::int64_t>& limit_slot() {
  static std::atomic<std::int64_t> limit{profiler::settings::read_integer(profiler::settings::Id::TraceLimit)};
  return limit;
}

std::atomic<std::uint32_t> next_serial{1};

}  // namespace

void set_trace_limit(std::int64_t ops) {
  if (ops < 1) throw ValueError(detail::cat("[set_trace_limit] the op limit must be at least 1, got ", ops));
  limit_slot().store(ops, std::memory_order_relaxed);
}

std::int64_t trace_limit() { return limit_slot().load(std::memory_order_relaxed); }

namespace {
// The calling thread's buffer, reached on every recorded op: an
// initial-exec pointer costs one instruction where a function-local
// thread_local object costs a __tls_get_addr call and a guard check.
thread_local TraceBuffer* this_thread_buffer __attribute__((tls_model("initial-exec"))) = nullptr;

TraceBuffer& create_this_thread_buffer() {
  // A thread's first op: where a bad knob read while libkiln loaded is thrown.
  profiler::settings::throw_load_errors();
  struct Owner {
    TraceBuffer buffer;
    ~Owner() { this_thread_buffer = nullptr; }
  };
  thread_local Owner owner;  // destroyed (and flushed) at thread exit
  this_thread_buffer = &owner.buffer;
  return owner.buffer;
}
}  // namespace

TraceBuffer& TraceBuffer::current() {
  if (TraceBuffer* b = this_thread_buffer) return *b;
  return create_this_thread_buffer();
}

TraceBuffer::TraceBuffer() : serial_(next_serial.fetch_add(1)), key_(kKeySeed) {
  nodes_.reserve(64);
  values_.reserve(64);
  std::lock_guard reg(registry_mutex());
  registry().push_back(this);
}

TraceBuffer::~TraceBuffer() {
  try {
    flush(profiler::CutReason::ThreadExit);
  } catch (...) {
    // The outputs are poisoned; nobody is left on this thread to tell.
  }
  {
    std::lock_guard reg(registry_mutex());
    auto& all = registry();
    all.erase(std::find(all.begin(), all.end(), this));
  }
  // A thread that found us in the registry may still hold our mutex.
  std::lock_guard wait(mu_);
}

namespace {

// Flushes the buffer that writes `s`, if it is not `self`.
void flush_writer_of(Storage& s, TraceBuffer* self, profiler::CutReason why);
// Flushes every buffer but `self`.
void flush_others(TraceBuffer* self, profiler::CutReason why);

}  // namespace

std::uint32_t TraceBuffer::slot_of(const std::shared_ptr<Storage>& s, bool fresh) {
  std::uint64_t hint = s->slot_hint.load(std::memory_order_relaxed);
  if (!fresh && (hint >> 32) == serial_) {
    auto slot = static_cast<std::uint32_t>(hint);
    if (slot < values_.size() && values_[slot].storage.get() == s.get()) return slot;
  }
  auto slot = static_cast<std::uint32_t>(values_.size());
  values_.push_back({s, fresh, false});
  s->readers.fetch_add(1, std::memory_order_relaxed);
  s->slot_hint.store((std::uint64_t{serial_} << 32) | slot, std::memory_order_relaxed);
  return slot;
}

bool TraceBuffer::holds(const Storage* s) {
  std::uint64_t hint = s->slot_hint.load(std::memory_order_relaxed);
  if ((hint >> 32) != serial_) return false;
  auto slot = static_cast<std::uint32_t>(hint);
  return slot < values_.size() && values_[slot].storage.get() == s;
}

void TraceBuffer::append(Node& node, const std::shared_ptr<Storage>* const* inputs,
                         const std::shared_ptr<Storage>& out, bool fresh_out) {
  // Another thread's pending work on these storages runs first, before we
  // take our own lock (lock order: registry, then one buffer); so does a
  // collective that has them.
  for (int k = 0; k < node.arity; ++k)
    if (inputs[k]) {
      await_external_access(**inputs[k]);
      flush_writer_of(**inputs[k], this, profiler::CutReason::CrossThread);
    }
  if (!fresh_out) {
    await_external_access(*out);
    flush_writer_of(*out, this, profiler::CutReason::CrossThread);
    std::int32_t readers = out->readers.load(std::memory_order_acquire);
    if (readers > 0) {
      bool mine;
      {
        std::lock_guard lock(mu_);
        mine = holds(out.get());
      }
      if (readers > (mine ? 1 : 0)) flush_others(this, profiler::CutReason::CrossThread);
    }
  }

  std::lock_guard lock(mu_);
  for (int k = 0; k < node.arity; ++k)
    if (inputs[k]) node.in[k].value = slot_of(*inputs[k], false);
  node.out.value = slot_of(out, fresh_out);
  out->writer.store(this, std::memory_order_release);
  hash_node(node);
  nodes_.push_back(node);
  // The user may read or overwrite lent memory directly at any moment, as
  // they could with eager LibTorch: an op touching it runs now.
  bool borrowed = out->is_borrowed();
  for (int k = 0; k < node.arity; ++k) borrowed = borrowed || (inputs[k] && (*inputs[k])->is_borrowed());
  if (borrowed) flush_locked(profiler::CutReason::Borrowed);
  else if (static_cast<std::int64_t>(nodes_.size()) >= trace_limit()) flush_locked(profiler::CutReason::OpLimit);
}

void TraceBuffer::hash_node(const Node& node) {
  // A compact encoding: what a compiled kernel would be specialized on.
  // Scalar values and view offsets are run-time parameters, not key.
  std::int64_t buf[4 + (kMaxArity + 1) * (3 + 2 * kMaxDims)];
  std::size_t n = 0;
  buf[n++] = (static_cast<std::int64_t>(node.op) << 16) | (static_cast<std::int64_t>(node.dtype) << 8) | node.arity;
  buf[n++] = node.attrs.i[0];
  buf[n++] = node.attrs.i[1];
  auto put = [&](const Operand& o) {
    if (o.is_scalar()) {
      buf[n++] = -1 - static_cast<std::int64_t>(o.scalar.type());
      return;
    }
    buf[n++] = (static_cast<std::int64_t>(o.value) << 16) | (values_[o.value].produced << 8) |
               static_cast<std::int64_t>(o.dtype);
    buf[n++] = o.geo.ndim;
    for (int d = 0; d < o.geo.ndim; ++d) {
      buf[n++] = o.geo.sizes[d];
      buf[n++] = o.geo.strides[d];
    }
  };
  for (int k = 0; k < node.arity; ++k) put(node.in[k]);
  put(node.out);
  key_ = XXH3_64bits_withSeed(buf, n * sizeof(std::int64_t), key_);
}

bool TraceBuffer::empty() {
  std::lock_guard lock(mu_);
  return nodes_.empty();
}

void TraceBuffer::flush(profiler::CutReason why, Segment* capture) {
  std::lock_guard lock(mu_);
  flush_locked(why, capture);
}

std::uint64_t TraceBuffer::cuts() {
  std::lock_guard lock(mu_);
  return cuts_;
}

void TraceBuffer::flush_locked(profiler::CutReason why, Segment* capture) {
  if (nodes_.empty()) return;
  ++cuts_;
  Segment seg;
  seg.nodes.swap(nodes_);
  seg.values.swap(values_);
  seg.reason = why;
  seg.site = profiler::note_cut(why);
  // The output set: values some handle still holds (the segment holds one
  // reference), hashed as a bit mask per 64 values.
  std::uint64_t key = key_;
  for (std::size_t base = 0; base < seg.values.size(); base += 64) {
    std::uint64_t mask = 0;
    for (std::size_t v = base; v < std::min(base + 64, seg.values.size()); ++v) {
      seg.values[v].live = seg.values[v].storage.use_count() > 1;
      mask |= std::uint64_t{seg.values[v].live} << (v - base);
    }
    key = XXH3_64bits_withSeed(&mask, sizeof mask, key);
  }
  seg.key = key;
  key_ = kKeySeed;
  profiler::add_ops_recorded(seg.nodes.size());

  struct Release {  // on every exit: the marks go, the vectors' capacity stays for the next segment
    TraceBuffer& self;
    Segment& seg;
    ~Release() {
      for (Value& v : seg.values) {
        TraceBuffer* me = &self;
        v.storage->writer.compare_exchange_strong(me, nullptr, std::memory_order_acq_rel);
        v.storage->readers.fetch_sub(1, std::memory_order_acq_rel);
      }
      seg.values.clear();
      seg.nodes.clear();
      self.values_.swap(seg.values);
      self.nodes_.swap(seg.nodes);
    }
  } release{*this, seg};
  run_segment(seg);
  if (capture) *capture = seg;
}

void run_segment(Segment& seg) {
  // Before any of it runs: a cache keyed by what a storage held
  // (Storage::writes) stops matching it from here on. A load per node for
  // the storages no cache uses.
  for (const Node& node : seg.nodes) seg.values[node.out.value].storage->note_write();
  try {
    executor().run(seg);
  } catch (const SegmentFailure& failure) {
    std::string message = "an op failed";
    try {
      std::rethrow_exception(failure.error);
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
    }
    for (std::uint32_t v : failure.failed_values) seg.values[v].storage->poison(message);
    std::rethrow_exception(failure.error);
  } catch (const std::exception& e) {
    // Whatever this segment was to write is unknown now: make reading it an error.
    for (const Node& node : seg.nodes) seg.values[node.out.value].storage->poison(e.what());
    throw;
  }
}

namespace {

void flush_writer_of(Storage& s, TraceBuffer* self, profiler::CutReason why) {
  TraceBuffer* writer = s.writer.load(std::memory_order_acquire);
  if (!writer || writer == self) return;
  std::lock_guard reg(registry_mutex());
  writer = s.writer.load(std::memory_order_acquire);  // it may have flushed meanwhile
  if (!writer || writer == self) return;
  writer->flush(why);
}

void flush_others(TraceBuffer* self, profiler::CutReason why) {
  std::lock_guard reg(registry_mutex());
  for (TraceBuffer* other : registry())
    if (other != self) other->flush(why);
}

}  // namespace

void prepare_access(Storage& s, bool for_write, profiler::CutReason why) {
  await_external_access(s);
  // Nothing pending touches it (the common case): no buffer to look up.
  if (TraceBuffer* writer = s.writer.load(std::memory_order_acquire)) {
    TraceBuffer& me = TraceBuffer::current();
    if (writer == &me) me.flush(why);
    else flush_writer_of(s, &me, why);
  }
  if (for_write && s.readers.load(std::memory_order_acquire) > 0) {
    TraceBuffer& me = TraceBuffer::current();
    me.flush(why);
    if (s.readers.load(std::memory_order_acquire) > 0) flush_others(&me, why);
  }
  if (const std::string* failure = s.failure())
    throw Error(detail::cat("[read] this tensor's value could not be computed: ", *failure));
  if (for_write) s.note_write();
}

void flush_all(profiler::CutReason why) {
  TraceBuffer& me = TraceBuffer::current();
  me.flush(why);
  flush_others(&me, why);
}

namespace {
Executor* g_executor = nullptr;
}

void set_executor(Executor* e) { g_executor = e; }

Executor& executor() {
  KILN_CHECK(g_executor != nullptr, "no executor registered (is libkiln's frontend linked?)");
  return *g_executor;
}

}  // namespace kiln::trace

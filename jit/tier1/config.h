// The JIT's knobs, each with an environment variable and a setter; the
// defaults are right for a user who sets nothing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::jit {

/// KILN_JIT: 0 keeps every segment on tier 0 (the eager baseline). Default on.
bool enabled();
void set_enabled(bool on);

/// KILN_HOT_THRESHOLD: runs of a segment key before its kernels are queued
/// (default 2). Setting it explicitly also turns off the break-even test.
std::int64_t hot_threshold();
void set_hot_threshold(std::int64_t runs);
/// True when the user chose the threshold (env or setter).
bool hot_threshold_is_explicit();

/// KILN_JIT_MAX_KEYS: segment keys (and shape families) the JIT keeps
/// records of at first (kiln::jit::set_max_keys changes it); past it the
/// least recently run are forgotten (default 2048).
std::size_t max_keys();
/// KILN_JIT_MAX_KERNELS: kernels the in-memory cache keeps beyond those
/// that kept keys use, at first (kiln::jit::set_max_kernels); past it the
/// least recently run go, code and all (default 512;
/// measured: about 43 KiB of memory per resident kernel).
std::size_t max_kernels();

/// KILN_JIT_SYNC=1: compile on the calling thread (deterministic tests).
bool compile_sync();
void set_compile_sync(bool on);

/// While alive (and `on`), segments cut on this thread are planned and
/// compiled at once, in the foreground, whatever their hotness (kiln::compile).
class ForceCompile {
 public:
  explicit ForceCompile(bool on);
  ~ForceCompile();
  ForceCompile(const ForceCompile&) = delete;
  ForceCompile& operator=(const ForceCompile&) = delete;

 private:
  bool previous_;
};
bool compile_forced();

}  // namespace kiln::jit

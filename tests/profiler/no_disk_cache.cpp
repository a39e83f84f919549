// The profiler suite observes compiles (queued, compiled, compile time), so
// its kernels must not come from the disk cache of an earlier run: turn the
// cache off before the first compile reads KILN_CACHE_DIR.
#include <cstdlib>

namespace {
const int disk_cache_off = setenv("KILN_CACHE_DIR", "off", 1);
}  // namespace

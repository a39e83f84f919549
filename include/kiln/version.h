// kiln's version (kept equal to project() in CMakeLists.txt; a test checks).
// Part of the on-disk kernel cache key: objects from another version are ignored.
#pragma once

namespace kiln {
inline constexpr const char* kVersion = "0.1.0";
}

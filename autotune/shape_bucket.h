// Shape buckets: shapes close enough to share one tuned config.
//
// Tuning every distinct shape would make the database grow with every batch size
// a program uses; a config tuned for 96 rows is as good for 90. Small extents
// change the best kernel a lot and stay exact.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace kiln::autotune {

/// Extents up to 16 unchanged; larger ones rounded UP to the next value with at most
/// two significant bits: 16, 24, 32, 48, 64, 96, 128, 192, ... (saturating at INT64_MAX).
std::int64_t bucket(std::int64_t extent);

/// The bucketed extents joined by 'x', e.g. {100, 500, 512} -> "128x512x512"; "" for none.
std::string bucket_key(std::span<const std::int64_t> extents);

}  // namespace kiln::autotune

// One value of a checkpoint archive, as stored in the file: a tensor's or a
// number's dtype, shape and bytes (row-major, little-endian).
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/dtype.h>
#include <kiln/frontend/tensor.h>
#include <kiln/serialize/archive.h>

namespace kiln::serialize::detail {

/// What an entry holds: a tensor, or a number written by write(key, double/int64/bool).
enum class EntryKind : std::uint8_t { Tensor = 0, Number = 1 };

struct Entry {
  EntryKind kind = EntryKind::Tensor;
  ScalarType dtype = ScalarType::Float32;
  std::vector<std::int64_t> sizes;
  std::vector<unsigned char> bytes;
};

/// The entry of a tensor's current values (settles a pending tensor).
Entry entry_of(const Tensor& tensor);
/// A new tensor holding the entry's values.
Tensor tensor_of(const Entry& entry);

}  // namespace kiln::serialize::detail

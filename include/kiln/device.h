// Devices, as LibTorch names them. kiln computes on the CPU only; the types
// exist so that programs written with LibTorch's device plumbing
//
//   torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
//   model->to(device);
//   auto x = batch.data.to(device);
//
// port unchanged: moving to the CPU is a no-op, and asking for CUDA is a
// kiln::ValueError at the call that asked (never a silent fallback).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace kiln {

enum class DeviceType : std::int8_t { CPU = 0, CUDA = 1 };
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

/// LibTorch's c10::Device: a type and an optional index (-1: none given).
class Device {
 public:
  using Index = std::int16_t;

  Device(DeviceType type, Index index = -1);
  /// Parses "cpu", "cuda", "cuda:1" as LibTorch does; ValueError otherwise.
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  DeviceType type() const noexcept { return type_; }
  Index index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ != -1; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  /// "cpu", "cuda:0": LibTorch's spelling.
  std::string str() const;

  bool operator==(const Device& o) const noexcept { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const noexcept { return !(*this == o); }

 private:
  DeviceType type_;
  Index index_;
};

std::ostream& operator<<(std::ostream& stream, DeviceType type);
std::ostream& operator<<(std::ostream& stream, const Device& device);

namespace cuda {
/// Always false and 0: kiln has no CUDA backend.
bool is_available() noexcept;
std::int64_t device_count() noexcept;
}  // namespace cuda

namespace detail {
/// Throws ValueError "[op] device cuda:0 is not available: ..." unless
/// `device` is the CPU. Every entry point that accepts a device calls it.
void check_device(const Device& device, const char* op);
}  // namespace detail

}  // namespace kiln

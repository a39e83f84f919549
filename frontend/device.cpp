// Devices: parsing and printing LibTorch's spellings, and the one check that
// turns a request for CUDA into an error.
#include <kiln/device.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <ostream>

#include <kiln/error.h>

namespace kiln {
namespace {

const char* type_name(DeviceType type) { return type == DeviceType::CUDA ? "cuda" : "cpu"; }

void check_index(DeviceType type, long index, const std::string& spec) {
  if (index < -1 || index > std::numeric_limits<Device::Index>::max())
    throw ValueError(detail::cat("[Device] device index ", index, " is out of range in '", spec, "'"));
  if (type == DeviceType::CPU && index > 0)
    throw ValueError(detail::cat("[Device] the CPU device index must be -1 or 0, got ", index));
}

}  // namespace

Device::Device(DeviceType type, Index index) : type_(type), index_(index) {
  check_index(type, index, str());
}

Device::Device(const std::string& spec) : type_(DeviceType::CPU), index_(-1) {
  const std::size_t colon = spec.find(':');
  const std::string type = spec.substr(0, colon);
  if (type == "cpu") type_ = DeviceType::CPU;
  else if (type == "cuda") type_ = DeviceType::CUDA;
  else
    throw ValueError(detail::cat("[Device] expected 'cpu' or 'cuda' (optionally ':<index>') at the start of the "
                                 "device string, got '", spec, "'"));
  if (colon == std::string::npos) return;
  const std::string digits = spec.substr(colon + 1);
  if (digits.empty() || digits.size() > 5 || !std::all_of(digits.begin(), digits.end(), [](unsigned char c) {
        return std::isdigit(c);
      }))
    throw ValueError(detail::cat("[Device] the device index in '", spec, "' must be a non-negative integer"));
  const long index = std::stol(digits);
  check_index(type_, index, spec);
  index_ = static_cast<Index>(index);
}

std::string Device::str() const {
  std::string s = type_name(type_);
  if (has_index()) s.append(1, ':').append(std::to_string(index_));
  return s;
}

std::ostream& operator<<(std::ostream& stream, DeviceType type) { return stream << type_name(type); }
std::ostream& operator<<(std::ostream& stream, const Device& device) { return stream << device.str(); }

namespace cuda {
bool is_available() noexcept { return false; }
std::int64_t device_count() noexcept { return 0; }
}  // namespace cuda

void detail::check_device(const Device& device, const char* op) {
  if (!device.is_cpu())
    throw ValueError(detail::cat("[", op, "] device ", device, " is not available: kiln computes on the CPU "
                                 "(kiln::cuda::is_available() is false)"));
}

}  // namespace kiln

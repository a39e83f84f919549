#include <kiln/serialize/archive.h>

#include <cstring>

#include <kiln/autograd.h>
#include <kiln/error.h>

#include "frontend/serialize/checkpoint_file.h"
#include "frontend/serialize/entry.h"

namespace kiln::serialize {

namespace {

template <class T>
T number_of(const detail::Entry& e) {
  T value;
  std::memcpy(&value, e.bytes.data(), sizeof(T));
  return value;
}

}  // namespace

InputArchive::InputArchive() : entries_(std::make_shared<const detail::Entries>()) {}

void InputArchive::load_from(const std::string& filename) {
  entries_ = std::make_shared<const detail::Entries>(detail::read_checkpoint(filename));
  prefix_.clear();
  filename_ = filename;
}

const detail::Entry* InputArchive::find(const std::string& key) const {
  auto it = entries_->find(prefix_ + key);
  return it == entries_->end() ? nullptr : it->second.get();
}

void InputArchive::fail_missing(const std::string& key, const char* what) const {
  throw ValueError(kiln::detail::cat("[serialize] ", filename_, ": no ", what, " entry '", prefix_ + key, "'"));
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) const {
  const detail::Entry* e = find(key);
  if (e == nullptr || e->kind != detail::EntryKind::Tensor) return false;
  if (!tensor.defined()) {
    tensor = detail::tensor_of(*e);
    return true;
  }
  if (tensor.dtype() != e->dtype)
    throw DtypeError(kiln::detail::cat("[serialize] ", filename_, ": entry '", prefix_ + key, "' is ", e->dtype,
                                       " in the file but ", tensor.dtype(), " in the tensor read into"));
  if (!(tensor.sizes() == IntArrayRef(e->sizes)))
    throw ShapeError(kiln::detail::cat("[serialize] ", filename_, ": entry '", prefix_ + key, "' has shape ",
                                       IntArrayRef(e->sizes), " in the file but ", tensor.sizes(),
                                       " in the tensor read into"));
  NoGradGuard no_grad;
  tensor.copy_(detail::tensor_of(*e));
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) const {
  if (!try_read(key, tensor, is_buffer)) fail_missing(key, "tensor");
}

void InputArchive::read(const std::string& key, double& value) const {
  const detail::Entry* e = find(key);
  if (e == nullptr || e->kind != detail::EntryKind::Number || e->dtype != kFloat64) fail_missing(key, "double");
  value = number_of<double>(*e);
}

void InputArchive::read(const std::string& key, std::int64_t& value) const {
  const detail::Entry* e = find(key);
  if (e == nullptr || e->kind != detail::EntryKind::Number || e->dtype != kInt64) fail_missing(key, "int64");
  value = number_of<std::int64_t>(*e);
}

void InputArchive::read(const std::string& key, bool& value) const {
  const detail::Entry* e = find(key);
  if (e == nullptr || e->kind != detail::EntryKind::Number || e->dtype != kBool) fail_missing(key, "bool");
  value = number_of<bool>(*e);
}

void InputArchive::read(const std::string& key, InputArchive& nested) const {
  nested.entries_ = entries_;
  nested.prefix_ = prefix_ + key + ".";
  nested.filename_ = filename_;
}

bool InputArchive::contains(const std::string& key) const {
  if (find(key) != nullptr) return true;
  const std::string nested = prefix_ + key + ".";
  auto it = entries_->lower_bound(nested);
  return it != entries_->end() && it->first.compare(0, nested.size(), nested) == 0;
}

std::vector<std::string> InputArchive::keys() const {
  std::vector<std::string> out;
  for (auto it = entries_->lower_bound(prefix_); it != entries_->end(); ++it) {
    if (it->first.compare(0, prefix_.size(), prefix_) != 0) break;
    out.push_back(it->first.substr(prefix_.size()));
  }
  return out;
}

}  // namespace kiln::serialize

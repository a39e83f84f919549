#include <kiln/serialize/archive.h>

#include <kiln/error.h>
#include <kiln/frontend/creation.h>

#include "frontend/serialize/checkpoint_file.h"
#include "frontend/serialize/entry.h"

namespace kiln::serialize {

namespace {

template <class T>
std::shared_ptr<const detail::Entry> number_entry(T value) {
  auto e = std::make_shared<detail::Entry>();
  e->kind = detail::EntryKind::Number;
  e->dtype = dtype_of<T>();
  const auto* p = reinterpret_cast<const unsigned char*>(&value);
  e->bytes.assign(p, p + sizeof(T));
  return e;
}

}  // namespace

OutputArchive::OutputArchive() = default;
OutputArchive::~OutputArchive() = default;
OutputArchive::OutputArchive(const OutputArchive&) = default;
OutputArchive& OutputArchive::operator=(const OutputArchive&) = default;

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool /*is_buffer*/) {
  if (!tensor.defined()) throw ValueError(kiln::detail::cat("[serialize] entry '", key, "' is an undefined tensor"));
  entries_[key] = std::make_shared<const detail::Entry>(detail::entry_of(tensor));
}

void OutputArchive::write(const std::string& key, double value) { entries_[key] = number_entry(value); }
void OutputArchive::write(const std::string& key, std::int64_t value) { entries_[key] = number_entry(value); }
void OutputArchive::write(const std::string& key, bool value) { entries_[key] = number_entry(value); }

void OutputArchive::write(const std::string& key, const OutputArchive& nested) {
  for (const auto& [name, entry] : nested.entries_) entries_[key + "." + name] = entry;
}

void OutputArchive::save_to(const std::string& filename) const { detail::write_checkpoint(filename, entries_); }

std::vector<std::string> OutputArchive::keys() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

}  // namespace kiln::serialize

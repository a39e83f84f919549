// kiln::serialize::OutputArchive / InputArchive: LibTorch's
// torch::serialize archives. An archive is a set of named entries — tensors
// and numbers (double, int64, bool) — written to and read from one
// checkpoint file (docs/checkpoint-format.md). A nested archive is stored
// under its key as a prefix: writing archive `a` under "opt" stores a's entry
// "lr" as "opt.lr", so a module's dotted parameter names ("fc1.weight") and
// nested per-submodule archives name the same entries.
//
//   torch::serialize::OutputArchive out;
//   out.write("weight", w);
//   out.write("epoch", std::int64_t{3});
//   out.save_to("model.kiln");
//   torch::serialize::InputArchive in;
//   in.load_from("model.kiln");   // validates the whole file
//   in.read("weight", w);         // copies in place: same dtype and shape
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <kiln/frontend/tensor.h>

namespace kiln::serialize {

namespace detail {
/// One stored value: the bytes of a tensor or number (frontend/serialize/entry.h).
struct Entry;
using Entries = std::map<std::string, std::shared_ptr<const Entry>>;
}  // namespace detail

/// Collects entries to write into a checkpoint file (LibTorch's OutputArchive).
class OutputArchive {
 public:
  OutputArchive();
  ~OutputArchive();
  OutputArchive(const OutputArchive&);
  OutputArchive& operator=(const OutputArchive&);

  /// Stores a copy of the tensor's values (its dtype, shape and elements in
  /// row-major order; a pending tensor is computed first). A later change to
  /// the tensor does not change what is saved. `is_buffer` is accepted for
  /// LibTorch compatibility: parameters and buffers are stored alike. Writing
  /// a key again replaces its entry; an undefined tensor is a ValueError.
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  void write(const std::string& key, double value);
  void write(const std::string& key, std::int64_t value);
  void write(const std::string& key, bool value);
  /// Stores every entry of `nested` under "key.".
  void write(const std::string& key, const OutputArchive& nested);

  /// Writes the archive to `filename` atomically: into a temporary file in
  /// the same folder, flushed to disk (fsync), then renamed over `filename`.
  /// On failure an IOError names the file and the reason; an existing file
  /// of that name is left as it was.
  void save_to(const std::string& filename) const;

  /// The keys written so far, sorted.
  std::vector<std::string> keys() const;

 private:
  detail::Entries entries_;
};

/// Reads the entries of a checkpoint file (LibTorch's InputArchive).
class InputArchive {
 public:
  InputArchive();

  /// Reads and validates the whole file: magic, format version, header
  /// checksum, every entry's dtype, shape, extent and XXH3-64 checksum, and
  /// the file length. Any problem is an IOError naming the file and what is
  /// wrong; the archive is then left unchanged.
  void load_from(const std::string& filename);

  /// Reads the tensor stored under `key`. If `tensor` is defined, the values
  /// are copied into it in place (without gradient history; its identity and
  /// requires_grad stay), and a different dtype or shape is a DtypeError or
  /// ShapeError naming the file, the key and both; if undefined, it becomes a
  /// new tensor. A missing key or a key holding a number is a ValueError.
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false) const;
  /// The same, returning false (and leaving `tensor` alone) if `key` is absent.
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false) const;
  /// Reads a number; a missing key or a value of another type is a ValueError.
  void read(const std::string& key, double& value) const;
  void read(const std::string& key, std::int64_t& value) const;
  void read(const std::string& key, bool& value) const;
  /// The entries stored under "key." as an archive of their own (empty if none).
  void read(const std::string& key, InputArchive& nested) const;

  /// Whether an entry (or a nested archive) is stored under `key`.
  bool contains(const std::string& key) const;
  /// The keys of this archive (relative to it, for a nested one), sorted.
  std::vector<std::string> keys() const;
  /// The file the archive was loaded from ("" before load_from), for messages.
  const std::string& filename() const noexcept { return filename_; }

 private:
  const detail::Entry* find(const std::string& key) const;
  [[noreturn]] void fail_missing(const std::string& key, const char* what) const;

  std::shared_ptr<const detail::Entries> entries_;
  std::string prefix_;
  std::string filename_;
};

}  // namespace kiln::serialize

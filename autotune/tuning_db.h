// The persisted tuning database: tuned configs by key, in one JSON file shared by
// every kiln process on the machine (docs/tuning-db.md). A search costs seconds; the
// database makes it a one-time cost per (kernel family, shape bucket, machine).
#pragma once

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autotune/db_file.h"
#include "autotune/tuning_entry.h"

namespace kiln::autotune {

class TuningDb {
 public:
  /// A database in `file` (not touched until used), valid for `context`.
  TuningDb(std::filesystem::path file, TuningContext context);

  const std::filesystem::path& file() const { return file_; }
  const TuningContext& context() const { return context_; }

  /// The entry for `key` (e.g. "gemm/f32/nn/128x512x512"), or nullopt. The parsed file is
  /// cached and re-read only when the file changed (inode, size or mtime). A file that
  /// cannot be parsed, has another schema version, or was written for another context is
  /// treated as empty; the first time, one line goes to stderr:
  /// "kiln: tuning database <path> ignored: <why>; it will be rebuilt".
  std::optional<TuningEntry> lookup(const std::string& key) const;

  /// Adds or replaces `key`: under an exclusive flock() on "<file>.lock", re-reads the file,
  /// merges, and replaces the file atomically (a foreign or corrupt file is replaced by one
  /// holding only this entry). Creates missing directories. Safe with several threads and
  /// processes at once. Throws std::runtime_error naming the path on IO failure.
  void store(const std::string& key, const TuningEntry& entry);

  /// Every entry, sorted by key.
  std::vector<std::pair<std::string, TuningEntry>> entries() const;

  /// Removes the entries whose key starts with `prefix` ("" = all), under the lock;
  /// returns how many. Leaves an unusable file alone (returns 0).
  std::size_t erase_matching(std::string_view prefix);

 private:
  // Brings cache_ up to date with the file; `always` re-parses even an unchanged stamp.
  void refresh(bool always) const;

  std::filesystem::path file_;
  TuningContext context_;
  mutable std::mutex mutex_;
  mutable std::optional<detail::FileStamp> stamp_;  // of the file cache_ holds; nullopt: no file
  mutable bool loaded_ = false;
  mutable bool warned_ = false;
  mutable bool usable_ = true;                      // false when the file on disk was ignored
  mutable TuningEntries cache_;
};

}  // namespace kiln::autotune

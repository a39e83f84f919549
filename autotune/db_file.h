// The POSIX file operations the tuning database is built on: an identity stamp to
// notice that a file changed, whole-file reads, an exclusive flock() held for a
// scope, and an atomic replace (write a temporary file, fsync, rename over).
// Several processes share one database file; these make that safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::autotune::detail {

/// What identifies one version of a file: a rename() gives a new inode, an in-place
/// edit a new size or mtime.
struct FileStamp {
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

struct FileContents {
  FileStamp stamp;
  std::string text;
};

/// The file's stamp (stat()); nullopt when the file does not exist. Throws std::runtime_error
/// naming the path on other errors.
std::optional<FileStamp> stat_file(const std::filesystem::path& file);

/// The file's text and stamp (read from one open descriptor, so they match); nullopt
/// when the file does not exist. Throws std::runtime_error naming the path on other errors.
std::optional<FileContents> read_file(const std::filesystem::path& file);

/// Replaces `file` atomically: readers see the old or the new text, never a mix. Writes
/// "<file>.tmp.<pid>", fsyncs it and renames it over `file`; returns the new file's stamp.
/// Callers serialize writers (FileLock), since threads of one process share the temporary
/// name. Throws std::runtime_error naming the path on failure (the temporary file is removed).
FileStamp write_atomically(const std::filesystem::path& file, std::string_view text);

/// An exclusive flock() on a lock file (created if missing, never removed: removing it
/// would let two writers lock two different files), held until destruction. Each
/// FileLock opens its own descriptor, so it excludes other threads as well as processes.
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& lock_file);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace kiln::autotune::detail

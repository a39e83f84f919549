// TuningDb: see tuning_db.h; the file format is in tuning_db_format.cpp and the
// locking and atomic replace in db_file.cpp.
#include "autotune/tuning_db.h"

#include <iostream>
#include <stdexcept>
#include <system_error>

#include "autotune/tuning_db_format.h"

namespace kiln::autotune {
namespace {

std::filesystem::path with_suffix(const std::filesystem::path& file, const char* suffix) {
  std::filesystem::path p = file;
  p += suffix;
  return p;
}

}  // namespace

TuningDb::TuningDb(std::filesystem::path file, TuningContext context)
    : file_(std::move(file)), context_(std::move(context)) {}

void TuningDb::refresh(bool always) const {
  std::optional<detail::FileContents> contents;
  std::string problem;
  try {
    if (loaded_ && !always && detail::stat_file(file_) == stamp_) return;  // unchanged: no read
    contents = detail::read_file(file_);
  } catch (const std::runtime_error& e) {
    problem = e.what();
  }
  const std::optional<detail::FileStamp> stamp =
      contents ? std::optional<detail::FileStamp>(contents->stamp) : std::nullopt;
  cache_.clear();
  if (contents) {
    try {
      cache_ = detail::parse_tuning_db(contents->text, context_);
    } catch (const std::runtime_error& e) {
      problem = e.what();
    }
  }
  loaded_ = true;
  stamp_ = stamp;
  usable_ = problem.empty();
  if (!problem.empty() && !warned_) {
    warned_ = true;
    std::cerr << "kiln: tuning database " << file_.string() << " ignored: " << problem << "; it will be rebuilt\n";
  }
}

std::optional<TuningEntry> TuningDb::lookup(const std::string& key) const {
  std::lock_guard guard(mutex_);
  refresh(false);
  const auto it = cache_.find(key);
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, TuningEntry>> TuningDb::entries() const {
  std::lock_guard guard(mutex_);
  refresh(false);
  return {cache_.begin(), cache_.end()};
}

void TuningDb::store(const std::string& key, const TuningEntry& entry) {
  if (file_.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(file_.parent_path(), error);
    if (error) {
      throw std::runtime_error("[autotune] cannot create the directory of tuning database " + file_.string() + ": " +
                               error.message());
    }
  }
  // The file lock first, then the mutex: lookup() takes only the mutex, so no thread
  // can hold the mutex while waiting for the file lock.
  const detail::FileLock lock(with_suffix(file_, ".lock"));
  std::lock_guard guard(mutex_);
  refresh(true);
  TuningEntries merged = usable_ ? cache_ : TuningEntries{};
  merged[key] = entry;
  stamp_ = detail::write_atomically(file_, detail::format_tuning_db(merged, context_));
  cache_ = std::move(merged);
  loaded_ = usable_ = true;
}

std::size_t TuningDb::erase_matching(std::string_view prefix) {
  std::error_code error;
  if (!std::filesystem::exists(file_, error)) return 0;  // nothing to erase, and no directory to lock in
  const detail::FileLock lock(with_suffix(file_, ".lock"));
  std::lock_guard guard(mutex_);
  refresh(true);
  if (!usable_) return 0;
  std::size_t erased = std::erase_if(cache_, [&](const auto& item) { return item.first.starts_with(prefix); });
  if (erased > 0) stamp_ = detail::write_atomically(file_, detail::format_tuning_db(cache_, context_));
  return erased;
}

}  // namespace kiln::autotune

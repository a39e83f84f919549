// read_file(), write_atomically() and FileLock: see db_file.h.
#include "autotune/db_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kiln::autotune::detail {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int error) {
  throw std::runtime_error("[autotune] cannot " + what + " " + path.string() + ": " + std::strerror(error));
}

// Closes a descriptor when the scope ends, also on a throw.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

FileStamp stamp_of(const struct stat& st) {
  return FileStamp{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                   static_cast<std::uint64_t>(st.st_size),
                   static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

void write_all(int fd, std::string_view text, const std::filesystem::path& path) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write", path, errno);
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

std::optional<FileStamp> stat_file(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0) return stamp_of(st);
  if (errno == ENOENT) return std::nullopt;
  fail("stat", file, errno);
}

std::optional<FileContents> read_file(const std::filesystem::path& file) {
  const Fd in{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail("open", file, errno);
  }
  struct stat st {};
  if (::fstat(in.fd, &st) != 0) fail("stat", file, errno);
  FileContents contents{stamp_of(st), std::string()};
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(in.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read", file, errno);
    if (n == 0) return contents;
    contents.text.append(buffer, static_cast<std::size_t>(n));
  }
}

FileStamp write_atomically(const std::filesystem::path& file, std::string_view text) {
  std::filesystem::path tmp = file;
  tmp += ".tmp." + std::to_string(::getpid());
  try {
    const Fd out{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (out.fd < 0) fail("create", tmp, errno);
    write_all(out.fd, text, tmp);
    if (::fsync(out.fd) != 0) fail("sync", tmp, errno);
    struct stat st {};
    if (::fstat(out.fd, &st) != 0) fail("stat", tmp, errno);
    if (::rename(tmp.c_str(), file.c_str()) != 0) fail("rename " + tmp.string() + " to", file, errno);
    return stamp_of(st);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

FileLock::FileLock(const std::filesystem::path& lock_file)
    : fd_(::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
  if (fd_ < 0) fail("open lock file", lock_file, errno);
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int error = errno;
    ::close(fd_);
    fail("lock", lock_file, error);
  }
}

FileLock::~FileLock() { ::close(fd_); }

}  // namespace kiln::autotune::detail

#include "profiler/termination_signals.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

namespace kiln::profiler {
namespace {

constexpr std::array<int, 2> kSignals = {SIGINT, SIGTERM};
constexpr std::size_t kMaxFlushes = 4;

// Read by the signal handler: only lock-free atomics and values set before
// the handlers were installed.
std::array<std::atomic<Flush>, kMaxFlushes> g_flushes{};
std::array<struct sigaction, kSignals.size()> g_previous{};
int g_pipe_write = -1;
std::atomic<pid_t> g_owner{0};  // the process whose thread reads the pipe (0: none does)
std::atomic<bool> g_flushing{false};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<Flush>::is_always_lock_free &&
              std::atomic<pid_t>::is_always_lock_free);

std::size_t slot_of(int sig) { return sig == SIGINT ? 0 : 1; }

bool is_function(const struct sigaction& a) {
  return (a.sa_flags & SA_SIGINFO) ? a.sa_sigaction != nullptr
                                   : a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

// The default action, now: the signal is blocked while its handler runs, so
// it is delivered (and ends the process) as soon as the handler returns.
void end_with_default(int sig) {
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void on_signal(int sig, siginfo_t* info, void* context) {
  const struct sigaction& previous = g_previous[slot_of(sig)];
  if (is_function(previous)) {
    if (previous.sa_flags & SA_SIGINFO) previous.sa_sigaction(sig, info, context);
    else previous.sa_handler(sig);
    return;
  }
  if (::getpid() != g_owner.load() || g_flushing.exchange(true)) return end_with_default(sig);
  const int saved_errno = errno;
  if (::write(g_pipe_write, &sig, sizeof sig) != static_cast<ssize_t>(sizeof sig)) end_with_default(sig);
  errno = saved_errno;
}

void flush_then_end(int read_fd) {
  int sig = 0;
  ssize_t n = 0;
  do n = ::read(read_fd, &sig, sizeof sig);
  while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof sig)) {
    g_owner.store(0);  // cannot wait for signals: the handler gives them their default action
    return;
  }
  for (const auto& slot : g_flushes)
    if (Flush flush = slot.load()) flush();
  ::signal(sig, SIG_DFL);
  sigset_t just_this;
  sigemptyset(&just_this);
  sigaddset(&just_this, sig);
  pthread_sigmask(SIG_UNBLOCK, &just_this, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached: the default action of both signals ends the process
}

bool install() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  g_pipe_write = fds[1];
  g_owner.store(::getpid());
  try {
    std::thread([fd = fds[0]] { flush_then_end(fd); }).detach();
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  struct sigaction action {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals) {
    struct sigaction& previous = g_previous[slot_of(sig)];
    if (::sigaction(sig, nullptr, &previous) != 0) continue;
    if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN) continue;  // e.g. nohup
    ::sigaction(sig, &action, nullptr);
  }
  return true;
}

}  // namespace

bool flush_on_termination_signals(Flush flush) noexcept {
  static std::mutex mu;
  std::lock_guard lock(mu);
  static const bool installed = install();
  if (!installed) return false;
  for (auto& slot : g_flushes) {
    Flush current = slot.load();
    if (current == flush) return true;
    if (current == nullptr) {
      slot.store(flush);
      return true;
    }
  }
  return false;
}

}  // namespace kiln::profiler

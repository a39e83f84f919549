#include "tools/terminal.h"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace kiln::tools {
namespace {

// Signal handlers may only touch these.
volatile sig_atomic_t g_quit = 0;
volatile sig_atomic_t g_resized = 0;
termios g_saved{};
volatile sig_atomic_t g_active = 0;

constexpr char kEnter[] = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J";
constexpr char kLeave[] = "\x1b[?25h\x1b[?1049l";

void write_all(const char* data, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(STDOUT_FILENO, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

// Async-signal-safe: write(2) and tcsetattr(3) only.
void restore() {
  if (!g_active) return;
  g_active = 0;
  write_all(kLeave, sizeof kLeave - 1);
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved);
}

void on_quit(int) { g_quit = 1; }
void on_resize(int) { g_resized = 1; }

void handle(int sig, void (*fn)(int)) {
  struct sigaction sa {};
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns at once with EINTR
  ::sigaction(sig, &sa, nullptr);
}

}  // namespace

Terminal::Terminal() {
  if (!::isatty(STDIN_FILENO) || !::isatty(STDOUT_FILENO))
    throw std::runtime_error("not a terminal; use --once or --json");
  ::tcgetattr(STDIN_FILENO, &g_saved);
  termios raw = g_saved;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  handle(SIGINT, on_quit);
  handle(SIGTERM, on_quit);
  handle(SIGHUP, on_quit);
  handle(SIGWINCH, on_resize);
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
  g_active = 1;
  static const bool at_exit = [] { return std::atexit(restore) == 0; }();
  (void)at_exit;
  write_all(kEnter, sizeof kEnter - 1);
}

Terminal::~Terminal() { restore(); }

void Terminal::size(int& width, int& height) const {
  winsize ws{};
  bool known = ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0;
  width = known ? ws.ws_col : 80;
  height = known ? ws.ws_row : 24;
}

void Terminal::draw(const std::vector<std::string>& lines) {
  // Home, then each line cleared to its end; no newline after the last row,
  // so the screen never scrolls.
  std::string out = "\x1b[H";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    out += "\x1b[K";
    if (i + 1 < lines.size()) out += "\r\n";
  }
  out += "\x1b[J";
  write_all(out.data(), out.size());
}

Terminal::Event Terminal::wait(int timeout_ms) {
  if (g_quit) return Event::Quit;
  if (g_resized) return g_resized = 0, Event::Resize;
  pollfd in{STDIN_FILENO, POLLIN, 0};
  int r = ::poll(&in, 1, timeout_ms);
  if (g_quit) return Event::Quit;
  if (g_resized) return g_resized = 0, Event::Resize;
  if (r <= 0) return Event::Timeout;
  if (in.revents & (POLLHUP | POLLERR)) return Event::Quit;  // the terminal went away
  char c = 0;
  if (::read(STDIN_FILENO, &c, 1) != 1) return Event::Timeout;
  if (c == 'q' || c == 'Q' || c == 3 /* Ctrl-C without ISIG */) return Event::Quit;
  return Event::Key;
}

}  // namespace kiln::tools

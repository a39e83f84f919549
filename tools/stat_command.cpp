// `kiln stat [PATH] [--once|--json] [--interval SECONDS]`: the dashboard.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "tools/commands.h"
#include "tools/dashboard.h"
#include "tools/terminal.h"

namespace kiln::tools {
namespace {

struct StatOptions {
  std::string path;
  bool once = false;
  bool json = false;
  int interval_ms = 1000;
  int width = 0, height = 0;  // --once: 0 = the terminal's, else 80x24
};

const char* kStatUsage =
    "usage: kiln stat [PATH] [--once | --json] [--interval SECONDS] [--size COLSxROWS]\n"
    "  PATH defaults to $KILN_STATS (the file a kiln program writes with KILN_STATS=PATH)\n";

std::optional<StatOptions> parse(Args args) {
  StatOptions o;
  o.path = stats_path_option(args);
  bool positional = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "--once") {
      o.once = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--interval" && has_value) {
      double s = std::atof(args[++i].c_str());
      if (s < 0.05) return std::nullopt;
      o.interval_ms = static_cast<int>(s * 1000);
    } else if (a == "--size" && has_value) {
      if (std::sscanf(args[++i].c_str(), "%dx%d", &o.width, &o.height) != 2 || o.width < 20 || o.height < 5)
        return std::nullopt;
    } else if (!a.empty() && a[0] != '-' && !positional) {
      o.path = a;  // over $KILN_STATS
      positional = true;
    } else {
      return std::nullopt;
    }
  }
  if (o.path.empty()) return std::nullopt;
  return o;
}

int print_once(const StatOptions& o) {
  Snapshot s = load_snapshot(o.path);
  if (s.status != SnapshotStatus::Ok) {
    std::cerr << "kiln stat: " << s.message << "\n";
    return 1;
  }
  if (o.json) {
    // The text as read and checked, not a second read that might see a newer file.
    std::cout << s.text;
    return 0;
  }
  View v;
  v.width = o.width ? o.width : 80;
  v.height = o.height ? o.height : 24;
  v.now_ms = now_unix_ms();
  v.pid_alive = writer_alive(s);
  for (const std::string& line : render_dashboard(s, nullptr, v)) std::cout << line << "\n";
  return 0;
}

int live(const StatOptions& o) {
  Terminal term;
  std::optional<Snapshot> last, prev;
  const std::string help = "q quit   refresh " + std::to_string(o.interval_ms) + " ms   " + o.path;
  while (true) {
    Snapshot s = load_snapshot(o.path);
    View v;
    term.size(v.width, v.height);
    v.now_ms = now_unix_ms();
    v.footer = help;
    if (s.status == SnapshotStatus::Ok) {
      // Rates need two different snapshots: the file may not have changed since the last refresh.
      if (last && last->written_at_ms() != s.written_at_ms()) prev = std::move(last);
      v.pid_alive = writer_alive(s);
      term.draw(render_dashboard(s, prev ? &*prev : nullptr, v));
      last = std::move(s);
    } else {
      term.draw(render_problem(s.message + (s.status == SnapshotStatus::Missing ? "; waiting for it" : ""), v));
    }
    if (term.wait(o.interval_ms) == Terminal::Event::Quit) return 0;
  }
}

}  // namespace

int stat_command(const Args& args) {
  std::optional<StatOptions> o = parse(args);
  if (!o) {
    std::cerr << kStatUsage;
    return 2;
  }
  if (o->once || o->json) return print_once(*o);
  if (!::isatty(STDOUT_FILENO) || !::isatty(STDIN_FILENO)) {
    std::cerr << "kiln stat: not a terminal, printing one frame (use --once or --json in scripts)\n";
    return print_once(*o);
  }
  return live(*o);
}

}  // namespace kiln::tools

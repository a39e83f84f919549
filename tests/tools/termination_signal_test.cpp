// A kiln program ended by SIGTERM or SIGINT closes its timeline (valid JSON)
// and writes a final stats snapshot, then dies of that signal; a handler the
// program installed itself is called instead.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tools/snapshot.h"

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;

struct EndedRun {
  int status = 0;
  std::string timeline;
  Snapshot snapshot;
};

// Starts the program with KILN_TRACE_EVENTS and its stats path in a fresh
// folder, waits until it runs, sends `sig` and waits for it to end.
EndedRun kill_midway(int sig, const char* extra_arg = nullptr) {
  const fs::path dir = fs::temp_directory_path() /
                       ("kiln_signal_test_" + std::to_string(::getpid()) + "_" + std::to_string(sig));
  fs::create_directories(dir);
  const std::string timeline = (dir / "trace.json").string(), stats = (dir / "stats.json").string();
  // Built before fork(): the child of a threaded process may only make async-signal-safe calls.
  std::vector<std::string> env_text = {"KILN_TRACE_EVENTS=" + timeline};
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind("KILN_TRACE_EVENTS=", 0) != 0) env_text.emplace_back(*e);
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  std::string program = KILN_KILLED_MIDWAY, stats_arg = stats, extra = extra_arg ? extra_arg : "";
  std::vector<char*> argv = {program.data(), stats_arg.data()};
  if (extra_arg) argv.push_back(extra.data());
  argv.push_back(nullptr);
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::signal(SIGINT, SIG_DFL);  // a test runner may start its tests with SIGINT ignored
    ::signal(SIGTERM, SIG_DFL);
    ::execve(program.c_str(), argv.data(), env.data());
    ::_exit(127);
  }
  ::close(out[1]);
  char line[16] = {};
  EXPECT_GT(::read(out[0], line, sizeof line - 1), 0) << "the program ended before it ran";
  EXPECT_STREQ(line, "running\n");
  ::close(out[0]);
  ::kill(child, sig);
  EndedRun run;
  EXPECT_EQ(::waitpid(child, &run.status, 0), child);
  std::ostringstream text;
  text << std::ifstream(timeline).rdbuf();
  run.timeline = text.str();
  run.snapshot = load_snapshot(stats);
  fs::remove_all(dir);
  return run;
}

void expect_closed_properly(int sig) {
  EndedRun run = kill_midway(sig);
  ASSERT_TRUE(WIFSIGNALED(run.status)) << "status " << run.status;
  EXPECT_EQ(WTERMSIG(run.status), sig);
  Json events;
  ASSERT_NO_THROW(events = Json::parse(run.timeline))
      << "the timeline ends with: " << run.timeline.substr(run.timeline.size() > 200 ? run.timeline.size() - 200 : 0);
  EXPECT_GT(events.items().size(), 1u);
  ASSERT_EQ(run.snapshot.status, SnapshotStatus::Ok) << run.snapshot.message;
  EXPECT_TRUE(run.snapshot.doc["final"].boolean()) << "no final snapshot after the signal";
  EXPECT_GT(run.snapshot.stats()["segments_run"].number(), 100);
}

TEST(TerminationSignal, SigtermClosesTheTimelineAndWritesAFinalSnapshot) { expect_closed_properly(SIGTERM); }

TEST(TerminationSignal, SigintClosesTheTimelineAndWritesAFinalSnapshot) { expect_closed_properly(SIGINT); }

TEST(TerminationSignal, TheProgramsOwnHandlerIsCalled) {
  EndedRun run = kill_midway(SIGTERM, "--own-handler");
  ASSERT_TRUE(WIFEXITED(run.status)) << "status " << run.status;
  EXPECT_EQ(WEXITSTATUS(run.status), 42);
}

}  // namespace
}  // namespace kiln::tools

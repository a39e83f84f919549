// `kiln stat`'s frames for recorded snapshot fixtures: a full one (checked
// against its expected screen), an idle one, and files that are missing,
// empty, truncated, from a future schema or not snapshots at all.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tools/commands.h"
#include "tools/dashboard.h"

namespace kiln::tools {
namespace {

const std::string kFixtures = KILN_TOOLS_FIXTURES;
constexpr std::int64_t kWrittenAt = 1700000010000;  // full.json's written_at_ms

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

std::string read(const std::string& path) {
  std::ostringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

View view(int width, int height, std::int64_t now_ms, bool alive = true) {
  View v;
  v.width = width;
  v.height = height;
  v.now_ms = now_ms;
  v.pid_alive = alive;
  return v;
}

TEST(Dashboard, FullSnapshotMatchesTheRecordedScreen) {
  Snapshot s = load_snapshot(kFixtures + "/full.json");
  ASSERT_EQ(s.status, SnapshotStatus::Ok) << s.message;
  EXPECT_EQ(joined(render_dashboard(s, nullptr, view(80, 24, kWrittenAt + 400))),
            read(kFixtures + "/full.80x24.txt"));
}

// A rank of a distributed job gets a line for its communication; a
// single-process snapshot (full.json) has none.
TEST(Dashboard, ARankShowsItsCommunication) {
  std::string text = read(kFixtures + "/full.json");
  const std::string stats = "\"stats\": {";
  ASSERT_NE(text.find(stats), std::string::npos);
  text.insert(text.find(stats) + stats.size(),
              "\"comm_bytes_allreduced\": 268435456, \"comm_bytes_broadcast\": 4096, \"allreduce_ms\": 120.5, "
              "\"gradient_allreduce_ms\": 100, \"backward_comm_wait_ms\": 25, \"comm_overlap\": 0.75, ");
  Snapshot s = read_snapshot("rank1.json", text);
  ASSERT_EQ(s.status, SnapshotStatus::Ok) << s.message;
  const std::string frame = joined(render_dashboard(s, nullptr, view(120, 40, kWrittenAt)));
  EXPECT_NE(frame.find("comm        all-reduced 256.0 MiB in 120.5 ms  broadcast 4.0 KiB  backward waited 25.0 ms  "
                       "overlap 75%"),
            std::string::npos)
      << frame;
  Snapshot single = load_snapshot(kFixtures + "/full.json");
  EXPECT_EQ(joined(render_dashboard(single, nullptr, view(120, 40, kWrittenAt))).find("all-reduced"),
            std::string::npos);
}

TEST(Dashboard, EveryFrameFitsItsTerminal) {
  Snapshot s = load_snapshot(kFixtures + "/full.json");
  for (auto [w, h] : {std::pair{80, 24}, {40, 10}, {200, 60}, {20, 5}}) {
    std::vector<std::string> lines = render_dashboard(s, nullptr, view(w, h, kWrittenAt));
    EXPECT_LE(lines.size(), static_cast<std::size_t>(h));
    for (const std::string& l : lines) EXPECT_LE(l.size(), static_cast<std::size_t>(w)) << l;
  }
}

TEST(Dashboard, ABiggerTerminalShowsMore) {
  Snapshot s = load_snapshot(kFixtures + "/full.json");
  std::string big = joined(render_dashboard(s, nullptr, view(160, 40, kWrittenAt)));
  EXPECT_NE(big.find("demoted: compiled 2.1 ns/element"), std::string::npos);
  EXPECT_NE(big.find("compile failed: kernel 00000000000000dd"), std::string::npos);
  EXPECT_NE(big.find("examples/mlp_demo.cpp:57"), std::string::npos);
}

TEST(Dashboard, RatesComeFromConsecutiveSnapshots) {
  Snapshot cur = load_snapshot(kFixtures + "/full.json");
  Snapshot prev = load_snapshot(kFixtures + "/idle.json");  // 9.5 s earlier, zero ops
  std::string frame = joined(render_dashboard(cur, &prev, view(80, 24, kWrittenAt)));
  EXPECT_NE(frame.find("10.5k/s ops  526/s segments"), std::string::npos) << frame;
  EXPECT_EQ(frame.find("average since start"), std::string::npos);
}

TEST(Dashboard, IdleSnapshotSaysSo) {
  Snapshot s = load_snapshot(kFixtures + "/idle.json");
  ASSERT_EQ(s.status, SnapshotStatus::Ok);
  std::string frame = joined(render_dashboard(s, nullptr, view(80, 24, 1700000000600)));
  EXPECT_NE(frame.find("(no segment has run yet)"), std::string::npos) << frame;
  EXPECT_NE(frame.find("failures    none"), std::string::npos) << frame;
}

TEST(Dashboard, StaleWhenOldOrWhenTheWriterIsGone) {
  Snapshot s = load_snapshot(kFixtures + "/full.json");
  EXPECT_NE(render_dashboard(s, nullptr, view(80, 24, kWrittenAt + 600000))[0].find("STALE (600 s old)"),
            std::string::npos);
  EXPECT_NE(render_dashboard(s, nullptr, view(80, 24, kWrittenAt, false))[0].find("STALE (writer gone)"),
            std::string::npos);
  EXPECT_NE(render_dashboard(s, nullptr, view(80, 24, kWrittenAt + 1000))[0].find("live"), std::string::npos);
}

struct BadFile {
  const char* name;
  SnapshotStatus status;
  const char* says;
};

TEST(Dashboard, BadFilesGiveAClearMessageAndExitStatusOne) {
  for (const BadFile& f : {BadFile{"absent.json", SnapshotStatus::Missing, "no such file"},
                           BadFile{"empty.json", SnapshotStatus::Empty, "empty file"},
                           BadFile{"truncated.json", SnapshotStatus::Corrupt, "half-written"},
                           BadFile{"not_snapshot.json", SnapshotStatus::Corrupt, "not a kiln stats snapshot"},
                           BadFile{"future.json", SnapshotStatus::FutureSchema, "schema 2 is newer"}}) {
    std::string path = kFixtures + "/" + f.name;
    EXPECT_EQ(load_snapshot(path).status, f.status) << f.name;
    testing::internal::CaptureStderr();
    int status = stat_command({path, "--once"});
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(status, 1) << f.name;
    EXPECT_NE(err.find(f.says), std::string::npos) << err;
  }
}

TEST(Dashboard, JsonPrintsTheSnapshotAsIs) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(stat_command({kFixtures + "/full.json", "--json"}), 0);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), read(kFixtures + "/full.json"));
}

TEST(Dashboard, BadUsageExitsWithTwo) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(stat_command({"--bogus"}), 2);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("usage: kiln stat"), std::string::npos);
}

}  // namespace
}  // namespace kiln::tools

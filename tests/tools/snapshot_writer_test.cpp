// The stats snapshot writer against its readers: a reader that reads
// continuously while the writer writes never sees a partial file; every
// field of kiln::Stats reaches the file; `kiln explain` finds a planned
// key's ops and kernels in it; `kiln cache` reads the library's cache files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <kiln/kiln.h>

#include "tools/cache_files.h"
#include "tools/commands.h"
#include "tools/snapshot.h"

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("kiln_tools_test_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

kiln::Tensor chain(const kiln::Tensor& x) { return ((x * 2 + 1).relu() - 0.5) * x; }

TEST(SnapshotWriter, AReaderNeverSeesAPartialFile) {
  TempDir dir;
  std::string path = (dir.path / "stats.json").string();
  kiln::set_stats_path(path, 1);
  std::atomic<bool> done{false};
  std::thread work([&] {
    kiln::Tensor x = kiln::ones({64});
    for (int i = 0; i < 2000; ++i) (void)chain(x).sum().item<float>();
    done = true;
  });
  int distinct = 0, reads = 0;
  std::int64_t last = -1;
  while (!done || distinct < 20) {
    Snapshot s = load_snapshot(path);
    if (s.status == SnapshotStatus::Missing) continue;  // before the first write
    ASSERT_EQ(s.status, SnapshotStatus::Ok) << "read " << reads << ": " << s.message;
    ++reads;
    if (s.written_at_ms() != last) ++distinct, last = s.written_at_ms();
  }
  work.join();
  kiln::set_stats_path("");  // stops after a final write
  Snapshot final = load_snapshot(path);
  ASSERT_EQ(final.status, SnapshotStatus::Ok);
  EXPECT_TRUE(final.doc["final"].boolean());
  EXPECT_EQ(final.doc["pid"].number(), ::getpid());
  for (const auto& e : fs::directory_iterator(dir.path))
    EXPECT_EQ(e.path().filename(), "stats.json") << "a temporary file was left behind";
}

TEST(SnapshotWriter, EveryStatsFieldIsInTheFile) {
  TempDir dir;
  kiln::Tensor x = kiln::ones({8});
  (void)chain(x).sum().item<float>();
  (void)kiln::matmul(kiln::ones({64, 64}), kiln::ones({64, 64})).sum().item<float>();  // a tunable product
  kiln::Stats s = kiln::stats();
  std::string path = (dir.path / "one.json").string();
  kiln::write_stats(path);
  Snapshot snap = load_snapshot(path);
  ASSERT_EQ(snap.status, SnapshotStatus::Ok) << snap.message;
  const Json& j = snap.stats();
  EXPECT_EQ(snap.doc["schema"].number(), 1);
  EXPECT_FALSE(snap.doc["final"].boolean());
  // Counters only grow between the two reads.
  EXPECT_GE(j["ops_recorded"].number(), static_cast<double>(s.ops_recorded));
  EXPECT_GE(j["segments_run"].number(), static_cast<double>(s.segments_run));
  EXPECT_GE(j["peak_bytes"].number(), 1.0);
  std::size_t jit_counters = 0;
  for (const CounterInfo& c : kCounters) {
    const Json section = c.section == "jit" ? j["jit"] : j;
    EXPECT_EQ(section[c.name].kind(), Json::Kind::Number) << c.section << "." << c.name;
    jit_counters += c.section == "jit";
  }
  EXPECT_EQ(j["segments_by_reason"].members().size(), kiln::kNumCutReasons);
  EXPECT_EQ(j["jit"].members().size(), jit_counters + 1) << "the counters and recent_failures, nothing else";
  ASSERT_FALSE(j["tunables"].items().empty());
  const Json tunable = j["tunables"].items()[0];
  EXPECT_EQ(tunable.members().size(), 6u) << "a TunableStats field is missing from the snapshot";
  for (const char* field : {"key", "target", "config"}) EXPECT_EQ(tunable[field].kind(), Json::Kind::String) << field;
  for (const char* field : {"threads", "calls", "total_ms"})
    EXPECT_EQ(tunable[field].kind(), Json::Kind::Number) << field;
  ASSERT_FALSE(j["top_keys"].items().empty());
  const Json top = j["top_keys"].items()[0];
  EXPECT_EQ(top["key"].string().size(), 16u);
  EXPECT_EQ(top["first_reason"].string(), "item");
  for (const char* field : {"runs_tier0", "runs_tier1", "tier0_ms", "tier1_ms", "bytes", "kernels", "compile_ms", "deopts"})
    EXPECT_EQ(top[field].kind(), Json::Kind::Number) << field;
  EXPECT_EQ(top["state"].kind(), Json::Kind::String);
  EXPECT_EQ(top["call_site"].kind(), Json::Kind::String);
  EXPECT_TRUE(j["profiling"].boolean());
  ASSERT_FALSE(j["cut_sites"].items().empty());
  bool item_site = false;
  for (const Json& c : j["cut_sites"].items()) item_site = item_site || c["reason"].string() == "item";
  EXPECT_TRUE(item_site) << "the item() above is a cut site";
  EXPECT_FALSE(j["recent_events"].items().empty());
}

TEST(SnapshotWriter, BadSettingsThrowClearErrors) {
  EXPECT_THROW(kiln::set_stats_path("/tmp/x.json", 0), kiln::ValueError);
  try {
    kiln::set_stats_path("/no/such/dir/stats.json");
    FAIL() << "no error";
  } catch (const kiln::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("[set_stats_path] directory of /no/such/dir/stats.json"), std::string::npos);
  }
}

TEST(Explain, ShowsThePlanOfAHotSegmentAndItsKernels) {
  TempDir dir;
  kiln::jit::set_enabled(true);
  kiln::jit::set_compile_sync(true);
  kiln::jit::set_hot_threshold(1);
  kiln::Tensor x = kiln::full({33}, 0.5);
  for (int i = 0; i < 300; ++i) (void)chain(x).amin().item<float>();  // the most-run key of this process
  kiln::jit::set_compile_sync(false);
  kiln::jit::set_enabled(false);
  std::string path = (dir.path / "s.json").string();
  kiln::write_stats(path);
  Snapshot snap = load_snapshot(path);
  Json planned;
  for (const Json& k : snap.stats()["top_keys"].items())
    if (k.has("plan") && k["plan"].string().find("amin") != std::string::npos) planned = k;
  ASSERT_FALSE(planned.is_null()) << snap.text;
  ASSERT_FALSE(planned["kernel_keys"].items().empty());

  testing::internal::CaptureStdout();
  EXPECT_EQ(explain_command({planned["key"].string(), "--stats", path}), 0);
  std::string segment = testing::internal::GetCapturedStdout();
  EXPECT_NE(segment.find(": mul Float [33]  group 0"), std::string::npos) << segment;
  EXPECT_NE(segment.find("group 0: kernel"), std::string::npos) << segment;
  EXPECT_NE(segment.find("not kept"), std::string::npos) << segment;

  std::string kernel = planned["kernel_keys"].items()[0].string();
  testing::internal::CaptureStdout();
  EXPECT_EQ(explain_command({kernel.substr(0, 8), "--stats", path}), 0);
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("kernel " + kernel + ": fused group 0 of segment"), std::string::npos) << out;

  testing::internal::CaptureStderr();
  EXPECT_EQ(explain_command({"ffffffffffffffff", "--stats", path}), 1);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("no key ffffffffffffffff"), std::string::npos);
}

TEST(Cache, ReadsTheLibrarysFilesAndClearsOnlyThem) {
  std::string dir = cache_dir_from_env();  // ctest points KILN_CACHE_DIR at this suite's own folder
  ASSERT_FALSE(dir.empty());
  kiln::jit::set_enabled(true);
  kiln::jit::set_compile_sync(true);
  kiln::jit::set_hot_threshold(1);
  kiln::Tensor x = kiln::full({17}, 0.25);
  for (int i = 0; i < 3; ++i) (void)((x - 3) * x).abs().sum().item<float>();
  kiln::jit::set_compile_sync(false);
  kiln::jit::set_enabled(false);
  std::vector<CacheFile> files = scan_cache(dir);
  ASSERT_FALSE(files.empty()) << "the JIT wrote no object to " << dir;
  for (const CacheFile& f : files) EXPECT_TRUE(f.valid) << f.path << ": " << f.problem;

  std::ofstream(dir + "/notes.txt") << "not kiln's";
  std::ofstream(dir + "/00000000000000aa-00000000000000bb.kobj") << "corrupt";
  files = scan_cache(dir);
  auto corrupt = std::find_if(files.begin(), files.end(), [](const CacheFile& f) { return f.key == "00000000000000aa"; });
  ASSERT_NE(corrupt, files.end());
  EXPECT_FALSE(corrupt->valid);
  testing::internal::CaptureStdout();
  EXPECT_EQ(cache_command({"clear", "--dir", dir}), 0);
  EXPECT_NE(testing::internal::GetCapturedStdout().find("removed " + std::to_string(files.size()) + " files"),
            std::string::npos);
  EXPECT_TRUE(scan_cache(dir).empty());
  EXPECT_TRUE(fs::exists(dir + "/notes.txt")) << "clear removed a file that is not kiln's";
  fs::remove(dir + "/notes.txt");
}

}  // namespace
}  // namespace kiln::tools

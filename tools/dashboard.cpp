#include "tools/dashboard.h"

#include <algorithm>

#include <kiln/profiler/payoff.h>

#include "tools/format.h"

namespace kiln::tools {
namespace {

double num(const Json& j) { return j.number(); }

// Fields a snapshot from an older kiln lacks (evictions, recomputes) read
// as "-".
std::string text_or_dash(const Json& j) {
  if (j.kind() == Json::Kind::String) return j.string().empty() ? "-" : j.string();
  if (j.kind() == Json::Kind::Number) return short_count(j.number());
  if (j.is_object() && j.has("file")) {
    std::string site = j["file"].string();
    if (j.has("line")) site.append(":").append(std::to_string(static_cast<long long>(num(j["line"]))));
    return site;
  }
  return "-";
}

std::string percent(double part, double whole) {
  if (whole <= 0) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * part / whole);
  return buf;
}

// Per second between two snapshots, or since the program started.
struct Rates {
  double seconds = 0;
  bool average = false;
  std::string of(const Json& cur, const Json& prev) const {
    if (seconds <= 0) return "-";
    return short_count((num(cur) - num(prev)) / seconds) + "/s";
  }
};

std::string pad_label(const std::string& label) { return cell(label, 12); }

// Tuning: background tunings running and done, the share of tunable time run
// with a tuned config, and the latest win.
std::string tuning(const Json& s) {
  const Json j = s["jit"];
  double total = 0, tuned = 0;
  std::size_t kernels = 0, tuned_kernels = 0;
  for (const Json& k : s["tunables"].items()) {
    ++kernels;
    total += num(k["total_ms"]);
    if (k["config"].string("heuristic") != "heuristic") {
      ++tuned_kernels;
      tuned += num(k["total_ms"]);
    }
  }
  std::string line = pad_label("tuning") + "in flight " + text_or_dash(j["tunes_in_flight"]) + "  done " +
                     short_count(num(j["tunes_done"])) + "  kernels " + std::to_string(kernels) + ", " +
                     std::to_string(tuned_kernels) + " tuned (" + percent(tuned, total) + " of time)";
  const auto& events = s["recent_events"].items();
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if ((*it)["kind"].string() == "tuned") return line + "  last " + (*it)["detail"].string();
  return line;
}

std::vector<std::string> summary(const Snapshot& cur, const Snapshot* prev, const View& view) {
  const Json& s = cur.stats();
  const Json j = s["jit"];
  Rates r;
  Json p;  // the previous snapshot's stats (null: rates since the start)
  if (prev && prev->written_at_ms() < cur.written_at_ms()) {
    r.seconds = static_cast<double>(cur.written_at_ms() - prev->written_at_ms()) / 1000;
    p = prev->stats();
  } else {
    r.seconds = static_cast<double>(cur.written_at_ms() - static_cast<std::int64_t>(num(cur.doc["started_at_ms"]))) / 1000;
    r.average = true;
  }
  auto rate = [&](const char* field) { return r.of(s[field], p[field]); };

  Freshness fresh = judge(cur, view.now_ms, view.pid_alive);
  std::vector<std::string> out;
  out.push_back("kiln stat  " + cur.doc["program"].string("?") + " pid " +
                std::to_string(static_cast<long long>(num(cur.doc["pid"]))) + "  " +
                (fresh.stale ? "STALE (" + fresh.label.substr(7) + ")" : fresh.label) + "  written " +
                age(std::max<std::int64_t>(0, view.now_ms - cur.written_at_ms())) + " ago");
  out.push_back(pad_label("throughput") + rate("ops_executed") + " ops  " + rate("segments_run") + " segments" +
                (r.average ? "  (average since start)" : ""));
  double t1 = num(j["group_runs_compiled"]), t0 = num(j["group_runs_interpreted"]);
  out.push_back(pad_label("tiers") + "fused groups on tier 1 " + percent(t1, t0 + t1) + ", tier 0 " +
                percent(t0, t0 + t1) + "  (" + short_count(t0 + t1) + " runs)");
  out.push_back(pad_label("compiles") + short_count(num(j["compiles_done"])) + " done of " +
                short_count(num(j["compiles_requested"])) + "  in flight " + text_or_dash(j["compiles_in_flight"]) +
                "  queued " + text_or_dash(j["compiles_queued"]) + "  failed " +
                short_count(num(j["compiles_failed"])));
  out.push_back(pad_label("latency") + "p50 " + millis(num(j["compile_ms_p50"])) + "  p90 " +
                millis(num(j["compile_ms_p90"])) + "  p99 " +
                (j.has("compile_ms_p99") ? millis(num(j["compile_ms_p99"])) : "-") + "  max " +
                millis(num(j["compile_ms_max"])));
  out.push_back(pad_label("cache hits") + "memory " + short_count(num(j["memory_cache_hits"])) + "  disk " +
                short_count(num(j["disk_cache_hits"])) + " (load p50 " + millis(num(j["disk_load_ms_p50"])) +
                ")  disk writes " + short_count(num(j["disk_cache_writes"])));
  out.push_back(pad_label("swaps") + "hot swaps " + short_count(num(j["hot_swaps"])) + "  deopts " +
                short_count(num(j["demoted"])) + "  dynamic-shape kernels " +
                short_count(num(j["dynamic_compiles"])));
  out.push_back(tuning(s));
  double budget = num(s["budget_bytes"]);
  out.push_back(pad_label("memory") + "live " + bytes(num(s["live_bytes"])) + "  peak " +
                bytes(num(s["peak_bytes"])) + "  budget " + (budget > 0 ? bytes(budget) : "none") + "  pooled " +
                bytes(num(s["pooled_bytes"])) +
                (s.has("prepacked_bytes") ? "  packed weights " + bytes(num(s["prepacked_bytes"])) : ""));
  // With what they freed and cost, when the snapshot has it.
  std::string evictions = text_or_dash(s["evictions"]), recomputes = text_or_dash(s["recomputes"]);
  if (s.has("bytes_evicted")) evictions += " (" + bytes(num(s["bytes_evicted"])) + ")";
  if (s.has("recompute_ms")) recomputes += " (" + millis(num(s["recompute_ms"])) + ")";
  out.push_back(pad_label("") + "evictions " + evictions + "  recomputes " + recomputes + "  out-of-memory " +
                short_count(num(s["oom_errors"])));
  // A rank of a kiln::distributed job: what it all-reduced and broadcast,
  // and how much of the gradient all-reduce backward did not wait for.
  if (num(s["comm_bytes_allreduced"]) + num(s["comm_bytes_broadcast"]) > 0)
    out.push_back(pad_label("comm") + "all-reduced " + bytes(num(s["comm_bytes_allreduced"])) + " in " +
                  millis(num(s["allreduce_ms"])) + "  broadcast " + bytes(num(s["comm_bytes_broadcast"])) +
                  "  backward waited " + millis(num(s["backward_comm_wait_ms"])) + "  overlap " +
                  (num(s["gradient_allreduce_ms"]) > 0 ? percent(num(s["comm_overlap"]), 1) : "-"));
  std::string cuts;
  std::vector<std::pair<double, std::string>> reasons;
  for (const auto& [name, n] : s["segments_by_reason"].members())
    if (num(n) > 0) reasons.emplace_back(num(n), name);
  std::sort(reasons.rbegin(), reasons.rend());
  for (const auto& [n, name] : reasons) cuts.append(cuts.empty() ? " " : ", ").append(name + " " + short_count(n));
  out.push_back(pad_label("segments") + short_count(num(s["segments_run"])) + " run, " +
                short_count(num(s["distinct_keys"])) + " keys; cut at" + (cuts.empty() ? " -" : cuts));
  return out;
}

std::vector<std::string> failures(const Json& jit, std::size_t room) {
  const auto& all = jit["recent_failures"].items();
  std::vector<std::string> out;
  out.push_back(pad_label("failures") + (all.empty() ? "none" : short_count(num(jit["compiles_failed"])) + " compiles failed, " +
                                                                    std::to_string(all.size()) + " recent reasons:"));
  // Newest first, as many as fit.
  for (auto it = all.rbegin(); it != all.rend() && out.size() < room; ++it) out.push_back("  " + it->string());
  return out;
}

// What compiling the key has saved so far net of its compile time ("+12.0 ms",
// "-3.10 ms"), or "-" until it has run on both tiers.
std::string payoff(const Json& key) {
  const KeyRuns r{static_cast<std::uint64_t>(num(key["runs_tier0"])), static_cast<std::uint64_t>(num(key["runs_tier1"])),
                  num(key["tier0_ms"]), num(key["tier1_ms"]), num(key["compile_ms"])};
  if (r.runs_tier0 == 0 || r.runs_tier1 == 0) return "-";
  const double ms = r.payoff_ms();
  std::string text(ms >= 0 ? "+" : "-");
  return text.append(millis(ms >= 0 ? ms : -ms));
}

std::vector<std::string> key_table(const Json& stats, int width, std::size_t rows) {
  std::vector<Json> keys = stats["top_keys"].items();
  std::stable_sort(keys.begin(), keys.end(),
                   [](const Json& a, const Json& b) { return num(a["total_ms"]) > num(b["total_ms"]); });
  double total = 0;
  for (const Json& k : keys) total += num(k["total_ms"]);
  int site = std::max(width - 71, 9);
  std::vector<std::string> out;
  out.push_back(cell("KEY", 16) + " " + cell("RUNS", 8, true) + " " + cell("TIME", 9, true) + " " +
                cell("%TIME", 6, true) + " " + cell("OPS", 5, true) + "  " + cell("STATE", 11) + " " +
                cell("PAYOFF", 8, true) + " " + cell("CALL SITE", site));
  for (const Json& e : keys) {
    if (out.size() > rows) break;
    out.push_back(cell(e["key"].string(), 16) + " " + cell(short_count(num(e["runs"])), 8, true) + " " +
                  cell(millis(num(e["total_ms"])), 9, true) + " " + cell(percent(num(e["total_ms"]), total), 6, true) +
                  " " + cell(short_count(num(e["ops"])), 5, true) + "  " + cell(text_or_dash(e["state"]), 11) + " " +
                  cell(payoff(e), 8, true) + " " + cell(text_or_dash(e["call_site"]), site));
  }
  if (keys.empty()) out.push_back("(no segment has run yet)");
  return out;
}

void fit(std::vector<std::string>& lines, const View& view) {
  if (lines.size() > static_cast<std::size_t>(view.height)) lines.resize(static_cast<std::size_t>(view.height));
  for (std::string& l : lines) {
    if (l.size() > static_cast<std::size_t>(view.width)) l.resize(static_cast<std::size_t>(view.width));
    l.erase(l.find_last_not_of(' ') + 1);  // padding of the last column
  }
}

}  // namespace

std::vector<std::string> render_dashboard(const Snapshot& cur, const Snapshot* prev, const View& view) {
  std::vector<std::string> lines = summary(cur, prev, view);
  std::size_t height = static_cast<std::size_t>(std::max(view.height, 1));
  std::size_t footer = view.footer.empty() ? 0 : 1;
  std::size_t keys = cur.stats()["top_keys"].items().size();
  // The table gets the room first (header + a row per key); failures what is left, at least one line.
  std::size_t used = lines.size() + 1 /*failures*/ + 1 /*blank*/ + 1 /*table header*/ + footer;
  std::size_t rows = height > used ? std::min(std::max<std::size_t>(keys, 1), height - used) : 0;
  std::size_t failure_room = height > used + rows ? height - used - rows + 1 : 1;
  for (std::string& l : failures(cur.stats()["jit"], std::min<std::size_t>(failure_room, 9))) lines.push_back(l);
  lines.emplace_back();
  for (std::string& l : key_table(cur.stats(), view.width, rows)) lines.push_back(l);
  if (footer) {
    if (lines.size() >= height) lines.resize(height - 1);
    lines.push_back(view.footer);
  }
  fit(lines, view);
  return lines;
}

std::vector<std::string> render_problem(const std::string& message, const View& view) {
  std::vector<std::string> lines = {"kiln stat", "", message};
  if (!view.footer.empty()) lines.push_back(view.footer);
  fit(lines, view);
  return lines;
}

}  // namespace kiln::tools

// `kiln explain KEY [--stats PATH]`: what kiln made of a segment or kernel
// key, from the snapshot: its ops, fused groups, call site, state, and its
// IR when the program ran with KILN_DUMP.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools/commands.h"
#include "tools/format.h"
#include "tools/snapshot.h"

namespace kiln::tools {
namespace {

const char* kExplainUsage =
    "usage: kiln explain KEY [--stats PATH]\n"
    "  KEY: a segment or kernel key (16 hex digits, or a unique prefix), as `kiln stat` shows\n"
    "  PATH defaults to $KILN_STATS\n";

const char* kStages[] = {"spec", "ir", "opt", "asm"};

struct Match {
  Json segment;
  std::string key;     // the full key matched
  bool kernel = false;  // a kernel key of `segment`'s plan
  int group = -1;
};

std::vector<Match> find(const Json& stats, const std::string& prefix) {
  std::vector<Match> out;
  for (const Json& seg : stats["top_keys"].items()) {
    std::string k = seg["key"].string();
    if (k.rfind(prefix, 0) == 0) out.push_back({seg, k, false, -1});
    const auto& kernels = seg["kernel_keys"].items();
    for (std::size_t g = 0; g < kernels.size(); ++g)
      if (kernels[g].string().rfind(prefix, 0) == 0) out.push_back({seg, kernels[g].string(), true, static_cast<int>(g)});
  }
  return out;
}

// The lines of the plan that describe group `g` ("group g: ..." and its indented spec).
std::string group_text(const std::string& plan, int g) {
  std::istringstream in(plan);
  std::string out, head = "group " + std::to_string(g) + ":";
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("group ", 0) == 0) inside = line.rfind(head, 0) == 0;
    if (inside) out += line + "\n";
  }
  return out;
}

void print_dumps(const Json& doc, const std::string& kernel, bool contents) {
  std::string dir = doc["dump"]["dir"].string();
  if (dir.empty()) {
    std::cout << "IR of kernel " << kernel
              << ": not kept (run the program with KILN_DUMP=ir,opt KILN_DUMP_DIR=DIR to keep it)\n";
    return;
  }
  bool any = false;
  std::string shown;
  for (const char* stage : kStages) {
    std::filesystem::path p = std::filesystem::path(dir) / ("kiln_" + kernel + "_" + stage + ".txt");
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) continue;
    any = true;
    std::cout << "  " << stage << ": " << p.string() << "\n";
    if (std::string(stage) == "ir" || std::string(stage) == "opt") shown = p.string();  // the last IR stage kept
  }
  if (!any) std::cout << "IR of kernel " << kernel << ": no dump files in " << dir << " (KILN_DUMP=" << doc["dump"]["stages"].string() << ")\n";
  if (contents && !shown.empty()) {
    std::cout << "--- " << shown << "\n" << std::ifstream(shown).rdbuf();
  }
}

void explain_segment(const Json& doc, const Json& seg) {
  std::cout << "segment " << seg["key"].string() << ": " << short_count(seg["runs"].number()) << " runs, "
            << millis(seg["total_ms"].number()) << " in total, " << seg["ops"].number() << " ops\n";
  auto field = [](const Json& j) { return j.kind() == Json::Kind::String && !j.string().empty() ? j.string() : "-"; };
  std::cout << "state: " << field(seg["state"]) << "   call site: " << field(seg["call_site"]) << "\n";
  std::cout << "cut: first at " << field(seg["first_reason"]) << ", latest at " << field(seg["last_reason"]) << "\n";
  if (!seg.has("plan")) {
    std::cout << "not planned for tier 1 (yet): it runs op by op on tier 0\n";
    return;
  }
  std::cout << seg["plan"].string();
  for (const Json& k : seg["kernel_keys"].items()) print_dumps(doc, k.string(), false);
}

void explain_kernel(const Json& doc, const Match& m) {
  std::cout << "kernel " << m.key << ": fused group " << m.group << " of segment " << m.segment["key"].string()
            << "\n";
  std::cout << group_text(m.segment["plan"].string(), m.group);
  print_dumps(doc, m.key, true);
}

}  // namespace

int explain_command(const Args& args_in) {
  Args args = args_in;
  std::string path = stats_path_option(args);
  if (args.size() != 1 || path.empty()) {
    std::cerr << kExplainUsage;
    return 2;
  }
  std::string key = args[0];
  if (key.rfind("0x", 0) == 0) key = key.substr(2);
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key.empty() || key.size() > 16 || key.find_first_not_of("0123456789abcdef") != std::string::npos) {
    std::cerr << "kiln explain: '" << args[0] << "' is not a key (up to 16 hex digits)\n";
    return 2;
  }
  Snapshot s = load_snapshot(path);
  if (s.status != SnapshotStatus::Ok) {
    std::cerr << "kiln explain: " << s.message << "\n";
    return 1;
  }
  std::vector<Match> matches = find(s.stats(), key);
  if (matches.empty()) {
    std::cerr << "kiln explain: no key " << key << " among the " << s.stats()["top_keys"].items().size()
              << " top segments of " << path << " or their kernels (`kiln stat " << path << "` lists them)\n";
    return 1;
  }
  for (const Match& m : matches) {
    if (m.key != matches[0].key) {
      std::cerr << "kiln explain: " << key << " is ambiguous: " << matches[0].key << ", " << m.key << ", ...\n";
      return 1;
    }
  }
  if (matches[0].kernel) explain_kernel(s.doc, matches[0]);
  else explain_segment(s.doc, matches[0].segment);
  return 0;
}

}  // namespace kiln::tools

// README.md's and docs/DESIGN.md's tables of environment variables list
// exactly the knobs of profiler/settings/settings.def, and README's
// "meaning" cell of each is the table's doc line.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "profiler/settings/settings.h"

namespace kiln::profiler::settings {
namespace {

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in) << "cannot read " << relative;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The rows "| `KILN_X` | meaning |" of the first table after `heading`:
// variable -> meaning.
std::map<std::string, std::string> knob_table(const std::string& doc, const std::string& heading) {
  std::map<std::string, std::string> rows;
  const std::size_t at = doc.find(heading);
  EXPECT_NE(at, std::string::npos) << "no heading '" << heading << "'";
  if (at == std::string::npos) return rows;
  std::istringstream lines(doc.substr(at + heading.size()));
  static const std::regex kRow(R"(\| `(KILN_[A-Z_]+)` \| (.*) \|)");
  bool in_table = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    std::smatch m;
    if (std::regex_match(line, m, kRow)) rows[m[1]] = m[2];
  }
  return rows;
}

std::set<std::string> declared() {
  std::set<std::string> names;
  for (const Setting& s : all()) names.insert(s.variable);
  return names;
}

std::set<std::string> names_of(const std::map<std::string, std::string>& rows) {
  std::set<std::string> names;
  for (const auto& [name, meaning] : rows) names.insert(name);
  return names;
}

TEST(SettingsDocs, ReadmeListsEveryKnobWithItsDocLine) {
  const auto rows = knob_table(read_source("README.md"), "## Environment variables");
  EXPECT_EQ(names_of(rows), declared());
  for (const Setting& s : all()) {
    const auto row = rows.find(s.variable);
    if (row == rows.end()) continue;
    EXPECT_EQ(row->second, s.doc) << "README.md's row should be:\n| `" << s.variable << "` | " << s.doc << " |";
  }
}

TEST(SettingsDocs, DesignListsEveryKnob) {
  EXPECT_EQ(names_of(knob_table(read_source("docs/DESIGN.md"), "## Configuration")), declared());
}

}  // namespace
}  // namespace kiln::profiler::settings

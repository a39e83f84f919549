// docs/stats-schema.md's counter table against the declared list
// (include/kiln/profiler/counters.def): same rows, same order, same words.
// On a difference the test prints the table the doc should hold.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <kiln/profiler/counter_list.h>

namespace kiln {
namespace {

const char* const kHeader = "| section | field | unit | meaning |";

std::vector<std::string> expected_table() {
  std::vector<std::string> rows = {kHeader, "|---|---|---|---|"};
  for (const CounterInfo& c : kCounters)
    rows.push_back("| `" + std::string(c.section) + "` | `" + std::string(c.name) + "` | " +
                   std::string(unit_name(c.unit)) + " | " + std::string(c.doc) + " |");
  return rows;
}

// The table that starts at kHeader: its lines up to the first blank one.
std::vector<std::string> doc_table(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<std::string> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == kHeader) inside = true;
    if (!inside) continue;
    if (line.empty()) break;
    rows.push_back(line);
  }
  return rows;
}

std::string joined(const std::vector<std::string>& rows) {
  std::string out;
  for (const std::string& r : rows) out += r + "\n";
  return out;
}

TEST(StatsSchemaDoc, CounterTableMatchesTheDeclaredList) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/docs/stats-schema.md";
  EXPECT_EQ(joined(doc_table(path)), joined(expected_table()))
      << path << "'s counter table differs from include/kiln/profiler/counters.def; it should read:\n"
      << joined(expected_table());
}

TEST(StatsSchemaDoc, EveryCounterHasADocLine) {
  for (const CounterInfo& c : kCounters) {
    EXPECT_FALSE(c.doc.empty()) << c.name;
    EXPECT_EQ(c.doc.find('|'), std::string_view::npos) << c.name << ": a '|' would split the doc's table cell";
    EXPECT_TRUE(c.section == "stats" || c.section == "jit") << c.name;
  }
}

}  // namespace
}  // namespace kiln

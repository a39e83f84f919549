// Every knob of profiler/settings/settings.def read from its environment
// variable: a good value is accepted, a bad one throws kiln::ValueError
// naming the variable and the value. The table's readers read the variable
// on each call (the layers keep the value), so the tests set it in-process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include <kiln/error.h>

#include "profiler/settings/settings.h"

namespace kiln::profiler::settings {
namespace {

struct Example {
  std::string good, bad;
};

// One good and one bad value per knob: a knob added to the table without
// its examples fails EveryKnobAcceptsGoodAndRejectsBadValues.
const std::map<std::string, Example> kExamples = {
    {"KILN_MEMORY_BUDGET", {"1.5K", "12x"}},
    {"KILN_EVICTION_POLICY", {"lru", "LRU"}},
    {"KILN_TRACE_LIMIT", {"100", "0"}},
    {"KILN_NUM_THREADS", {"3", "65537"}},
    {"KILN_JIT", {"off", "2"}},
    {"KILN_HOT_THRESHOLD", {"5", "1.5"}},
    {"KILN_JIT_SYNC", {"yes", "maybe"}},
    {"KILN_COMPILE_TIMEOUT_MS", {"2min", "-5"}},
    {"KILN_COMPILE_COLD_MS", {"10s", "0"}},
    {"KILN_JIT_MAX_KEYS", {"100000", "7"}},
    {"KILN_JIT_MAX_KERNELS", {"16", "many"}},
    {"KILN_CACHE_DIR", {"/tmp/kiln-cache", "/tmp/a\nb"}},
    {"KILN_CACHE_MAX_BYTES", {"1G", "1Q"}},
    {"KILN_PREPACK_MAX_BYTES", {"64M", "lots"}},
    {"KILN_STATS", {"/tmp/stats.json", "stats\t.json"}},
    {"KILN_STATS_INTERVAL_MS", {"2s", "0"}},
    {"KILN_DUMP", {"ir,asm", "ir,,asm"}},
    {"KILN_DUMP_DIR", {"/tmp", "/tmp/\x01"}},
    {"KILN_TRACE_EVENTS", {"/tmp/trace.json", "trace\x1b.json"}},
    {"KILN_REPORT", {"1", "2"}},
    {"KILN_PROFILE", {"0", "nope"}},
    {"KILN_AUTOTUNE", {"online", "2"}},
    {"KILN_AUTOTUNE_BUDGET", {"500ms", "0"}},
    {"KILN_TUNING_DB", {"/tmp/tuning.json", "db\r.json"}},
    {"KILN_TUNE_BUDGET", {"1min", "-1"}},
    {"KILN_DIST_TIMEOUT", {"2min", "0"}},
};

// Reads `s` as its layer does, by its kind.
void read(const Setting& s) {
  switch (s.rule.kind) {
    case Kind::Integer: read_integer(s.id); return;
    case Kind::Bytes: read_bytes(s.id); return;
    case Kind::Boolean: read_boolean(s.id); return;
    case Kind::Duration: read_duration(s.id); return;
    case Kind::Path:
    case Kind::Choice:
    case Kind::List: read_text(s.id); return;
  }
}

// Sets a variable for one test and restores it after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedVariable() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(SettingsTable, EveryKnobAcceptsGoodAndRejectsBadValues) {
  for (const Setting& s : all()) {
    const auto example = kExamples.find(s.variable);
    ASSERT_NE(example, kExamples.end()) << s.variable << " has no examples here";
    {
      ScopedVariable v(s.variable, example->second.good);
      EXPECT_NO_THROW(read(s)) << s.variable << "=" << example->second.good;
    }
    ScopedVariable v(s.variable, example->second.bad);
    try {
      read(s);
      ADD_FAILURE() << s.variable << " accepted '" << example->second.bad << "'";
    } catch (const ValueError& e) {
      const std::string named = std::string(s.variable) + "='" + example->second.bad + "'";
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(kExamples.size(), all().size()) << "examples of a knob that is no longer declared";
}

TEST(SettingsTable, DefaultsParseByTheirOwnRule) {
  for (const Setting& s : all()) {
    if (!*s.default_text) continue;
    EXPECT_NO_THROW(validate(s.id, s.default_text)) << s.variable << " default '" << s.default_text << "'";
  }
}

TEST(SettingsTable, UnsetOrEmptyMeansTheDefault) {
  ScopedVariable limit("KILN_TRACE_LIMIT", "");
  EXPECT_EQ(read_integer(Id::TraceLimit), 4096);
  ::unsetenv("KILN_TRACE_LIMIT");
  EXPECT_EQ(read_integer(Id::TraceLimit), 4096);
  EXPECT_FALSE(text(Id::TraceLimit).has_value());
}

// The example: strtoull read "1G" as 1 byte and emptied the cache.
TEST(SettingsTable, CacheMaxBytesTakesUnits) {
  ScopedVariable v("KILN_CACHE_MAX_BYTES", "1G");
  EXPECT_EQ(read_bytes(Id::CacheMaxBytes), std::uint64_t{1} << 30);
}

TEST(SettingsTable, AKnobReadAsAnotherKindIsAnInternalError) {
  EXPECT_THROW(read_boolean(Id::TraceLimit), InternalError);
  EXPECT_THROW(read_text(Id::MemoryBudget), InternalError);
}

TEST(SettingsTable, EveryRowIsComplete) {
  for (const Setting& s : all()) {
    EXPECT_EQ(std::string(s.variable).rfind("KILN_", 0), 0u) << s.variable;
    EXPECT_NE(std::string(s.setter), "") << s.variable;
    EXPECT_NE(std::string(s.doc), "") << s.variable;
    EXPECT_EQ(&setting(s.id), &s) << s.variable;
  }
}

}  // namespace
}  // namespace kiln::profiler::settings

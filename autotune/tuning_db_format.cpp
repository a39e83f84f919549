// format_tuning_db() and parse_tuning_db(): see tuning_db_format.h.
#include "autotune/tuning_db_format.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kiln::autotune::detail {
namespace {

using nlohmann::json;

const json& member(const json& object, const char* name) {
  if (!object.is_object() || !object.contains(name)) {
    throw std::runtime_error(std::string("missing \"") + name + "\"");
  }
  return object.at(name);
}

std::string text_member(const json& object, const char* name) {
  const json& value = member(object, name);
  if (!value.is_string()) throw std::runtime_error(std::string("\"") + name + "\" is not a string");
  return value.get<std::string>();
}

double number_member(const json& object, const char* name) {
  const json& value = member(object, name);
  if (!value.is_number()) throw std::runtime_error(std::string("\"") + name + "\" is not a number");
  return value.get<double>();
}

std::int64_t integer_member(const json& object, const char* name) {
  const json& value = member(object, name);
  if (!value.is_number_integer()) throw std::runtime_error(std::string("\"") + name + "\" is not an integer");
  return value.get<std::int64_t>();
}

// Written with ordered_json so the file reads top-down: schema, context, entries.
nlohmann::ordered_json context_json(const TuningContext& context) {
  return nlohmann::ordered_json{{"cpu_model", context.cpu_model},
              {"cpu_features", context.cpu_features},
              {"kiln_version", context.kiln_version},
              {"llvm_version", context.llvm_version}};
}

void check_context(const json& file, const TuningContext& context) {
  const json& stored = member(file, "context");
  const std::pair<const char*, const std::string*> fields[] = {{"cpu_model", &context.cpu_model},
                                                               {"cpu_features", &context.cpu_features},
                                                               {"kiln_version", &context.kiln_version},
                                                               {"llvm_version", &context.llvm_version}};
  for (const auto& [name, ours] : fields) {
    const std::string theirs = text_member(stored, name);
    if (theirs != *ours) {
      throw std::runtime_error(std::string("written for another ") + name + " ('" + theirs + "', this process '" +
                               *ours + "')");
    }
  }
}

TuningEntry parse_entry(const json& value) {
  TuningEntry entry;
  const json& config = member(value, "config");
  if (!config.is_object()) throw std::runtime_error("\"config\" is not an object");
  for (const auto& [knob, knob_value] : config.items()) entry.config[knob] = integer_member(config, knob.c_str());
  entry.seconds = number_member(value, "seconds");
  entry.default_seconds = number_member(value, "default_seconds");
  entry.tuning_seconds = number_member(value, "tuning_seconds");
  entry.evaluated = static_cast<std::uint64_t>(integer_member(value, "evaluated"));
  entry.tuned_at = integer_member(value, "tuned_at");
  return entry;
}

}  // namespace

std::string format_tuning_db(const TuningEntries& entries, const TuningContext& context) {
  using ordered = nlohmann::ordered_json;
  ordered file_entries = ordered::object();
  for (const auto& [key, entry] : entries) {  // sorted by key, as the map is
    file_entries[key] = ordered{{"config", entry.config},
                             {"seconds", entry.seconds},
                             {"default_seconds", entry.default_seconds},
                             {"tuning_seconds", entry.tuning_seconds},
                             {"evaluated", entry.evaluated},
                             {"tuned_at", entry.tuned_at}};
  }
  const ordered file{{"schema", kTuningSchema}, {"context", context_json(context)}, {"entries", file_entries}};
  return file.dump(2) + "\n";
}

TuningEntries parse_tuning_db(std::string_view text, const TuningContext& context) {
  const json file = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (file.is_discarded()) throw std::runtime_error("not valid JSON");
  if (!file.is_object()) throw std::runtime_error("not a JSON object");
  const json& schema = member(file, "schema");
  if (!schema.is_string() || schema.get<std::string>() != kTuningSchema) {
    throw std::runtime_error("schema " + schema.dump() + ", expected \"" + std::string(kTuningSchema) + "\"");
  }
  check_context(file, context);
  const json& stored = member(file, "entries");
  if (!stored.is_object()) throw std::runtime_error("\"entries\" is not an object");
  TuningEntries entries;
  for (const auto& [key, value] : stored.items()) {
    try {
      entries.emplace(key, parse_entry(value));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("entry \"" + key + "\": " + e.what());
    }
  }
  return entries;
}

}  // namespace kiln::autotune::detail

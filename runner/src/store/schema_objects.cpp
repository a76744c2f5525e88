#include "store/schema_objects.h"

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "runner_error.h"
#include "store/schema.h"

namespace mt {
namespace {

struct SchemaObject {
  std::string type;                  // "table" or "view"
  std::vector<std::string> columns;  // of a table
};
using Objects = std::map<std::string, SchemaObject>;

// Tables and views of `db` (not SQLite's own), with the columns of each table.
Objects read_objects(Database& db) {
  Objects objects;
  auto s = db.prepare(
      "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE "
      "'sqlite\\_%' ESCAPE '\\'");
  while (s.step()) objects[s.text(0)].type = s.text(1);
  for (auto& [name, object] : objects) {
    if (object.type != "table") continue;
    auto columns = db.prepare("SELECT name FROM pragma_table_info(?)");
    columns.bind(1, name);
    while (columns.step()) object.columns.push_back(columns.text(0));
  }
  return objects;
}

// What the schema declares at `version`: its first sections run in a database in memory.
const Objects& declared(int version) {
  static std::mutex mutex;
  static std::map<int, Objects> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = cache.find(version);
  if (found != cache.end()) return found->second;
  Database memory(":memory:", Database::Mode::ReadWrite);
  const auto sections = schema_sections();
  for (int k = 0; k < version && k < int(sections.size()); ++k) memory.exec(sections[size_t(k)]);
  return cache[version] = read_objects(memory);
}

RunnerError damaged(const std::filesystem::path& file, const std::string& why) {
  return RunnerError(kExitUsage, fmt::format("{} is damaged: {}", file.string(), why));
}

}  // namespace

void check_schema_objects(Database& db, const std::filesystem::path& file, int version) {
  const Objects& expected = declared(version);
  const Objects found = read_objects(db);
  for (const auto& [name, object] : expected) {
    auto it = found.find(name);
    if (it == found.end()) {
      throw damaged(file, fmt::format("{} '{}' of schema version {} is missing", object.type, name, version));
    }
    if (it->second.type != object.type) {
      throw damaged(file, fmt::format("'{}' is a {}, where schema version {} has a {}", name, it->second.type, version,
                                      object.type));
    }
    const std::set<std::string> has(it->second.columns.begin(), it->second.columns.end());
    for (const auto& column : object.columns) {
      if (!has.count(column)) {
        throw damaged(file, fmt::format("table '{}' has no column '{}' (schema version {})", name, column, version));
      }
    }
  }
  for (int later = version + 1; later <= latest_schema_version(); ++later) {
    for (const auto& [name, object] : declared(later)) {
      if (!expected.count(name) && found.count(name)) {
        throw damaged(file, fmt::format("it says schema version {}, yet it has {} '{}', which version {} adds", version,
                                        found.at(name).type, name, later));
      }
    }
  }
}

}  // namespace mt

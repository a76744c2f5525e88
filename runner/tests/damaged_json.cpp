#include "damaged_json.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#include <fmt/format.h>

namespace mt::testing {
namespace {

using nlohmann::json;

// Every place in `value` below the top, depth first.
void collect_places(const json& value, const json::json_pointer& at, std::vector<json::json_pointer>& places) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      places.push_back(at / key);
      collect_places(child, at / key, places);
    }
  } else if (value.is_array() && !value.empty()) {
    places.push_back(at / 0);
    collect_places(value[0], at / 0, places);
  }
}

// What each place becomes in turn: every kind of JSON value (a string stands for a boolean where a
// number or string is wanted, and the other way round), a number out of every integer's range and a
// negative one; removal is tried besides.
const std::vector<json>& damages() {
  static const std::vector<json> values = {nullptr, "x", -1, 1e300, json::array(), json::object()};
  return values;
}

json removed(const json& document, const json::json_pointer& place) {
  json out = document;
  json& parent = out[place.parent_pointer()];
  if (parent.is_object()) parent.erase(place.back());
  else parent.erase(std::stoul(place.back()));
  return out;
}

}  // namespace

json result_seed(const std::string& name) {
  std::ifstream in(std::string(MT_TEST_DATA_DIR) + "/results/" + name + ".json");
  REQUIRE_MESSAGE(in, "no test result named ", name);
  return json::parse(in);
}

void for_each_damage(const json& intact, const DamageVisitor& each) {
  const json::json_pointer whole;
  for (const json& value : damages()) each(value, whole, fmt::format("the whole document = {}", value.dump()));
  std::vector<json::json_pointer> places;
  collect_places(intact, whole, places);
  for (const auto& place : places) {
    for (const json& value : damages()) {
      json damaged = intact;
      damaged[place] = value;
      each(damaged, place, fmt::format("{} = {}", place.to_string(), value.dump()));
    }
    each(removed(intact, place), place, place.to_string() + " removed");
  }
}

void check_every_damage_read(const std::vector<std::string>& failures) {
  std::string first;
  for (std::size_t i = 0; i < failures.size() && (i < 20 || std::getenv("MT_HOSTILE_ALL")); ++i)
    first += failures[i] + "\n";
  INFO(failures.size(), " damaged copies were misread; the first:\n", first);
  CHECK(failures.empty());
}

}  // namespace mt::testing

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run/machine_look.h"
#include "run/node_look.h"

using namespace mt;

namespace {

MachineLook quiet_look() {
  MachineLook look;
  look.reading.host = "vm";
  look.reading.conditions.wall_s = 1.0;
  look.reading.conditions.cpus = 2;
  look.reading.conditions.foreign_cpu_pct = 3;
  look.reading.conditions.steal_pct = 0.0;
  look.reading.conditions.cpu_pressure_pct = 0.5;
  CoresNow cores;
  cores.cpus = 2;
  cores.round_trip_ns = 105;
  cores.usual_ns = 110;
  cores.campaign_id = "5522a0aa3b25";
  cores.max_rise_pct = 200;
  look.cores = cores;
  return look;
}

}  // namespace

TEST_CASE("look --json carries the cores and the verdict the lines print") {
  const MachineLook look = quiet_look();
  const auto j = nlohmann::json::parse(machine_look_json(look));
  CHECK(j["verdict"] == "quiet");
  CHECK(j["reasons"] == nlohmann::json::array());
  CHECK(j["cores"]["round_trip_ns"] == 105.0);
  CHECK(j["cores"]["usual_ns"] == 110.0);
  CHECK(j["cores"]["campaign"] == "5522a0aa3b25");
  CHECK(j["cores"]["max_rise_pct"] == 200.0);
  CHECK(j["cores"]["far_apart"] == false);
  CHECK(j["cores"]["says"] ==
        "a cache line's round trip between CPUs took 105 ns, against the usual 110 ns of campaign 5522a0aa3b25 "
        "(2 CPUs)");
  CHECK(machine_look_text(look) ==
        "vm: 2 CPUs over 1.0 s: other processes used 3 % of a core, steal 0.0 %, CPU pressure 0.5 %\n"
        "cores: a cache line's round trip between CPUs took 105 ns, against the usual 110 ns of campaign "
        "5522a0aa3b25 (2 CPUs)\n"
        "quiet (the default thresholds of docs/measurement.md, \"Conditions\")\n");
  // `run` still reads it as a node's reading.
  CHECK(reading_json(parse_reading(machine_look_json(look))) == reading_json(look.reading));
}

TEST_CASE("look --json: cores far apart make it busy, with the reason the lines give") {
  MachineLook look = quiet_look();
  look.cores->round_trip_ns = 512;
  look.verdict.disturbed = true;
  look.verdict.reasons.push_back(look.cores->far_apart_reason());
  const auto j = nlohmann::json::parse(machine_look_json(look));
  CHECK(j["verdict"] == "busy");
  CHECK(j["cores"]["far_apart"] == true);
  REQUIRE(j["reasons"].size() == 1);
  CHECK(j["reasons"][0] ==
        "cores far apart: round trip 512 ns against the usual 110 ns of campaign 5522a0aa3b25 (at most 200 % above "
        "it)");
  CHECK(machine_look_text(look).find("\nbusy: cores far apart: round trip 512 ns") != std::string::npos);
}

TEST_CASE("look --json: cores not timed on a busy machine, and nothing to judge them by, read as null") {
  MachineLook busy = quiet_look();
  busy.cores.reset();
  busy.verdict.disturbed = true;
  busy.verdict.reasons = {"other processes used 199 % of a core over 1.0 s"};
  auto j = nlohmann::json::parse(machine_look_json(busy));
  CHECK(j["cores"].is_null());
  CHECK(j["verdict"] == "busy");
  CHECK(j["reasons"][0] == "other processes used 199 % of a core over 1.0 s");
  CHECK(machine_look_text(busy).find("cores:") == std::string::npos);

  MachineLook alone = quiet_look();
  alone.cores->usual_ns.reset();
  alone.cores->campaign_id.clear();
  alone.cores->round_trip_ns.reset();
  j = nlohmann::json::parse(machine_look_json(alone));
  CHECK(j["cores"]["round_trip_ns"].is_null());
  CHECK(j["cores"]["usual_ns"].is_null());
  CHECK(j["cores"]["campaign"].is_null());
  CHECK(j["cores"]["max_rise_pct"].is_null());
  CHECK(j["cores"]["says"] == "the round trip between CPUs could not be timed: no CPU was free long enough");
}

TEST_CASE("look --load-only, as run asks of each node: no cores timed and no database read, even a damaged one") {
  const auto damaged = std::filesystem::temp_directory_path() / "mtrun_look_load_only_not_a_database.sqlite";
  {
    std::ofstream out(damaged);
    out << "not an SQLite database\n";
  }
  const MachineLook look = look_at_this_machine(0.1, damaged, true);
  CHECK_FALSE(look.cores);
  CHECK(nlohmann::json::parse(machine_look_json(look))["cores"].is_null());
  CHECK(look.reading.conditions.wall_s > 0);
  std::filesystem::remove(damaged);
}

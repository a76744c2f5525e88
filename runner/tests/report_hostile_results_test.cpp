// A result is whatever the program that ran wrote: a peer's script, an older or newer engine, a
// workload gone wrong. Reports read dozens of its fields; one of the wrong kind must not take the
// whole report (or a comparison) down with it. Real results of every kind of workload the reports
// know (runner/tests/data/results, from the committed reports' databases) are damaged one field at a
// time, every field in turn, to every other kind of value, and removed; each damaged result is
// stored as `mtrun run` stores it, reported beside two intact twins, and compared with them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "damaged_json.h"
#include "report/model/results_source.h"
#include "report_fixture.h"
#include "store/campaign_lookup.h"
#include "store/campaign_removal.h"

using namespace mt;
using namespace mt::testing;
using nlohmann::json;

namespace {

struct Seed {
  const char* name;
  const char* workload;
  std::map<std::string, std::string> params;
};

// Renders, for each damaged copy, the report of a campaign holding it and its intact twin, the
// comparison of that campaign with the intact one, and the answers; returns what threw, where.
std::vector<std::string> render_each_damage(const Seed& s) {
  const json intact = result_seed(s.name);
  ReportFixture f(fmt::format("hostile_{}.sqlite", s.name));
  f.store().db().exec("PRAGMA synchronous=OFF");  // thousands of small campaigns, none worth keeping
  FixtureTrial trial;
  trial.study = "s";
  trial.workload = s.workload;
  trial.params = s.params;
  trial.result = intact;
  f.campaign("intact");
  f.trial(trial, "intact");
  trial.repeat = 1;
  f.trial(trial, "intact");

  auto db = open_results(f.path());
  const ReportData intact_data = load_report_data(*db, {campaign_by_id(*db, "intact")});
  std::vector<std::string> failures;
  std::size_t rendered = 0;
  trial.repeat = 2;
  auto render = [&](const json& damaged, const std::string& what) {
    ++rendered;
    f.campaign("damaged");
    trial.result = damaged;
    f.trial(trial, "damaged");
    // A report over both campaigns pools the damaged repeat with its intact twins.
    if (std::string wrong = read_with_every_reader(*db, intact_data); !wrong.empty())
      failures.push_back(fmt::format("{}: {}", what, wrong));
    delete_campaign_rows(f.store().db(), "damaged");
  };
  // The whole result too (for_each_damage replaces it first): a workload may write any JSON at all.
  for_each_damage(intact, [&](const json& damaged, const json::json_pointer&, const std::string& what) {
    render(damaged, fmt::format("{}: {}", s.name, what));
  });
  MESSAGE(fmt::format("{}: {} damaged results rendered", s.name, rendered));
  return failures;
}

void check_every_damage(const Seed& s) { check_every_damage_read(render_each_damage(s)); }

}  // namespace

TEST_CASE("hostile results: the engine's training, every field damaged in turn") {
  check_every_damage({"train", "train", {{"ranks", "2"}, {"strategy", "ddp"}}});
}

TEST_CASE("hostile results: collectives, the engine's and a peer's") {
  check_every_damage({"comm", "comm", {{"ranks", "8"}}});
  check_every_damage({"peer_comm", "command", {{"ranks", "8"}}});
}

TEST_CASE("hostile results: a peer framework's training") {
  check_every_damage({"peer_train", "command", {{"ranks", "2"}, {"strategy", "ddp"}}});
}

TEST_CASE("hostile results: tensor parallelism, process groups and experts") {
  check_every_damage({"tp", "tp", {{"ranks", "4"}}});
  check_every_damage({"groups", "groups", {{"ranks", "4"}}});
  check_every_damage({"moe", "moe", {{"ranks", "4"}}});
}

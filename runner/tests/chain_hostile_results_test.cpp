// A chain's stages write result files as any workload does, and three readers take them: the stage's
// verdict (resumed_from_step, exact_match and verify's first difference), the provenance recorded
// from it, and the fault-tolerance section's checkpoint table. Real stage results (a resumed
// training stage from reports/fault_tolerance.sqlite, a verify of two checkpoints that differ) are
// damaged one field at a time, every field in turn, as report_hostile_results_test damages results:
// each damaged copy is judged, stored as `mtrun run` stores a stage, and reported beside an intact
// chain. No reader may throw, and a verdict may turn only on the field its expectation names.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "damaged_json.h"
#include "report/model/results_source.h"
#include "report_fixture.h"
#include "run/stage_verdict.h"
#include "store/campaign_lookup.h"
#include "store/campaign_removal.h"

using namespace mt;
using namespace mt::testing;
using nlohmann::json;

namespace {

struct StageSeed {
  const char* name;      // the stage's name and its result in runner/tests/data/results/stage_NAME.json
  const char* workload;  // train or verify
  StageExpectation expect;
  json result;
};

std::vector<StageSeed> chain_stages() {
  StageSeed resumed{"resumed", "train", {}, result_seed("stage_resumed")};
  resumed.expect.resumed_from_step = resumed.result.at("resumed_from_step").get<int>();
  StageSeed verify{"verify", "verify", {}, result_seed("stage_verify")};
  verify.expect.exact_match = verify.result.at("exact_match").get<bool>();
  return {resumed, verify};
}

AttemptOutcome succeeded_with(const json& result) {
  AttemptOutcome o;
  o.state = AttemptState::Succeeded;
  o.exit_code = 0;
  o.duration_s = 2.0;
  o.result_json = result.dump();
  return o;
}

// The chain's trial and attempt in `campaign`, its stages judged and recorded as the chain runner
// records them.
void record_chain(ReportFixture& f, const std::string& campaign, int repeat, const std::vector<StageSeed>& stages,
                  const std::filesystem::path& log) {
  FixtureTrial trial;
  trial.study = "recovery";
  trial.workload = "chain";
  trial.params = {{"ranks", "2"}, {"strategy", "ddp"}};
  trial.repeat = repeat;
  const std::int64_t attempt = f.trial(trial, campaign);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const StageSeed& s = stages[i];
    const std::int64_t id = f.store().begin_stage(
        attempt, {int(i) + 1, s.name, s.workload, s.expect.describe(), "{}", "mtengine", "/run", log.string()});
    const AttemptOutcome outcome = succeeded_with(s.result);
    f.store().finish_stage(id, outcome, judge_stage(s.expect, outcome, log));
  }
}

}  // namespace

TEST_CASE("hostile stage results: every field of a stage's result damaged, judged and reported") {
  const std::vector<StageSeed> intact = chain_stages();
  const std::filesystem::path log = std::filesystem::temp_directory_path() / "mtrun_chain_hostile_log.txt";
  ReportFixture f("hostile_chain.sqlite");
  f.store().db().exec("PRAGMA synchronous=OFF");  // thousands of small campaigns, none worth keeping
  f.campaign("intact");
  record_chain(f, "intact", 0, intact, log);
  record_chain(f, "intact", 1, intact, log);
  auto db = open_results(f.path());
  const ReportData intact_data = load_report_data(*db, {campaign_by_id(*db, "intact")});

  for (const StageSeed& s : intact) {
    // The intact result meets its expectation: a damage that breaks it is the damage's doing.
    REQUIRE(judge_stage(s.expect, succeeded_with(s.result), log).met);
  }
  std::vector<std::string> failures;
  std::size_t judged = 0;
  for (std::size_t which = 0; which < intact.size(); ++which) {
    const StageSeed& seed = intact[which];
    // The one field the expectation reads from the result.
    const json::json_pointer read =
        json::json_pointer(seed.expect.resumed_from_step ? "/resumed_from_step" : "/exact_match");
    for_each_damage(seed.result, [&](const json& damaged, const json::json_pointer& place, const std::string& damage) {
      ++judged;
      const std::string what = fmt::format("stage '{}': {}", seed.name, damage);
      std::vector<StageSeed> stages = intact;
      stages[which].result = damaged;
      try {
        const StageVerdict verdict = judge_stage(seed.expect, succeeded_with(damaged), log);
        const bool expectation_read_intact = !place.empty() && place != read;
        if (verdict.met != expectation_read_intact)
          failures.push_back(
              fmt::format("{}: judged {} ({})", what, verdict.met ? "met" : "not met", verdict.observed));
        f.campaign("damaged");
        record_chain(f, "damaged", 2, stages, log);
        if (std::string wrong = read_with_every_reader(*db, intact_data); !wrong.empty())
          failures.push_back(fmt::format("{}: {}", what, wrong));
      } catch (const std::exception& e) {
        failures.push_back(fmt::format("{}: {}", what, e.what()));
      }
      delete_campaign_rows(f.store().db(), "damaged");
    });
  }
  MESSAGE(fmt::format("{} damaged stage results judged and reported", judged));
  check_every_damage_read(failures);
}

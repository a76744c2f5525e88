// The campaign loop with real processes and a real store: hostile output ends an attempt with a
// reason and the campaign goes on; provenance is on record from the launch.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "run/campaign_runner.h"
#include "store_fixture.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

Trial shell_trial(const std::string& id, const std::string& script, std::vector<MetricRule> metrics) {
  Trial t;
  t.study = "s";
  t.workload = "command";
  t.command = {"sh", "-c", script, "sh", "{result_file}"};
  t.command_uses_launcher = false;
  t.metrics = std::move(metrics);
  t.timeout_s = 30;
  t.identity = id;
  t.group_key = id;
  return t;
}

}  // namespace

TEST_CASE("hostile output fails its attempt with a reason and the campaign goes on") {
  TempStore temp("mtrun_campaign_test", 3);
  Store& store = temp.store;
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  const std::vector<Trial> trials = {
      shell_trial("deep", "printf '{{\"a\": " + deep + "}}' > \"$1\"", {}),  // {{ }}: literal braces
      shell_trial("nan", "echo 'loss: nan'", {{"loss", "loss: ([a-z0-9.]+)", "", ""}}),
      shell_trial("ok", "echo 'tokens/s: 5'", {{"tokens_per_sec", "tokens/s: ([0-9.]+)", "", ""}}),
  };
  PendingTrials pending;
  for (size_t i = 0; i < trials.size(); ++i) pending.rows.push_back(store.add_trial_if_new("c", trials[i], int(i)));
  pending.trial = [&](std::size_t i) { return trials[i]; };
  CampaignRun run;
  run.campaign_id = "c";
  run.runs_dir = temp.dir / "runs";
  std::ostringstream out;
  CampaignResult result = run_trials(store, run, pending, out);

  CHECK(result.ran == 3);
  CHECK(result.failed == 2);
  CHECK(temp.query("SELECT count(*) FROM attempts WHERE state = 'running'") == "0");
  CHECK(temp.query("SELECT t.identity || ' ' || a.state || ': ' || coalesce(a.error_reason, '') FROM attempts a "
                   "JOIN trials t ON t.id = a.trial_id ORDER BY t.ordinal") ==
        "deep failed: result file result.json rejected: nests deeper than 64 levels,"
        "nan failed: metric 'loss': 'nan' in the output is not a finite number,"
        "ok succeeded: ");
  CHECK(temp.query("SELECT count(*) FROM provenance") == "3");
}

TEST_CASE("an attempt has its provenance on record from the launch") {
  TempStore temp("mtrun_campaign_test", 1);
  Store& store = temp.store;
  auto row = store.add_trial_if_new("c", shell_trial("t", "true", {}), 0);
  ProvenanceContext context;
  context.source.commit = "abc";
  LaunchCommand command;
  command.argv = {"prog"};
  command.program = {"prog"};
  auto attempt = store.begin_attempt(row, 1, "prog", "/run", "/run/log.txt",
                                     assemble_provenance(context, std::nullopt, command, ProgramIdentity{}));
  CHECK(temp.query("SELECT a.state || ' ' || p.source_commit || ' ' || p.command || ' ' || p.complete FROM attempts a "
                   "JOIN provenance p ON p.attempt_id = a.id WHERE a.id = " +
                   std::to_string(attempt)) == "running abc prog 0");
}

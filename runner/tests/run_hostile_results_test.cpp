// What mtrun reads of a result while the campaign runs, before any report: the result file ingested
// (status, error, metrics, rows), the ranks and CPU time on its own host, whether the job
// oversubscribed its cores, the other machines' load, and the provenance the result states (a
// stage's resume and verify fields: chain_hostile_results_test). Real results of every workload (runner/tests/data/results) are damaged field by field as
// report_hostile_results_test damages them: no reader may throw out of the campaign, and under
// scripts/sanitize.sh none may convert a value beyond its type's range (1e300 threads, -1 CPUs).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "damaged_json.h"
#include "launch/provenance.h"
#include "run/attempt_verdict.h"
#include "run/host_loads.h"
#include "store/result_ingest.h"

using namespace mt;
using namespace mt::testing;
using nlohmann::json;

namespace {

// Every real result the tests keep, with the trial that wrote it: the engine's workloads, two
// peers run as `command` studies (a PyTorch script declaring its metrics, a bare MPI loop writing
// rows only) and a chain's two kinds of stage.
struct Seed {
  const char* name;
  const char* workload;
  std::vector<MetricRule> metrics;
};
const std::vector<Seed>& seeds() {
  static const std::vector<Seed> all = {
      {"train", "train", {}},
      {"comm", "comm", {}},
      {"peer_comm", "command", {}},
      {"peer_train",
       "command",
       {{"tokens_per_sec", "", "tokens_per_sec", ""}, {"step_time_ms", "", "step_time_ms", ""}}},
      {"tp", "tp", {}},
      {"groups", "groups", {}},
      {"moe", "moe", {}},
      {"stage_resumed", "train", {}},
      {"stage_verify", "verify", {}}};
  return all;
}

Trial trial_of(const Seed& seed) {
  Trial t;
  t.workload = seed.workload;
  t.metrics = seed.metrics;
  if (t.workload == "command") t.command = {"peer"};
  return t;
}

LaunchCommand engine_command() {
  LaunchCommand c;
  c.argv = {"mpirun", "-np", "2", "mtengine", "train"};
  c.program = {"mtengine", "train"};
  return c;
}

}  // namespace

TEST_CASE("hostile results at run time: every reader of a result, every field damaged in turn") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("mtrun_run_hostile_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto result_file = dir / "result.json", log_file = dir / "log.txt";
  std::ofstream(log_file) << "";
  ProcessOutcome exited;
  exited.end = ProcessEnd::Exited;
  exited.exit_code = 0;
  ProvenanceContext context;
  context.source.commit = "1111111111111111111111111111111111111111";
  const LaunchCommand command = engine_command();
  const ProgramIdentity program = trial_program(context, command.program, dir.string());

  std::vector<std::string> failures;
  std::size_t read = 0;
  for (const Seed& seed : seeds()) {
    const char* name = seed.name;
    const json intact = result_seed(name);
    const Trial trial = trial_of(seed);
    const std::string host = intact.contains("hosts") ? intact["hosts"][0].get<std::string>() : "vm";
    for_each_damage(intact, [&](const json& damaged, const json::json_pointer&, const std::string& damage) {
      ++read;
      const std::string text = damaged.dump();
      try {
        std::ofstream(result_file, std::ios::binary | std::ios::trunc) << text;
        const AttemptOutcome outcome = classify_attempt(exited, result_file, log_file, trial);
        const std::string stored = outcome.result_json.value_or(text);
        ranks_on_host(stored, host);
        job_oversubscribed(stored, 2);
        other_machines_load(stored, "another boot", host);
      } catch (const std::exception& e) {
        failures.push_back(fmt::format("{}: {}: {}", name, damage, e.what()));
      }
      // A result whose environment provenance cannot read is recorded with what mtrun knows itself
      // (campaign_runner.cpp): throwing is allowed there, converting out of range is not.
      try {
        assemble_provenance(context, text, command, program);
      } catch (const std::exception&) {}
    });
  }
  std::filesystem::remove_all(dir);
  MESSAGE(fmt::format("{} damaged results read as a campaign reads them", read));
  check_every_damage_read(failures);
}

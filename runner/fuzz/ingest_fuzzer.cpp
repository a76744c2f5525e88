// libFuzzer target over what mtrun reads from a finished trial: the result JSON (bounded size and
// depth, non-finite numbers, metrics, per-step series, result rows, error fields), the log (Open
// MPI's rank-death line, metric regexes, failure reasons) and storing the outcome with its
// provenance; each host's load as the ranks read it, the ranks and CPU time on mtrun's host and
// whether the job oversubscribed its cores; a chain stage's verdict on it; what the nodes print when
// mtrun looks at them for a quiet machine, and the record a trial's job leaves of its own look (read
// as the result).
// Input: result file bytes, a NUL byte, log bytes. Whatever a trial wrote, ingest must end in an
// outcome the store accepts, never in a crash or an exception.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "launch/provenance.h"
#include "run/attempt_verdict.h"
#include "run/host_loads.h"
#include "run/job_look.h"
#include "run/node_look.h"
#include "run/stage_verdict.h"
#include "store/bounded_json.h"
#include "store/result_ingest.h"
#include "store/store.h"

namespace {

const std::string kDir = "/tmp/mtrun-ingest-fuzz-" + std::to_string(::getpid());

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

mt::Trial trial(const std::string& workload) {
  mt::Trial t;
  t.workload = workload;
  t.identity = "t";
  t.group_key = "g";
  if (workload == "command") {
    t.command = {"prog"};
    t.metrics = {{"value", "value: ([-+0-9.eEnaif]+)", ""}, {"speed", "", "a.speed"}};
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool made = (std::filesystem::create_directories(kDir), true);
  static mt::Store store(":memory:");
  static const std::int64_t row = [] {
    store.add_campaign_if_new({"c", "exp", "/x.yaml", "rev", "plan", "{}", 1, mt::utc_now()});
    return store.add_trial_if_new("c", trial("command"), 0);
  }();
  (void)made;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find('\0');
  const std::string result_text = input.substr(0, split);
  const std::string log_text = split == std::string::npos ? "" : input.substr(split + 1);
  write(kDir + "/result.json", result_text);
  write(kDir + "/log.txt", log_text);

  mt::parse_untrusted_json(result_text, mt::JsonLimits{4096, 8});
  mt::flatten_metrics(result_text);
  // The hosts' load as a result's ranks read it; the log as the nodes' readings of a look for a
  // quiet machine (the launcher's output, one per line).
  mt::other_machines_load(result_text, "a-kernel", "a-host");
  mt::ranks_on_host(result_text, "a-host");
  mt::job_oversubscribed(result_text, 2);
  mt::judge_node_readings(log_text, 2, mt::ConditionsThresholds{});
  mt::ProcessOutcome process;
  process.end = mt::ProcessEnd::Exited;
  process.exit_code = size % 2 == 0 ? 0 : 1;
  for (const char* workload : {"command", "train", "comm"}) {
    mt::AttemptOutcome outcome =
        mt::classify_attempt(process, kDir + "/result.json", kDir + "/log.txt", trial(workload));
    static const mt::StageExpectation expect = [] {
      mt::StageExpectation e;
      e.resumed_from_step = 6;
      e.exact_match = false;  // reads verify's first difference too
      return e;
    }();
    mt::judge_stage(expect, outcome, kDir + "/log.txt");
    std::optional<mt::Provenance> provenance;
    const mt::LaunchCommand command{{"prog"}};
    const mt::ProgramIdentity program{"prog"};
    try {  // as the campaign loop does: a malformed environment leaves mtrun's own provenance
      provenance = mt::assemble_provenance(mt::ProvenanceContext{}, outcome.result_json, command, program);
    } catch (const std::exception&) {
      provenance = mt::assemble_provenance(mt::ProvenanceContext{}, std::nullopt, command, program);
    }
    const std::int64_t attempt =
        store.begin_attempt(row, store.next_attempt_number(row), "prog", "/r", "/r/log", provenance);
    // A job's look record the store must take whatever the job wrote (a workload may write it too).
    if (auto read = mt::read_job_look(kDir + "/result.json")) store.record_job_look(attempt, read->look);
    store.finish_attempt(attempt, outcome, provenance);
  }
  store.db().exec(
      "DELETE FROM metrics; DELETE FROM step_metrics; DELETE FROM result_rows; DELETE FROM provenance; "
      "DELETE FROM attempts");
  return 0;
}

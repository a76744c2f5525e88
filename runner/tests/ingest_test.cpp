// Whatever a trial writes (result JSON, log), ingest ends in a classified outcome: no crash, no
// exception, no unbounded memory, and non-finite numbers handled by the rule in the README.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "store/bounded_json.h"
#include "store/log_scan.h"
#include "store/result_ingest.h"
#include "store/result_rows.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

struct Files {
  fs::path dir = fs::temp_directory_path() / ("mtrun_ingest_test_" + std::to_string(::getpid()));
  fs::path result = dir / "result.json";
  fs::path log = dir / "log.txt";

  Files(const std::string& result_text, const std::string& log_text) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    if (!result_text.empty()) std::ofstream(result, std::ios::binary) << result_text;
    std::ofstream(log, std::ios::binary) << log_text;
  }
};

ProcessOutcome exited(int code) {
  ProcessOutcome p;
  p.end = ProcessEnd::Exited;
  p.exit_code = code;
  return p;
}

Trial command_trial(std::vector<MetricRule> metrics) {
  Trial t;
  t.workload = "command";
  t.command = {"prog"};
  t.metrics = std::move(metrics);
  return t;
}

Trial train_trial() {
  Trial t;
  t.workload = "train";
  return t;
}

std::string nested(int depth) { return std::string(size_t(depth), '[') + std::string(size_t(depth), ']'); }

bool has_metric(const AttemptOutcome& o, const std::string& name) {
  for (const auto& m : o.metrics) {
    if (m.name == name) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a result JSON nested 50,000 deep fails the attempt with a reason") {
  Files f("{\"a\": " + nested(50000) + "}", "");
  AttemptOutcome o = classify_attempt(exited(0), f.result, f.log, command_trial({}));
  CHECK(o.state == AttemptState::Failed);
  CHECK(o.error_reason == "result file result.json rejected: nests deeper than 64 levels");
  CHECK_FALSE(o.result_json.has_value());

  AttemptOutcome engine = classify_attempt(exited(0), f.result, f.log, train_trial());
  CHECK(engine.state == AttemptState::Failed);
  CHECK(engine.error_reason == "result file result.json rejected: nests deeper than 64 levels");
}

TEST_CASE("result JSON size and depth limits, strings left alone") {
  CHECK(parse_untrusted_json(std::string(200, ' '), JsonLimits{100, 64}).problem == "larger than 100 bytes");
  CHECK(parse_untrusted_json("{\"a\": " + nested(63) + "}").problem == "");
  CHECK(parse_untrusted_json("{\"a\": " + nested(64) + "}").problem == "nests deeper than 64 levels");
  // Brackets and non-finite words inside strings are text.
  auto in_string = parse_untrusted_json(R"({"s": "[[[[ NaN \" inf ]", "n": 1})", JsonLimits{1 << 20, 2});
  CHECK(in_string.problem == "");
  CHECK(in_string.non_finite == 0);
  CHECK(in_string.document["s"] == "[[[[ NaN \" inf ]");
}

TEST_CASE("non-finite numbers become null and are not metrics") {
  const std::string text =
      R"({"status": "ok", "tokens_per_sec": 10.5, "loss": NaN, "a": {"b": Infinity, "c": -Infinity, "d": 1e400, )"
      R"("e": -1E+999, "f": nan, "g": -inf, "h": 1e-400}, "per_step": {"loss": [1.0, NaN, 2.0]}})";
  auto doc = parse_untrusted_json(text);
  CHECK(doc.problem == "");
  CHECK(doc.non_finite == 8);
  REQUIRE(doc.document.is_object());
  CHECK(doc.document["loss"].is_null());
  CHECK(doc.document["a"]["d"].is_null());
  CHECK(doc.document["a"]["h"] == 0.0);

  Files f(text, "");
  AttemptOutcome o = classify_attempt(exited(0), f.result, f.log, train_trial());
  CHECK(o.state == AttemptState::Succeeded);  // the engine's own status decides
  CHECK(has_metric(o, "tokens_per_sec"));
  CHECK(has_metric(o, "a.h"));
  CHECK_FALSE(has_metric(o, "loss"));
  CHECK_FALSE(has_metric(o, "a.d"));
  REQUIRE(o.result_json.has_value());
  CHECK(o.result_json->find("\"loss\": null") != std::string::npos);  // stored as valid JSON
  CHECK(o.steps.size() == 2);                                         // the NaN step is left out
  for (const auto& m : o.metrics) CHECK(std::isfinite(m.value));
}

TEST_CASE("a declared metric that is not finite fails the trial, naming it") {
  Files regex("", "step 10 loss: nan\n");
  AttemptOutcome o =
      classify_attempt(exited(0), regex.result, regex.log, command_trial({{"loss", "loss: ([a-z0-9.]+)", "", ""}}));
  CHECK(o.state == AttemptState::Failed);
  CHECK(o.error_reason == "metric 'loss': 'nan' in the output is not a finite number");

  Files json(R"({"loss": NaN, "speed": 1e400})", "");
  o = classify_attempt(exited(0), json.result, json.log, command_trial({{"speed", "", "speed", ""}}));
  CHECK(o.state == AttemptState::Failed);
  CHECK(o.error_reason == "metric 'speed': the value at 'speed' in the result file is null or not a finite number");
}

TEST_CASE("Open MPI's rank-death line is read literally; a 100 KB line cannot crash the scan") {
  Files normal("", "x\nmpirun noticed that process rank 1 with PID 4242 on node n1 exited on signal 9 (Killed).\n");
  AttemptOutcome o = classify_attempt(exited(137), normal.result, normal.log, train_trial());
  CHECK(o.state == AttemptState::Crashed);
  CHECK(o.error_rank == 1);
  CHECK(o.signal == 9);
  CHECK(o.error_reason == "rank 1 on n1 died of signal 9");

  const std::string huge = "process rank 1 with PID 42 on node " + std::string(100000, 'n') + " exited on signal 9\n";
  Files hostile("", huge + huge);
  o = classify_attempt(exited(1), hostile.result, hostile.log, train_trial());
  CHECK(o.state == AttemptState::Failed);  // cut to its first KiB, the line names no signal
  REQUIRE(o.error_reason.has_value());
  CHECK(o.error_reason->size() == 500);

  auto remote = parse_rank_signal("process rank 3 with PID 7 on node node-b exited on signal 6 (Aborted).");
  REQUIRE(remote);
  CHECK(remote->node == "node-b");
  auto srun = parse_srun_task_signal("srun: error: node-b: task 1: Killed");
  REQUIRE(srun);
  CHECK(srun->rank == 1);
  CHECK(srun->node == "node-b");
  CHECK(srun->signal == SIGKILL);
  srun = parse_srun_task_signal("srun: error: n7: task 12: Segmentation fault (core dumped)");
  REQUIRE(srun);
  CHECK(srun->signal == SIGSEGV);
  CHECK_FALSE(parse_srun_task_signal("srun: error: n7: task 1: Exited with exit code 3"));
  CHECK_FALSE(parse_srun_task_signal("srun: error: n7: tasks 0-1: Killed"));
  CHECK_FALSE(parse_srun_task_signal("srun: error: task 1 launch failed: Unspecified error"));
  CHECK_FALSE(parse_rank_signal("process rank 99999999999999 with PID 1 on node n exited on signal 9"));
  CHECK_FALSE(parse_rank_signal("process rank 1 with PID 1 on node n exited on signal "));
}

TEST_CASE("a failure's reason is the job's own line before the launcher's and mtrun's") {
  // srun reports that a task exited; the engine's message says why.
  Files srun("",
             "The following argument was not expected: --no-such-flag\nRun with --help for more information.\n"
             "srun: error: localhost: task 0: Exited with exit code 2\n");
  CHECK(classify_attempt(exited(2), srun.result, srun.log, train_trial()).error_reason ==
        "The following argument was not expected: --no-such-flag");
  // A batch job's output appended after sbatch's own line and mtrun's.
  Files batch("",
              "Submitted batch job 4\nmtrun: the job's own output (/r/batch-job.out) follows\n"
              "mtengine train: error: d_model must be at least 1\n");
  CHECK(classify_attempt(exited(2), batch.result, batch.log, train_trial()).error_reason ==
        "mtengine train: error: d_model must be at least 1");
  // Where the job wrote nothing, the launcher's error is the reason, not its first line.
  Files launcher_only("",
                      "srun: job 5 queued and waiting for resources\n"
                      "srun: error: Unable to allocate resources: Requested node configuration is not available\n");
  CHECK(classify_attempt(exited(1), launcher_only.result, launcher_only.log, train_trial()).error_reason ==
        "srun: error: Unable to allocate resources: Requested node configuration is not available");
  // salloc's and the job's look at its nodes come before the job's own lines.
  Files in_salloc("",
                  "salloc: Granted job allocation 20\nmtrun look on the allocation's 1 node (srun): quiet\n"
                  "failing\nsrun: error: localhost: task 0: Exited with exit code 3\n"
                  "salloc: Relinquishing job allocation 20\n");
  CHECK(classify_attempt(exited(3), in_salloc.result, in_salloc.log, train_trial()).error_reason == "failing");
  Files runner_only("", "Submitted batch job 9\nmtrun: the job left no regular file /r/batch-job.out\n");
  CHECK(classify_attempt(exited(1), runner_only.result, runner_only.log, train_trial()).error_reason ==
        "mtrun: the job left no regular file /r/batch-job.out");
}

TEST_CASE("where the job wrote nothing, Open MPI's framed message is the reason; after the job's lines it is not") {
  const std::string rule(74, '-');
  Files no_slots("", rule +
                         "\nThere are not enough slots available in the system to satisfy the 5\n"
                         "slots that were requested by the application:\n\n  /opt/mtengine\n\n" +
                         rule + "\n[n1:77] 1 more process has sent help message help-orte-rmaps-base.txt\n");
  CHECK(classify_attempt(exited(1), no_slots.result, no_slots.log, train_trial()).error_reason ==
        "There are not enough slots available in the system to satisfy the 5 slots that were requested by the "
        "application: /opt/mtengine");
  Files closing("", "loss 2.1\n" + rule + "\nPrimary job  terminated normally, but 1 process returned\n" + rule + "\n");
  CHECK(classify_attempt(exited(1), closing.result, closing.log, train_trial()).error_reason == "loss 2.1");
  Files nothing("", "");
  CHECK(classify_attempt(exited(1), nothing.result, nothing.log, train_trial()).error_reason ==
        "its log holds no message from the job or its launcher");
}

TEST_CASE("metric regexes run line by line on bounded lines") {
  // 200 KB without a newline, then the metric after a carriage return (a progress bar).
  Files f("", std::string(200000, 'a') + "\rtokens/s: 123.5\r\n");
  AttemptOutcome o =
      classify_attempt(exited(0), f.result, f.log,
                       command_trial({{"tokens_per_sec", "tokens/s: ([0-9.]+)", "", ""}, {"greedy", "(.*)x", "", ""}}));
  CHECK(o.state == AttemptState::Failed);
  CHECK(o.error_reason == "metric 'greedy': no number matched regex '(.*)x' in the output");
  REQUIRE(has_metric(o, "tokens_per_sec"));

  std::vector<std::string> lines;
  scan_log(
      f.log,
      [&](std::string_view line) {
        lines.emplace_back(line);
        return true;
      },
      LogLimits{16, 1 << 20});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == std::string(16, 'a'));
  CHECK(lines[1] == "tokens/s: 123.5");
}

TEST_CASE("a result path that is a FIFO is refused, not read") {
  Files f("", "");
  REQUIRE(::mkfifo(f.result.c_str(), 0600) == 0);
  AttemptOutcome o = classify_attempt(exited(0), f.result, f.log, command_trial({}));
  CHECK(o.state == AttemptState::Failed);
  CHECK(o.error_reason == "result file result.json rejected: not a regular file");
}

TEST_CASE("a trial that runs past its limit is timed out, and the reason names the limit") {
  Files f("", "");
  ProcessOutcome process;
  process.end = ProcessEnd::TimedOut;
  Trial trial = train_trial();
  trial.timeout_s = 300;
  AttemptOutcome o = classify_attempt(process, f.result, f.log, trial);
  CHECK(o.state == AttemptState::TimedOut);
  CHECK(o.error_reason == "trial exceeded its 300 s timeout (timeout_s); every rank was killed");
  trial.timeout_s = 2.5;
  CHECK(classify_attempt(process, f.result, f.log, trial).error_reason ==
        "trial exceeded its 2.5 s timeout (timeout_s); every rank was killed");
}

TEST_CASE("the rank an engine message names is the failing rank when nothing else records it") {
  CHECK(rank_named_in("mtengine: rank 1 (node7): MPI_Allreduce failed: MPI_ERR_TRUNCATE") == 1);
  CHECK(rank_named_in("mtengine train: injected fault: rank 3 exits with 2 before step 7") == 3);
  CHECK(rank_named_in("mtengine: injected fault: rank 12 kills itself before step 1") == 12);
  CHECK_FALSE(rank_named_in("checkpoint step 4: rank 1's shard is missing").has_value());
  CHECK_FALSE(rank_named_in("mtengine: rank -1 (node7): cannot start").has_value());
  CHECK_FALSE(rank_named_in("mtengine: ranks 1 and 2 disagree").has_value());
  CHECK_FALSE(rank_named_in("").has_value());

  Files f("", "mtengine: rank 1 (node7): MPI_Allreduce failed: MPI_ERR_TRUNCATE\n");
  AttemptOutcome o = classify_attempt(exited(1), f.result, f.log, train_trial());
  CHECK(o.state == AttemptState::Failed);
  CHECK(o.error_reason == "mtengine: rank 1 (node7): MPI_Allreduce failed: MPI_ERR_TRUNCATE");
  CHECK(o.error_rank == 1);
  // The result's own error wins.
  Files g(R"({"status": "failed", "error": {"rank": 0, "reason": "mtengine: rank 1 (node7): late"}})", "");
  CHECK(classify_attempt(exited(1), g.result, g.log, train_trial()).error_rank == 0);
}

TEST_CASE("malformed error fields and status are ignored, not thrown") {
  Files f(R"({"status": 5, "error": {"rank": 99999999999999, "step": "x", "reason": 7}})", "");
  AttemptOutcome o = classify_attempt(exited(0), f.result, f.log, train_trial());
  CHECK(o.state == AttemptState::Failed);
  CHECK_FALSE(o.error_rank.has_value());
  CHECK_FALSE(o.error_step.has_value());
  CHECK(o.error_reason == "engine exited 0 but wrote no valid result file");
}

namespace {

Trial comm_trial() {
  Trial t;
  t.workload = "comm";
  return t;
}

std::string comm_result(const std::string& rows) {
  return R"({"benchmark": "comm", "status": "ok", "world_size": 2, "rows": )" + rows + "}";
}

}  // namespace

TEST_CASE("result rows are kept in order, one JSON object each, non-finite numbers as null") {
  Files f(comm_result(R"([{"operation": "all_reduce", "bytes": 1024, "busbw_gbps": 1.5},
                          {"operation": "all_reduce", "bytes": 4096, "busbw_gbps": NaN, "latency_us": inf}])"),
          "");
  AttemptOutcome o = classify_attempt(exited(0), f.result, f.log, comm_trial());
  CHECK(o.state == AttemptState::Succeeded);
  REQUIRE(o.rows.size() == 2);
  CHECK(o.rows[0] == R"({"busbw_gbps":1.5,"bytes":1024,"operation":"all_reduce"})");
  CHECK(o.rows[1] == R"({"busbw_gbps":null,"bytes":4096,"latency_us":null,"operation":"all_reduce"})");
  CHECK_FALSE(has_metric(o, "rows.0.busbw_gbps"));  // rows are not flattened into metrics
}

TEST_CASE("a result without rows has none; a command peer's rows are kept like the engine's") {
  Files plain(R"({"status": "ok", "tokens_per_sec": 5})", "");
  CHECK(classify_attempt(exited(0), plain.result, plain.log, train_trial()).rows.empty());
  Files peer(comm_result(R"([{"operation": "broadcast", "unsupported": true, "reason": "no"}])"), "");
  AttemptOutcome o = classify_attempt(exited(0), peer.result, peer.log, command_trial({}));
  CHECK(o.state == AttemptState::Succeeded);
  CHECK(o.rows.size() == 1);
}

TEST_CASE("result rows are bounded: too many, too large or not objects reject the result file") {
  std::string many = "[";
  for (int i = 0; i < 10001; ++i) many += std::string(i ? "," : "") + "{}";
  Files too_many(comm_result(many + "]"), "");
  AttemptOutcome o = classify_attempt(exited(0), too_many.result, too_many.log, comm_trial());
  CHECK(o.state == AttemptState::Failed);
  CHECK(o.error_reason == "result file result.json rejected: 'rows' has 10001 rows, more than 10000");
  CHECK(o.rows.empty());

  Files large(comm_result(R"([{"operation": "all_reduce"}, {"note": ")" + std::string(20000, 'x') + "\"}]"), "");
  o = classify_attempt(exited(0), large.result, large.log, comm_trial());
  CHECK(o.error_reason == "result file result.json rejected: row 1 of 'rows' is 20011 bytes, more than 16384");

  Files scalar(comm_result(R"([{"operation": "all_reduce"}, 7])"), "");
  o = classify_attempt(exited(0), scalar.result, scalar.log, comm_trial());
  CHECK(o.error_reason == "result file result.json rejected: row 1 of 'rows' is not an object");

  Files object(comm_result(R"({"operation": "all_reduce"})"), "");
  o = classify_attempt(exited(0), object.result, object.log, command_trial({}));
  CHECK(o.state == AttemptState::Failed);
  CHECK(o.error_reason == "result file result.json rejected: 'rows' must be an array of objects");
}

TEST_CASE("exactly the row limit is accepted") {
  RowLimits limits{3, 64};
  CHECK(read_result_rows(nlohmann::json::parse(R"({"rows": [{}, {}, {}]})"), limits).problem.empty());
  CHECK(read_result_rows(nlohmann::json::parse(R"({"rows": [{}, {}, {}]})"), limits).rows.size() == 3);
  CHECK(read_result_rows(nlohmann::json::parse(R"({"rows": [{}, {}, {}, {}]})"), limits).problem ==
        "'rows' has 4 rows, more than 3");
}

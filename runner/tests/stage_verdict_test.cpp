// Whether a stage did what it expected: outcome, rank, exit code and step; its output and result
// file; the checkpoint directory it left. And the reason a chain gives for failing.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "run/checkpoint_scan.h"
#include "run/stage_verdict.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

struct Dirs {
  fs::path root = fs::temp_directory_path() / ("mtrun_verdict_test_" + std::to_string(::getpid()));
  fs::path ckpt = root / "ckpt";
  fs::path log = root / "log.txt";

  Dirs() {
    fs::remove_all(root);
    fs::create_directories(ckpt);
  }
  ~Dirs() { fs::remove_all(root); }

  void step(int n, bool ready) {
    char name[32];
    std::snprintf(name, sizeof name, "step_%08d", n);
    fs::create_directories(ckpt / name);
    if (ready) std::ofstream(ckpt / name / "READY") << "";
  }
  void latest(const std::string& target) { fs::create_directory_symlink(target, ckpt / "latest"); }
};

AttemptOutcome crashed(int rank) {
  AttemptOutcome o;
  o.state = AttemptState::Crashed;
  o.exit_code = 137;
  o.signal = 9;
  o.error_rank = rank;
  return o;
}

}  // namespace

TEST_CASE("the checkpoint scan sees READY steps and what latest names, nothing else") {
  Dirs d;
  d.step(3, true);
  d.step(6, false);  // died while saving
  d.step(9, true);
  fs::create_directories(d.ckpt / ".step_12.tmp");
  d.latest("step_00000009");
  const CheckpointScan scan = scan_checkpoints(d.ckpt);
  CHECK(scan.exists);
  CHECK(scan.ready_steps == std::vector<int>{3, 9});
  CHECK(scan.latest_step == 9);
  CHECK_FALSE(scan_checkpoints(d.root / "none").exists);
}

TEST_CASE("a crash on the expected rank with the expected checkpoints is met") {
  Dirs d;
  d.step(6, true);
  d.step(12, false);
  d.latest("step_00000006");
  StageExpectation e;
  e.outcome = "crashed";
  e.rank = 1;
  e.ready_steps = std::vector<int>{6};
  e.no_ready_steps = {12};
  e.latest_step = 6;
  e.checkpoint_dir = d.ckpt.string();
  const StageVerdict v = judge_stage(e, crashed(1), d.log);
  CHECK(v.met);
  CHECK(v.observed == "crashed on rank 1 (signal 9); READY steps 6; step 12 not READY; latest 6");
  CHECK(v.mismatch.empty());

  const StageVerdict other = judge_stage(e, crashed(0), d.log);
  CHECK_FALSE(other.met);
  CHECK(other.mismatch == "expected crashed on rank 1, observed crashed on rank 0 (signal 9)");
}

TEST_CASE("every part that differs is named: outcome, result fields, output, checkpoints") {
  Dirs d;
  d.step(6, true);
  d.step(12, true);
  std::ofstream(d.log) << "training done\n";
  StageExpectation e;
  e.outcome = "failed";
  e.exit_code = 2;
  e.message_contains = "cannot resume";
  e.resumed_from_step = 6;
  e.ready_steps = std::vector<int>{6};
  e.checkpoint_dir = d.ckpt.string();
  AttemptOutcome o;
  o.state = AttemptState::Succeeded;
  o.exit_code = 0;
  o.result_json = R"({"status": "ok", "resumed_from_step": null})";
  const StageVerdict v = judge_stage(e, o, d.log);
  CHECK_FALSE(v.met);
  CHECK(v.observed == "succeeded, exit 0; output lacks \"cannot resume\"; started fresh; READY steps 6 12");
  CHECK(v.mismatch ==
        "expected failed, exit 2, observed succeeded, exit 0; "
        "expected output has \"cannot resume\", observed output lacks \"cannot resume\"; "
        "expected resumed from step 6, observed started fresh; "
        "expected READY steps 6, observed READY steps 6 12");

  // A step past int's range is no step, not the step it would wrap to (2^32 + 6 is not 6).
  StageExpectation resumed;
  resumed.outcome = "succeeded";
  resumed.resumed_from_step = 6;
  o.result_json = R"({"status": "ok", "resumed_from_step": 4294967302})";
  const StageVerdict wrapped = judge_stage(resumed, o, d.log);
  CHECK_FALSE(wrapped.met);
  CHECK(wrapped.observed == "succeeded; resumed_from_step 4294967302 is no step");
  o.result_json = R"({"status": "ok", "resumed_from_step": 6})";
  CHECK(judge_stage(resumed, o, d.log).met);
}

TEST_CASE("the output is searched in the error reason and the log; verify's first difference is shown") {
  Dirs d;
  std::ofstream(d.log) << "mtengine train: cannot resume from 'x': world_size: checkpoint has 2, this run 1\n";
  StageExpectation refused;
  refused.outcome = "failed";
  refused.exit_code = 2;
  refused.message_contains = "world_size: checkpoint has 2, this run 1";
  AttemptOutcome o;
  o.state = AttemptState::Failed;
  o.exit_code = 2;
  CHECK(judge_stage(refused, o, d.log).met);

  StageExpectation same;
  same.exact_match = true;
  AttemptOutcome verify;
  verify.state = AttemptState::Succeeded;
  verify.exit_code = 0;
  verify.result_json = R"({"exact_match": false, "components": {"model": {"match": true},
      "optimizer": {"match": false, "first_difference": {"rank": 1, "tensor": "optimizer/exp_avg"}}}})";
  const StageVerdict v = judge_stage(same, verify, d.log);
  CHECK_FALSE(v.met);
  CHECK(v.observed == "succeeded; not an exact match (optimizer differs first at optimizer/exp_avg on rank 1)");

  // What a verifier writes is read, not trusted: a `match` that is no boolean claims nothing.
  verify.result_json = R"({"exact_match": false, "components": {"model": {"match": "no"}, "data": {"match": null},
      "optimizer": {"match": false, "first_difference": {"rank": "one", "tensor": 5}}}})";
  CHECK(judge_stage(same, verify, d.log).observed == "succeeded; not an exact match (optimizer differs)");
}

TEST_CASE("a chain's failure names its first stage that did not do what it expected") {
  Stage stage;
  stage.name = "killed";
  StageVerdict v;
  v.mismatch = "expected crashed on rank 1, observed succeeded";
  CHECK(chain_failure_reason(1, stage, v) == "stage 2 'killed': expected crashed on rank 1, observed succeeded");
}

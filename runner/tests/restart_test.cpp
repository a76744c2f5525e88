// Automatic restarts (a study's `restart:`): which launches are worth another, which injected
// faults a relaunch keeps, the engine's progress history, the restart loop around a launch (the
// launch itself scripted here; e2e_restart and e2e_fault_tolerance run real jobs), what the loader
// accepts and refuses, and the launches as the store keeps them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "experiment/experiment_check.h"
#include "experiment/experiment_loader.h"
#include "experiment/matrix.h"
#include "launch/trial_command.h"
#include "run/restarting_job.h"
#include "store/launch_rows.h"
#include "store/trial_json.h"
#include "store_fixture.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

using Args = std::vector<std::string>;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path write_file(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

const char* kTrainDefaults =
    "    defaults: {ranks: 2, steps: 8, warmup_steps: 0, checkpoint_dir: ckpt, save_every: 2}\n";

std::string study_yaml(const std::string& restart) {
  return std::string("name: r\nstudies:\n  - name: s\n    workload: train\n") + kTrainDefaults + restart;
}

Trial first_trial(const fs::path& file) {
  LoadResult r = load_experiment(file);
  REQUIRE(r.errors.empty());
  Expansion e = expand_experiment(*r.experiment);
  REQUIRE(e.errors.empty());
  REQUIRE(e.trials.size() >= 1);
  return e.trials[0];
}

std::string problems(const fs::path& file) { return format_diagnostics(check_experiment(file).errors); }

AttemptOutcome ended(AttemptState state, std::optional<int> exit_code = std::nullopt) {
  AttemptOutcome o;
  o.state = state;
  o.exit_code = exit_code;
  return o;
}

}  // namespace

TEST_CASE("a crash, a timeout or a failure is worth a relaunch; bad input, a launch failure or a stop is not") {
  CHECK(restartable(ended(AttemptState::Crashed, 137)));
  CHECK(restartable(ended(AttemptState::TimedOut)));
  CHECK(restartable(ended(AttemptState::Failed, 1)));
  CHECK_FALSE(restartable(ended(AttemptState::Failed, 2)));
  CHECK_FALSE(restartable(ended(AttemptState::LaunchFailed)));
  CHECK_FALSE(restartable(ended(AttemptState::Interrupted)));
  CHECK_FALSE(restartable(ended(AttemptState::Succeeded, 0)));
}

TEST_CASE("a relaunch keeps the injected faults beyond the steps reached, and drops the rest") {
  const Args args = {
      "--collective-timeout",   "30", "--fault", "kill:rank=1,step=3", "--fault=kill:rank=0,step=7", "--fault",
      "save-kill:rank=1,step=4"};
  CHECK(faults_not_reached(args, 3) ==
        Args{"--collective-timeout", "30", "--fault=kill:rank=0,step=7", "--fault", "save-kill:rank=1,step=4"});
  CHECK(faults_not_reached(args, 4) == Args{"--collective-timeout", "30", "--fault=kill:rank=0,step=7"});
  CHECK(faults_not_reached(args, 7) == Args{"--collective-timeout", "30"});
  // Progress unknown, or a fault without a step: no fault survives.
  CHECK(faults_not_reached(args, std::nullopt) == Args{"--collective-timeout", "30"});
  CHECK(faults_not_reached({"--fault", "sleep:rank=0", "--x"}, 0) == Args{"--x"});
}

TEST_CASE("the progress history reads until a line cut short, and says when a relaunch was back") {
  const fs::path dir = scratch("restart_progress");
  const auto file = write_file(dir / "progress", "0 100.000\n1 101.500\n2 102.250\n3 10");
  const auto points = read_progress(file);
  REQUIRE(points.size() == 3);
  CHECK(points.back().steps == 2);
  CHECK(points.back().unix_s == doctest::Approx(102.25));
  CHECK(read_progress(dir / "missing").empty());

  const std::vector<ProgressPoint> next = {{2, 110.0}, {3, 111.0}, {4, 112.5}};
  CHECK(*time_to_recover(4, 104.0, next) == doctest::Approx(8.5));  // back at step 4 at 112.5
  CHECK(*time_to_recover(2, 104.0, next) == doctest::Approx(6.0));  // resumed right where it died
  CHECK_FALSE(time_to_recover(5, 104.0, next).has_value());         // never got that far
  fs::remove_all(dir);
}

TEST_CASE("a study's restart policy reaches its trials, their identity, the stored trial and the command") {
  const fs::path dir = scratch("restart_policy");
  const Trial plain = first_trial(write_file(dir / "plain.yaml", study_yaml("")));
  const Trial t = first_trial(
      write_file(dir / "restart.yaml", study_yaml("    restart: {max: 3, resume: latest}\n    engine_args: [--fault, "
                                                  "\"kill:rank=1,step=3\", --fault, \"kill:rank=0,step=7\"]\n")));
  CHECK_FALSE(plain.restart.enabled());
  CHECK(t.restart.max == 3);
  CHECK(t.restart.describe() == "up to 3 restarts from the latest READY checkpoint");
  const Trial same_without_faults =
      first_trial(write_file(dir / "nofault.yaml", study_yaml("    restart: {max: 3}\n")));
  CHECK(same_without_faults.identity != plain.identity);  // restarting changes what a trial is

  const Trial stored = trial_from_json(trial_to_json(t));
  CHECK(stored.restart == t.restart);
  CHECK_FALSE(trial_from_json(trial_to_json(plain)).restart.enabled());

  LaunchContext context;
  context.engine = "/opt/mt/mtengine";
  context.launcher.type = "local";
  const std::string first = command_line(build_trial_command(t, context, "/runs/a/result.json"));
  CHECK(first.find("--progress-file /runs/a/progress") != std::string::npos);
  CHECK(first.find("--resume") == std::string::npos);
  CHECK(command_line(build_trial_command(plain, context, "/runs/a/result.json")).find("--progress-file") ==
        std::string::npos);

  const Trial again = relaunch_of(t, 3);
  CHECK(again.param("resume") == "latest");
  CHECK(again.engine_args == Args{"--fault", "kill:rank=0,step=7"});
  fs::remove_all(dir);
}

TEST_CASE("restart policies that cannot be honoured are refused, each named") {
  const fs::path dir = scratch("restart_refused");
  CHECK(problems(
            write_file(dir / "a.yaml", "name: r\nstudies:\n  - name: s\n    workload: train\n    restart: {max: 2}\n"))
            .find("restart needs checkpoint_dir") != std::string::npos);
  CHECK(problems(write_file(dir / "b.yaml", study_yaml("    restart: 3\n"))).find("restart must be a mapping") !=
        std::string::npos);
  CHECK(
      problems(write_file(dir / "c.yaml", study_yaml("    restart: {resume: latest}\n"))).find("restart needs 'max'") !=
      std::string::npos);
  CHECK(problems(write_file(dir / "d.yaml", study_yaml("    restart: {max: 2, every: 1}\n")))
            .find("unknown key 'every'") != std::string::npos);
  const std::string own_progress =
      "name: r\nstudies:\n  - name: s\n    workload: train\n    defaults: {checkpoint_dir: c, progress_file: p}\n"
      "    restart: {max: 1}\n";
  CHECK(problems(write_file(dir / "e.yaml", own_progress)).find("sets progress_file itself") != std::string::npos);
  const std::string stage_without_checkpoints =
      "name: r\nstudies:\n  - name: s\n    workload: train\n    restart: {max: 1}\n    stages:\n"
      "      - name: one\n        params: {checkpoint_dir: \"{work_dir}/c\"}\n      - name: two\n";
  CHECK(problems(write_file(dir / "f.yaml", stage_without_checkpoints))
            .find("stage 'two' runs train without checkpoint_dir") != std::string::npos);
  const std::string restarts_without_policy =
      "name: r\nstudies:\n  - name: s\n    workload: train\n    stages:\n      - name: one\n"
      "        expect: {outcome: succeeded, restarts: 1}\n";
  CHECK(problems(write_file(dir / "g.yaml", restarts_without_policy)).find("has no restart policy") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("the restart loop relaunches from the checkpoint, sets each launch's files aside and accounts the cost") {
  const fs::path dir = scratch("restart_loop");
  fs::create_directories(dir / "ckpt" / "step_00000002");
  write_file(dir / "ckpt" / "step_00000002" / "READY", "");
  fs::create_symlink("step_00000002", dir / "ckpt" / "latest");
  const fs::path yaml = write_file(
      dir / "r.yaml", study_yaml("    restart: {max: 2}\n    engine_args: [--fault, \"kill:rank=1,step=3\"]\n"));
  const Trial job = first_trial(yaml);
  CampaignRun run;
  run.context.engine = "/opt/mt/mtengine";
  run.context.launcher.type = "local";

  std::vector<std::string> commands;
  auto launch = [&](const LaunchCommand& command) {
    commands.push_back(command_line(command));
    write_file(dir / "log.txt", fmt::format("launch {}\n", commands.size()));
    if (commands.size() == 1) {
      write_file(dir / kProgressFileName, "0 100.0\n1 101.0\n2 102.0\n3 103.0\n");
      AttemptOutcome o = ended(AttemptState::Crashed, 137);
      o.duration_s = 4;
      return o;
    }
    write_file(dir / kProgressFileName, "2 110.0\n3 111.5\n4 112.0\n8 116.0\n");
    AttemptOutcome o = ended(AttemptState::Succeeded, 0);
    o.result_json = R"({"resumed_from_step": 2})";
    o.duration_s = 7;
    return o;
  };
  const AttemptOutcome out =
      run_restarting(run, job, build_trial_command(job, run.context, dir / "result.json"), dir, "job", launch);
  REQUIRE(commands.size() == 2);
  CHECK(commands[0].find("--fault kill:rank=1,step=3") != std::string::npos);
  CHECK(commands[1].find("--resume latest") != std::string::npos);
  CHECK(commands[1].find("--fault") == std::string::npos);
  CHECK(out.state == AttemptState::Succeeded);
  CHECK(out.duration_s >= 11);
  REQUIRE(out.launches.size() == 2);
  const LaunchRecord& first = out.launches[0];
  CHECK(first.state == AttemptState::Crashed);
  CHECK(first.reached_step == 3);
  CHECK_FALSE(first.resumed_from_step.has_value());
  CHECK(first.lost_steps == 1);                      // step 2 again
  CHECK(*first.recovery_s == doctest::Approx(8.5));  // 103.0 → back at 3 steps at 111.5
  CHECK(first.log_path == (dir / "launch-1.log.txt").string());
  CHECK(out.launches[1].resumed_from_step == 2);
  CHECK(out.launches[1].reached_step == 8);
  CHECK_FALSE(out.launches[1].lost_steps.has_value());
  std::ifstream kept(dir / "launch-1.log.txt");
  std::string line;
  std::getline(kept, line);
  CHECK(line == "launch 1");
  CHECK(fs::exists(dir / "launch-1.progress"));
  fs::remove_all(dir);
}

TEST_CASE("a job out of restarts ends as its last launch did, after max relaunches") {
  const fs::path dir = scratch("restart_budget");
  const Trial job = first_trial(write_file(dir / "r.yaml", study_yaml("    restart: {max: 2}\n")));
  CampaignRun run;
  run.context.engine = "/opt/mt/mtengine";
  run.context.launcher.type = "local";
  int launches = 0;
  const AttemptOutcome out = run_restarting(run, job, build_trial_command(job, run.context, dir / "result.json"), dir,
                                            "job", [&](const LaunchCommand&) {
                                              ++launches;
                                              return ended(AttemptState::Failed, 1);
                                            });
  CHECK(launches == 3);
  CHECK(out.state == AttemptState::Failed);
  CHECK(out.launches.size() == 3);
  fs::remove_all(dir);
}

TEST_CASE("launches are stored with their attempt and stage, and read back in order") {
  TempStore db("restart_store", 1);
  Trial t;
  t.study = "s";
  t.workload = "train";
  t.identity = t.group_key = "t000";
  const std::int64_t row = db.store.add_trial_if_new("c", t, 0);
  const std::int64_t attempt = db.store.begin_attempt(row, 1, "cmd", "/r", "/r/log.txt", std::nullopt);
  AttemptOutcome o = ended(AttemptState::Succeeded, 0);
  LaunchRecord crashed;
  crashed.launch = 1;
  crashed.state = AttemptState::Crashed;
  crashed.signal = 9;
  crashed.error_rank = 1;
  crashed.reached_step = 6;
  crashed.lost_steps = 2;
  crashed.recovery_s = 1.5;
  crashed.duration_s = 2;
  crashed.log_path = "/r/launch-1.log.txt";
  LaunchRecord finished;
  finished.launch = 2;
  finished.state = AttemptState::Succeeded;
  finished.resumed_from_step = 4;
  finished.reached_step = 12;
  finished.log_path = "/r/log.txt";
  o.launches = {crashed, finished};
  db.store.finish_attempt(attempt, o, std::nullopt);

  const auto rows = attempt_launches(db.store.db(), attempt);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].stage.empty());
  CHECK(rows[0].state == "crashed");
  CHECK(rows[0].signal == 9);
  CHECK(rows[0].lost_steps == 2);
  CHECK(*rows[0].recovery_s == doctest::Approx(1.5));
  CHECK(rows[1].resumed_from_step == 4);
  CHECK_FALSE(rows[1].recovery_s.has_value());
  CHECK(db.query("select group_concat(launch || ':' || state, ' ') from restarts") == "1:crashed 2:succeeded");
}

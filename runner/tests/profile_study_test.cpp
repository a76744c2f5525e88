// Profiled studies: `profile: true` runs each trial with --profile into its attempt's run
// directory, is part of the trial's identity (a plain study keeps its own), survives a rerun, and
// the database keeps the traces of each configuration's first repeat, read with bounds.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "experiment/experiment_loader.h"
#include "experiment/matrix.h"
#include "launch/trial_command.h"
#include "store/attempt_files.h"
#include "store/trial_json.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("mtrun_profile_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

TrialList trials_of(const std::string& profile_line) {
  auto file = scratch("profile.yaml");
  std::ofstream(file) << "name: p\nstudies:\n  - name: s\n    workload: train\n"
                      << profile_line << "    defaults: {strategy: ddp, steps: 4}\n    matrix: {ranks: [2]}\n";
  LoadResult r = load_experiment(file);
  REQUIRE(r.errors.empty());
  Expansion e = expand_experiment(*r.experiment);
  REQUIRE(e.errors.empty());
  return e.trials;
}

LaunchContext local_context() {
  LaunchContext c;
  c.engine = "/opt/mtengine";
  c.launcher.type = "local";
  c.cores = 2;
  return c;
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

}  // namespace

TEST_CASE("profile: true runs the engine with --profile into the attempt's run directory") {
  const Trial profiled = trials_of("    profile: true\n")[0];
  CHECK(profiled.profile);
  auto argv = build_trial_command(profiled, local_context(), "/runs/abc/attempt-1/result.json").argv;
  CHECK(argv == std::vector<std::string>{"/opt/mtengine", "train", "--steps", "4", "--strategy", "ddp", "--profile",
                                         "/runs/abc/attempt-1/profile", "--output", "/runs/abc/attempt-1/result.json"});

  const Trial plain = trials_of("")[0];
  CHECK_FALSE(plain.profile);
  auto plain_argv = build_trial_command(plain, local_context(), "/runs/abc/attempt-1/result.json").argv;
  CHECK(std::find(plain_argv.begin(), plain_argv.end(), "--profile") == plain_argv.end());
}

TEST_CASE("profiling is part of a trial's identity; profile: false is the plain study") {
  const Trial profiled = trials_of("    profile: true\n")[0];
  const Trial plain = trials_of("")[0];
  const Trial off = trials_of("    profile: false\n")[0];
  CHECK(profiled.identity != plain.identity);
  CHECK(profiled.group_key != plain.group_key);
  CHECK(off.identity == plain.identity);
}

TEST_CASE("a stored profiled trial is rebuilt profiled (rerun keeps it)") {
  const Trial profiled = trials_of("    profile: true\n")[0];
  CHECK(trial_from_json(trial_to_json(profiled)).profile);
  const Trial plain = trials_of("")[0];
  CHECK(trial_to_json(plain).find("profile") == std::string::npos);  // plain trials are stored as before
  CHECK_FALSE(trial_from_json(trial_to_json(plain)).profile);
}

TEST_CASE("the traces of a profiled configuration's first successful repeat are kept, within bounds") {
  const fs::path run = scratch("run");
  fs::remove_all(run);
  write(run / "profile" / "rank_00000.trace.json", "{\"traceEvents\": []}\n");
  write(run / "profile" / "rank_00001.trace.json", "{\"traceEvents\": [1]}\n");
  write(run / "profile" / "profile.json", "{}\n");
  write(run / "profile" / "notes.txt", "not a trace\n");
  write(run / "elsewhere.json", "{}\n");
  fs::create_symlink(run / "elsewhere.json", run / "profile" / "rank_00002.trace.json");
  std::ofstream(run / "profile" / "rank_00003.trace.json").seekp(std::streamoff(kMaxKeptFileBytes)) << 'x';

  Trial trial = trials_of("    profile: true\n")[0];
  AttemptOutcome ok;
  ok.state = AttemptState::Succeeded;
  auto files = files_to_keep(trial, ok, run);
  REQUIRE(files.size() == 3);  // no link, nothing past the size bound, nothing but traces and the summary
  CHECK(files[0].name == "profile/profile.json");
  CHECK(files[1].name == "profile/rank_00000.trace.json");
  CHECK(files[1].content == "{\"traceEvents\": []}\n");
  CHECK(files[2].name == "profile/rank_00001.trace.json");

  AttemptOutcome failed;
  failed.state = AttemptState::Failed;
  CHECK(files_to_keep(trial, failed, run).empty());
  trial.repeat_index = 1;
  CHECK(files_to_keep(trial, ok, run).empty());
  trial.repeat_index = 0;
  trial.profile = false;
  CHECK(files_to_keep(trial, ok, run).empty());
  CHECK(profile_files(scratch("no-such-run")).empty());
}

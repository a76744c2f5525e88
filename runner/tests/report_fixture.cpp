#include "report_fixture.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

#include <fmt/format.h>

#include "experiment/identity.h"
#include "report/compare/compare.h"
#include "report/model/results_source.h"
#include "store/result_ingest.h"
#include "store/conditions_rows.h"
#include "store/result_rows.h"

namespace mt::testing {
namespace {

std::filesystem::path fresh_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("mtrun_report_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
  return file;
}

// The engine's memory accounting for a 1 MiB model (fp32 AdamW: two moments): FSDP shards
// everything, ZeRO-1 the optimizer state, ZeRO-2 gradients too.
nlohmann::json model_state(const std::string& strategy, int ranks) {
  const double mib = 1024.0 * 1024.0;
  const bool shard_params = strategy == "fsdp";
  const bool shard_grads = shard_params || strategy == "zero2";
  const bool shard_optimizer = shard_grads || strategy == "zero1";
  const double parameters = shard_params ? mib / ranks : mib, gradients = shard_grads ? mib / ranks : mib;
  return {{"parameter_bytes", parameters},
          {"gradient_bytes", gradients},
          {"peak_gradient_bytes", gradients},
          {"optimizer_state_bytes", (shard_optimizer ? 2 * mib / ranks : 2 * mib)}};
}

// Per-rank step times, warmup first: ±1 % around the mean, the last rank slowest.
nlohmann::json step_times(int ranks, double step_ms, int warmup, int steps) {
  nlohmann::json series = nlohmann::json::array();
  for (int r = 0; r < ranks; ++r) {
    nlohmann::json one = nlohmann::json::array();
    for (int i = 0; i < warmup + steps; ++i)
      one.push_back(step_ms * (1 + 0.01 * ((i % 3) - 1)) - (ranks - 1 - r) * 0.1);
    series.push_back(one);
  }
  return series;
}

}  // namespace

nlohmann::json machine_environment() {
  const int threads = 2;
  return {{"libtorch", "1.13.1"},
          {"build_revision", "1111111111111111111111111111111111111111"},
          {"cpu_model", "Intel(R) Xeon(R) Platinum 8480+"},
          {"cpu_vendor", "GenuineIntel"},
          {"cpu_family", 6},
          {"cpu_model_number", 143},
          {"cpu_stepping", 8},
          {"cpu_cores", 16},
          {"threads_per_core", 2},
          {"memory_mib", 16384},
          {"cpu_isa", "avx2 fma avx512f amx"},
          {"blas", "OpenBLAS 0.3.21 (SkylakeX)"},
          {"blas_vendor", "OpenBLAS"},
          {"blas_version", "0.3.21"},
          {"blas_core", "SkylakeX"},
          {"blas_threads", threads},
          {"blas_gflops_per_thread", 90.0},
          {"threads_per_rank", threads},
          {"flush_denormal", true},
          {"env_vars", {{"OMP_NUM_THREADS", std::to_string(threads)}, {"OMP_WAIT_POLICY", "PASSIVE"}}}};
}

nlohmann::json train_result(const std::string& strategy, int ranks, double tokens_per_sec, double step_ms,
                            double peak_mb, const std::string& sync, const std::string& resolved) {
  nlohmann::json hosts = nlohmann::json::array();
  for (int r = 0; r < ranks; ++r) hosts.push_back("node1");
  return {{"schema_version", 1},
          {"benchmark", "train"},
          {"status", "ok"},
          {"strategy", strategy},
          {"world_size", ranks},
          {"precision", "fp32"},
          {"gradient_accumulation_steps", 2},
          {"gradient_sync_mode", sync},
          {"resolved_gradient_sync_mode", resolved},
          {"tokens_per_sec", tokens_per_sec},
          {"step_time_ms", step_ms},
          {"data_time_ms", step_ms * 0.1},
          {"forward_backward_ms", step_ms * 0.7},
          {"optimizer_step_ms", step_ms * 0.15},
          {"peak_memory_mb", peak_mb},
          {"memory", model_state(strategy, ranks)},
          {"loss", 7.5},
          {"collectives_per_step", {{"sync_rounds", ranks > 1 ? 1 : 0}, {"all_reduce", ranks > 1 ? 3 : 0}}},
          {"steps", 30},
          {"warmup_steps", 2},
          {"threads_per_rank", 2},
          {"hosts", hosts},
          {"per_step", {{"step_time_ms", step_times(ranks, step_ms, 2, 30)}}},
          {"environment", machine_environment()}};
}

FixtureTrial train_trial(const std::string& study, const std::string& strategy, int ranks, int repeat, double tokens,
                         double step_ms, double peak_mb, const std::string& sync) {
  FixtureTrial t;
  t.study = study;
  t.params = {{"strategy", strategy}, {"ranks", std::to_string(ranks)}, {"d_model", "128"}};
  t.axes = {"ranks"};
  if (!sync.empty()) {
    t.params["gradient_sync_mode"] = sync;
    t.axes.push_back("gradient_sync_mode");
  }
  t.repeat = repeat;
  t.result = train_result(strategy, ranks, tokens, step_ms, peak_mb, sync.empty() ? "auto" : sync,
                          sync == "every" || strategy != "ddp" ? "every" : "last");
  return t;
}

FixtureTrial peer_trial(const std::string& study, int ranks, int repeat, double tokens, double step_ms) {
  FixtureTrial t;
  t.study = study;
  t.workload = "command";
  t.params = {{"strategy", "ddp"}, {"ranks", std::to_string(ranks)}, {"d_model", "128"}};
  t.axes = {"ranks"};
  t.repeat = repeat;
  t.result = {{"benchmark", "train"}, {"status", "ok"},           {"strategy", "ddp"},
              {"world_size", ranks},  {"tokens_per_sec", tokens}, {"step_time_ms", step_ms}};
  return t;
}

RenderedReport render_latest(const ReportFixture& fixture, bool allow_mixed, const std::string& plot_dir) {
  auto db = open_results(fixture.path());
  ReportData data = load_report_data(*db, {latest_campaign(*db)});
  ReportOptions options;
  options.allow_mixed = allow_mixed;
  options.plot_dir = plot_dir;
  return render_report(data, options);
}

std::string render_comparison_of(const ReportFixture& fixture, const std::string& a, const std::string& b) {
  auto db = open_results(fixture.path());
  return render_comparison(load_report_data(*db, {campaign_by_id(*db, a)}),
                           load_report_data(*db, {campaign_by_id(*db, b)}));
}

std::string read_with_every_reader(Database& db, const ReportData& intact) {
  try {
    const ReportData pooled = load_report_data(db, {campaign_by_id(db, "intact"), campaign_by_id(db, "damaged")});
    ReportOptions options;
    options.allow_mixed = true;
    options.plot_dir = "plots";
    if (render_report(pooled, options).markdown.empty()) return "an empty report";
    render_answers_text(pooled);
    render_comparison(intact, pooled);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

static std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void check_golden(const std::string& name, const std::string& actual) {
  std::filesystem::path file = std::filesystem::path(MT_TEST_GOLDEN_DIR) / name;
  if (std::getenv("MT_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << actual;
  }
  REQUIRE_MESSAGE(std::filesystem::exists(file), "missing golden file " << file << " (run with MT_UPDATE_GOLDEN=1)");
  std::string expected = read_text(file);
  CHECK_MESSAGE(actual == expected, "output differs from " << file << "; if intended, rerun with MT_UPDATE_GOLDEN=1");
}

void mark_disturbed(ReportFixture& f, std::int64_t attempt) {
  MachineConditions c;
  c.wall_s = 1;
  c.cpus = 2;
  c.foreign_cpu_pct = 80;
  Verdict v;
  v.disturbed = true;
  v.reasons = {"other processes used 80 % of a core"};
  record_conditions(f.store().db(), attempt, c, v);
}

void rounds_with_growth(ReportFixture& f, const std::string& campaign, double growth) {
  for (int r = 0; r < 4; ++r) {
    for (int ranks : {1, 2}) {
      const double slower = 1 + growth * r;
      f.trial(train_trial("s", "ddp", ranks, r, 1000.0 * ranks / slower, 40 * slower, 500), campaign);
    }
  }
}

void engine_and_peer_campaign(ReportFixture& f) {
  f.campaign("c1");
  const double engine[] = {1200, 1212, 1188}, peer[] = {1000, 1010, 990};
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2}) {
      f.trial(train_trial("engine", "ddp", ranks, r, engine[r] * ranks, 40, 500));
      f.trial(peer_trial("peer", ranks, r, peer[r] * ranks, 48));
    }
  }
}

ReportFixture::ReportFixture(const std::string& name) : path_(fresh_path(name)), store_(path_) {}

void ReportFixture::campaign(const std::string& id, const std::string& experiment, const std::string& created_at) {
  store_.add_campaign_if_new({id, experiment, "/exp/" + experiment + ".yaml",
                              "1111111111111111111111111111111111111111", "plan-" + id, "{}", 0, created_at});
}

std::int64_t ReportFixture::trial(const FixtureTrial& f) {
  Trial t;
  t.study = f.study;
  t.workload = f.workload;
  t.repeat_index = f.repeat;
  for (const auto& [name, value] : f.params) t.params.push_back({name, value});
  if (!f.params.count("ranks")) t.params.insert(t.params.begin(), {"ranks", "1"});
  t.ranks = std::stoi(t.param("ranks", "1"));
  t.axis_names = f.axes;
  std::string text = fmt::format("study={}\nworkload={}\n", t.study, t.workload);
  for (const auto& p : t.params) text += p.name + "=" + p.value + "\n";
  for (const auto& [name, value] : f.environment) {
    t.environment.push_back({name, value});
    text += "env." + name + "=" + value + "\n";
  }
  t.group_key = content_hash(text);
  t.identity = content_hash(text + fmt::format("repeat={}\n", f.repeat));
  auto row = store_.add_trial_if_new(f.campaign, t, ordinal_++);
  int number = store_.next_attempt_number(row);
  std::string dir = fmt::format("results/runs/{}/{}", f.campaign, t.identity);
  std::string command =
      f.command.empty() ? "mpirun -np " + std::to_string(t.ranks) + " mtengine " + t.workload : f.command;
  auto attempt = store_.begin_attempt(row, number, command, dir, dir + "/log.txt", std::nullopt, f.before);
  AttemptOutcome outcome;
  outcome.state = f.state;
  outcome.exit_code = f.state == AttemptState::Succeeded ? 0 : 1;
  outcome.error_rank = f.error_rank;
  outcome.error_step = f.error_step;
  if (!f.error_reason.empty()) outcome.error_reason = f.error_reason;
  outcome.duration_s = 1.5;
  outcome.files = f.files;
  if (!f.result.empty()) {
    outcome.result_json = f.result.dump();
    outcome.metrics = flatten_metrics(*outcome.result_json);
    outcome.rows = read_result_rows(f.result).rows;
  }
  store_.finish_attempt(attempt, outcome, std::nullopt);
  return attempt;
}

std::int64_t ReportFixture::trial(FixtureTrial t, const std::string& campaign) {
  t.campaign = campaign;
  return trial(t);
}

void ReportFixture::provenance(std::int64_t attempt_id, const FixtureProvenance& p) {
  store_.db()
      .prepare(
          "INSERT INTO provenance (attempt_id, source_commit, tree_dirty, diff_hash, build_revision, image_ref, "
          "image_id, base_image, bare_metal, engine_binary_hash, software_stack, hosts, command, complete, "
          "missing_fields) VALUES (?, ?, ?, ?, ?, ?, ?, 'debian:12', ?, ?, ?, '[\"node1\"]', "
          "'mtengine train', ?, ?)")
      .bind(1, attempt_id)
      .bind(2, p.source_commit)
      .bind(3, p.tree_dirty ? 1 : 0)
      .bind(4, p.diff_hash.empty() ? std::optional<std::string>() : p.diff_hash)
      .bind(5, p.build_revision)
      .bind(6, p.image_id.empty() ? std::optional<std::string>() : std::string("mtb:cpu"))
      .bind(7, p.image_id.empty() ? std::optional<std::string>() : p.image_id)
      .bind(8, p.image_id.empty() ? 1 : 0)
      .bind(9, p.engine_binary_hash.empty() ? std::optional<std::string>() : p.engine_binary_hash)
      .bind(10, p.software_stack)
      .bind(11, p.complete ? 1 : 0)
      .bind(12, p.missing_fields)
      .run();
}

void ReportFixture::pin_timestamps() {
  store_.db().exec(
      "UPDATE attempts SET started_at = printf('2024-05-01T10:%02d:00Z', id % 60), "
      "finished_at = printf('2024-05-01T10:%02d:30Z', id % 60)");
}

}  // namespace mt::testing

// Published references: the committed file loads and cites every figure, groups are matched by
// hardware and configuration, reports show our share of the figure, and a malformed file is refused
// with the line at fault.
#include <doctest/doctest.h>

#include <fstream>
#include <unistd.h>

#include "report/model/groups.h"
#include "report/model/references.h"
#include "report/sections/references_section.h"
#include "report/report.h"
#include "report/model/results_source.h"
#include "report_fixture.h"
#include "runner_error.h"

using namespace mt;
using namespace mt::testing;

namespace {

const char* const kA100 = "NVIDIA A100-SXM4-80GB";

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << text;
  return path;
}

// A training trial of the upstream's model on `gpu` (empty: the CPU fixture machine).
FixtureTrial upstream_trial(const std::string& strategy, int ranks, int repeat, double tokens, const std::string& gpu) {
  FixtureTrial t = train_trial("scaling", strategy, ranks, repeat, tokens, 20.0, 500.0);
  t.result["precision"] = "bf16";
  t.result["batch_size_per_rank"] = 2;
  t.result["model_config"] = {{"vocab_size", 8192}, {"d_model", 512},    {"n_heads", 8},
                              {"n_layers", 6},      {"seq_length", 256}, {"dropout", 0.0}};
  if (!gpu.empty()) {
    t.result["environment"]["gpu_model"] = gpu;
    t.result["environment"]["gpu_count"] = ranks;
  }
  return t;
}

// A collective benchmark trial with all_reduce rows at 64 MiB and 1 GiB on `gpu`.
FixtureTrial comm_trial(int ranks, int repeat, const std::string& gpu, double busbw_1g) {
  FixtureTrial t;
  t.study = "collectives";
  t.workload = "comm";
  t.params = {{"ranks", std::to_string(ranks)}};
  t.axes = {"ranks"};
  t.repeat = repeat;
  nlohmann::json rows = nlohmann::json::array();
  for (double bytes : {double(64 << 20), double(1 << 30)}) {
    const double busbw = bytes > (64 << 20) ? busbw_1g : busbw_1g / 2;
    rows.push_back({{"operation", "all_reduce"},
                    {"bytes", bytes},
                    {"dtype", "f32"},
                    {"in_place", false},
                    {"busbw_gbps", busbw},
                    {"algbw_gbps", busbw * ranks / (2.0 * (ranks - 1))},
                    {"latency_us", 100.0}});
  }
  nlohmann::json env = machine_environment();
  env["gpu_model"] = gpu;
  t.result = {{"schema_version", 1}, {"benchmark", "comm"}, {"status", "ok"},
              {"world_size", ranks}, {"rows", rows},        {"environment", env}};
  return t;
}

std::string render_with(const ReportFixture& fixture, const ReferenceFile& references) {
  auto db = open_results(fixture.path());
  ReportData data = load_report_data(*db, {latest_campaign(*db)});
  ReportOptions options;
  options.references = references;
  return render_report(data, options).markdown;
}

std::string load_error(const std::string& name, const std::string& text) {
  const auto path = write_temp(name, text);
  try {
    read_references(path);
  } catch (const RunnerError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the committed references file loads and cites a source for every figure") {
  ReferenceFile file = read_references(MT_REFERENCES_FILE);
  CHECK_FALSE(file.version.empty());
  REQUIRE(file.entries.size() >= 10);
  for (const auto& e : file.entries) {
    INFO(e.id);
    CHECK_FALSE(e.source.title.empty());
    CHECK(e.low > 0);
  }
}

TEST_CASE("an 8×A100 DDP group is shown as a share of the upstream's 227k tokens/s") {
  ReportFixture fixture("refs_a100");
  fixture.campaign("c1");
  for (int r = 1; r <= 3; ++r) {
    fixture.trial(upstream_trial("ddp", 8, r, 200000 + 1000 * (r - 2), kA100));
    fixture.trial(upstream_trial("fsdp", 1, r, 14600, kA100));
  }
  const std::string md = render_with(fixture, read_references(MT_REFERENCES_FILE));
  CHECK(contains(md, "## Against published references"));
  CHECK(contains(md,
                 "| scaling ddp, 8 ranks | NVIDIA A100-SXM4-80GB | tokens/s | 200000 | 227000 | 88.1 % | 3 | "
                 "`upstream-ddp-8xA100` |"));
  CHECK(contains(md, "| scaling fsdp, 1 rank | NVIDIA A100-SXM4-80GB | tokens/s | 14600 | 14600 | 100.0 % |"));
  CHECK(contains(md, "(version 1)"));
  // The 1-GPU DDP figure does not apply to 8 ranks, nor an H100 figure to an A100.
  CHECK_FALSE(contains(md, "`upstream-ddp-1xA100`"));
}

TEST_CASE("a different model shape or a CPU run matches no reference") {
  ReportFixture fixture("refs_cpu");
  fixture.campaign("c1");
  FixtureTrial other_model = upstream_trial("ddp", 8, 1, 200000, kA100);
  other_model.study = "wide";
  other_model.result["model_config"]["d_model"] = 1024;
  fixture.trial(other_model);
  fixture.trial(upstream_trial("ddp", 8, 1, 3000, ""));
  auto db = open_results(fixture.path());
  ReportData data = load_report_data(*db, {latest_campaign(*db)});
  std::vector<Group> groups = group_trials(data.trials);
  ReferenceFile file = read_references(MT_REFERENCES_FILE);
  CHECK(match_references(groups, file).empty());
  const std::string md = render_with(fixture, file);
  CHECK(contains(md, "No published reference in "));
  CHECK(contains(md, "applies to these runs (CPU ("));
}

TEST_CASE("without a references file, or without figures for the workloads run, there is no section") {
  ReportFixture fixture("refs_none");
  fixture.campaign("c1");
  fixture.trial(upstream_trial("ddp", 8, 1, 200000, kA100));
  CHECK_FALSE(contains(render_latest(fixture).markdown, "published reference"));
  ReferenceFile comm_only = read_references(write_temp("refs_comm_only", R"(version: 3
references:
  - id: x
    metric: busbw_gbps
    value: 100
    applies_to: {workload: comm, operation: all_reduce, gpu_model: A100}
    source: {title: somewhere}
)"));
  CHECK_FALSE(contains(render_with(fixture, comm_only), "published reference"));
}

TEST_CASE("a collective is held at its best busbw over the sizes a range applies to") {
  ReportFixture fixture("refs_h100");
  fixture.campaign("c1");
  for (int r = 1; r <= 2; ++r) fixture.trial(comm_trial(8, r, "NVIDIA H100 80GB HBM3", 400.0));
  const std::string md = render_with(fixture, read_references(MT_REFERENCES_FILE));
  // 400 of 370–480: 83.3 % of the top, 108.1 % of the bottom; the 64 MiB point is below min_bytes.
  CHECK(contains(md, "busbw GB/s (all_reduce, 1 GiB, out of place) | 400.0 | 370.0–480.0 | 83.3 %–108.1 % | 2 |"));
  CHECK(contains(md, "`nccl-tests-all-reduce-8xH100`"));
  CHECK(contains(md, "[NVIDIA nccl-tests, issue #212"));
}

TEST_CASE("a malformed references file is refused naming the file and line") {
  CHECK(contains(load_error("refs_bad_yaml", "version: 1\nreferences:\n  - id: a: b\n    metric: x\n"),
                 ".yaml:3: not valid YAML"));
  const std::string missing = load_error("refs_no_source", R"(version: 1
references:
  - id: ok
    metric: tokens_per_sec
    value: 10
    applies_to: {workload: train, gpu_model: A100}
    source: {title: t}
  - id: no_source
    metric: tokens_per_sec
    value: 10
    applies_to: {workload: train, gpu_model: A100}
)");
  CHECK(contains(missing, "refs_no_source_"));
  CHECK(contains(load_error("refs_two_documents", "version: 1\nreferences: []\n---\n- id: late\n"),
                 ".yaml:4: a second YAML document starts here (after a `---` line, or where a line is indented less "
                 "than the file's first): a references file is one document, and this would be ignored"));
  CHECK(contains(missing, ".yaml:8: missing field `source`"));
  const std::string metric = load_error("refs_bad_metric", R"(version: 1
references:
  - id: m
    metric: tokens
    value: 10
    applies_to: {workload: train, gpu_model: A100}
    source: {title: t}
)");
  CHECK(contains(metric, ".yaml:4: unknown metric \"tokens\""));
  const std::string hardware = load_error("refs_no_hardware", R"(version: 1
references:
  - id: h
    metric: tokens_per_sec
    range: [10, 20]
    applies_to: {workload: train, strategy: ddp}
    source: {title: t}
)");
  CHECK(contains(hardware, ".yaml:6: `applies_to` must name the hardware"));
  const std::string value = load_error("refs_bad_value", R"(version: 1
references:
  - id: v
    metric: tokens_per_sec
    value: lots
    applies_to: {workload: train, gpu_model: A100}
    source: {title: t}
)");
  CHECK(contains(value, ".yaml:5: `value` must be a number"));
  CHECK(contains(load_error("refs_missing", ""), "must be a mapping"));
}

// The machine beside the numbers: oversubscription and shared cores marked wherever they touch a
// number, short measurement windows flagged, and the CPU/BLAS context shown or "not recorded".
#include <doctest/doctest.h>

#include "report/model/measurement_window.h"
#include "report/report.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

namespace {

// DDP at 1, 2 and 4 ranks on a 2-core node, one core per rank beyond one rank (as mtrun launches
// them): 2 ranks share the 1-rank run's cores, 4 ranks oversubscribe them.
FixtureTrial on_two_cores(int ranks, int repeat, double tokens) {
  FixtureTrial t = train_trial("s", "ddp", ranks, repeat, tokens, 40, 500);
  t.result["environment"]["cpu_cores"] = 2;
  t.result["threads_per_rank"] = ranks == 1 ? 2 : 1;
  return t;
}

void two_core_campaign(ReportFixture& f, const std::function<void(FixtureTrial&)>& adjust = {}) {
  f.campaign("c1");
  const double tokens[] = {1000, 1200, 1100};
  for (int r = 0; r < 3; ++r) {
    int i = 0;
    for (int ranks : {1, 2, 4}) {
      FixtureTrial t = on_two_cores(ranks, r, tokens[i++]);
      if (adjust) adjust(t);
      f.trial(t);
    }
  }
}

}  // namespace

TEST_CASE("machine: more ranks × threads than cores is oversubscribed next to every number it touches") {
  ReportFixture f("oversubscribed.sqlite");
  two_core_campaign(f);
  RenderedReport report = render_latest(f, false, "plots");
  const std::string& md = report.markdown;
  // Training rows: the ranks cell says so, and no scaling efficiency is presented as the strategy's.
  CHECK(contains(md, "Every row: strategy ddp, precision fp32."));  // said once, not in a column
  CHECK(contains(md, "| 4 ⚠oversubscribed | s |"));
  CHECK(contains(md, "| 4.0 ± 0.0 | ⚠oversubscribed |"));
  // Two ranks on the cores the 1-rank run already used: the efficiency is qualified, not withheld.
  CHECK(contains(md, "| 60.0 % ⚠same cores |"));
  // Every row is DDP: the columns comparing with DDP would read "reference" throughout, so they go.
  CHECK_FALSE(contains(md, "memory saving vs DDP"));
  // Measurement conditions, the summary, and the best-configuration table.
  CHECK(contains(md, "| 4 × 1 = 4 > 2 cores ⚠oversubscribed |"));
  CHECK(contains(md, "| 2 × 1 = 2 of 2 cores |"));
  CHECK(contains(md, "- ⚠oversubscribed: 1 configuration ran more ranks × threads than the node's 2 cores (4 ranks)"));
  CHECK(contains(md, "- ⚠same cores: 1 multi-rank configuration ran on no more cores than its 1-rank baseline"));
  CHECK(contains(md, "| 4 ⚠oversubscribed | ddp (s): 1100 ± 0 |"));
  // The plot marks the rank count and draws no ideal scaling: every multi-rank point shares cores.
  const Plot& tokens = report.plots.at(0);
  CHECK(tokens.chart.categories == std::vector<std::string>{"1", "2", "4 (oversubscribed)"});
  REQUIRE(tokens.chart.series.size() == 1);
  CHECK(contains(md,
                 "draws no ideal-scaling line where the ranks shared the cores of the 1-rank run or "
                 "oversubscribed them"));
}

TEST_CASE("machine: without a recorded core count, the launcher's --oversubscribe decides") {
  ReportFixture f("launcher_oversubscribed.sqlite");
  two_core_campaign(f, [](FixtureTrial& t) {
    t.result["environment"].erase("cpu_cores");
    if (t.params["ranks"] == "4") t.command = "mpirun -np 4 --oversubscribe -x OMP_NUM_THREADS=1 mtengine train";
  });
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "Every row: strategy ddp, precision fp32."));  // said once, not in a column
  CHECK(contains(md, "| 4 ⚠oversubscribed | s |"));
  CHECK(contains(md, "| 4 × 1 = 4 (cores not recorded; launched with more ranks than cores) ⚠oversubscribed |"));
  CHECK(contains(md, "| 2 × 1 = 2 (cores not recorded) |"));
  CHECK(contains(md, "ran more ranks × threads than the node has cores (4 ranks)"));
  CHECK(contains(md, "  mpirun -np 1 mtengine train\n"));  // each study's recorded command
}

TEST_CASE("machine: short measurement windows and small n are flagged; per-step CV is shown") {
  ReportFixture f("windows.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    f.trial(train_trial("long", "ddp", 1, r, 1000, 40, 500));
    FixtureTrial t = train_trial("short", "ddp", 2, r, 1900, 42, 500);
    t.result["steps"] = 8;
    f.trial(t);
  }
  std::string md = render_latest(f).markdown;
  // 30 steps cycling ±1 % around the mean: CV = 0.01·√(20/29) = 0.83 %, ÷ √30 = 0.15 %.
  // Its drift: the first 7 measured steps run 1/7 % over the mean, the last 15 at it: -0.1 %.
  CHECK(contains(md, "| 30 | 0.8 % | 0.2 % | -0.1 % | 3 |"));
  CHECK(contains(md, "| 8 ⚠short window | 0.8 % | 0.3 % | - | 3 |"));  // too few steps to judge a drift
  CHECK(contains(md, "| 8 ⚠short window |"));
  CHECK(contains(md, "- ⚠short window: 1 of 2 configurations measured fewer than 20 steps per trial (8)"));
  CHECK(contains(md, "- 2 of 2 configurations have fewer than 5 successful repeats (n = 3)"));
  CHECK(contains(md, "**Measurement**: n = 3 successful repeats per configuration; 8–30 measured steps per trial"));
}

namespace {

// 20 measured steps after 2 of warmup: the first five `first_ms` each, the rest `rest_ms`.
nlohmann::json two_level_steps(double first_ms, double rest_ms) {
  nlohmann::json steps = nlohmann::json::array();
  for (int i = 0; i < 22; ++i) steps.push_back(i < 7 ? first_ms : rest_ms);
  return nlohmann::json::array({steps});
}

FixtureTrial drifting(const std::string& study, int repeat, double first_ms, double rest_ms) {
  FixtureTrial t = train_trial(study, "ddp", 1, repeat, 1000, rest_ms, 500);
  t.result["steps"] = 20;
  t.result["per_step"]["step_time_ms"] = two_level_steps(first_ms, rest_ms);
  return t;
}

}  // namespace

TEST_CASE("machine: a trial's drift is its last half against its first quarter, from 12 steps up") {
  std::vector<double> steps(12, 40.0);
  steps[0] = steps[1] = steps[2] = 50;  // the first quarter
  REQUIRE(step_drift(steps));
  CHECK(*step_drift(steps) == doctest::Approx(-0.2));
  steps[11] = 60;  // in the last half: (5 × 40 + 60) ÷ 6 = 43.33 against 50
  CHECK(*step_drift(steps) == doctest::Approx(260.0 / 6 / 50 - 1));
  CHECK_FALSE(step_drift(std::vector<double>(11, 40.0)));
  CHECK_FALSE(step_drift(std::vector<double>(12, 0.0)));  // no time to compare against
  std::vector<double> huge(12, 1e308);
  huge[0] = 1;  // both means overflow: no figure
  CHECK_FALSE(step_drift(huge));
}

TEST_CASE("machine: a step time still moving one way over the window, in every repeat alike, is marked") {
  ReportFixture f("drift.sqlite");
  f.campaign("c1");
  const double early[] = {50, 52, 51};
  for (int r = 0; r < 3; ++r) {
    f.trial(drifting("warm", r, early[r], 40));  // the last half 20–23 % faster than the first quarter
    f.trial(drifting("slow", r, 40, early[r]));  // 25–30 % slower
    f.trial(drifting("level", r, 40, 40.2));     // 0.5 % slower each time: too small to mark
  }
  // Two ways at once is chance, not a trend; two repeats cannot say.
  f.trial(drifting("mixed", 0, 50, 40));
  f.trial(drifting("mixed", 1, 40, 50));
  f.trial(drifting("mixed", 2, 50, 40));
  f.trial(drifting("pair", 0, 50, 40));
  f.trial(drifting("pair", 1, 50, 40));
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "| -21.5 % ⚠warming | 3 |"));  // 40 ÷ 50, 52 and 51, − 1, averaged over the repeats
  CHECK(contains(md, "| +27.5 % ⚠slowing | 3 |"));
  CHECK(contains(md, "| +0.5 % | 3 |"));
  CHECK(contains(md, "| -5.0 % | 3 |"));  // mixed: -20 %, +25 %, -20 %
  CHECK(contains(md, "| - | 2 |"));
  CHECK(contains(md,
                 "- ⚠warming: 1 of 5 configurations still got faster over their measured steps (warm ddp ×1: the last "
                 "half 21.5 % faster than the first quarter on average, 3 of 3 repeats that way, p = 0.002): their "
                 "means hold some warm-up; more `warmup_steps` leave it out."));
  CHECK(contains(md,
                 "- ⚠slowing: 1 of 5 configurations got slower over their measured steps (slow ddp ×1: the last half "
                 "27.5 % slower than the first quarter on average, 3 of 3 repeats that way"));
  CHECK(contains(md, "- step drift: the last half of a trial's measured steps against its first quarter"));
}

TEST_CASE("machine: the environment section carries CPU, cores, memory, BLAS and flush-to-zero, or says not recorded") {
  ReportFixture f("environment.sqlite");
  f.campaign("c1");
  f.trial(train_trial("new", "ddp", 1, 0, 1000, 40, 500));
  FixtureTrial old = train_trial("old", "ddp", 1, 0, 1000, 40, 500);
  old.result["environment"] = {{"cpu_model", "AMD EPYC"},
                               {"blas", "openblas"},
                               {"libtorch", "1.13.1"},
                               {"build_revision", "1111111111111111111111111111111111111111"}};
  old.command = "mpirun -np 1 -x OMP_NUM_THREADS mtengine train";
  f.trial(old);
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "| CPU | Intel(R) Xeon(R) Platinum 8480+ | AMD EPYC |"));
  // Before any number, the machines it came from, each once, with what the results recorded.
  const auto machines = md.find(
      "Ran on 2 machines: Intel(R) Xeon(R) Platinum 8480+ (family 6 model 143), 16 logical CPUs (avx2 fma "
      "avx512f amx), OpenBLAS 0.3.21; AMD EPYC.");
  CHECK(machines != std::string::npos);
  CHECK(machines < md.find("## "));
  CHECK(contains(
      md, "| CPU vendor, family, model, stepping | GenuineIntel, family 6, model 143, stepping 8 | not recorded |"));
  CHECK(contains(md, "| logical CPUs | 16, 2 threads per core | not recorded |"));
  CHECK(contains(md, "| memory | 16384 MiB | not recorded |"));
  CHECK(contains(md, "| BLAS vendor, version, core | OpenBLAS, 0.3.21, core SkylakeX | not recorded |"));
  CHECK(contains(md, "| flush-to-zero (denormals) | yes | not recorded |"));
  // Per configuration: threads, environment values, the BLAS threads and probe.
  CHECK(contains(md, "| 1 × 2 = 2 of 16 cores | OMP_NUM_THREADS=2 OMP_WAIT_POLICY=PASSIVE | 2 | 90.0 |"));
  CHECK(contains(md, "| 1 × 2 = 2 (cores not recorded) | not recorded | not recorded | not recorded |"));
  CHECK(contains(md, "- Not recorded by the programs that ran: logical CPUs (1 of 2 trials), memory (1 of 2 trials)"));
  // A record that names forwarded variables without their values says so.
  CHECK(contains(md, "These records name the variables mpirun forwarded (`-x NAME`) without their values"));
}

TEST_CASE("machine: the conditions say which library ran the dense layers' GEMMs, measured or pinned") {
  ReportFixture f("gemm_backends.sqlite");
  f.campaign("c1");
  auto shapes = [](const char* forward, const char* chosen_by) {
    nlohmann::json out = nlohmann::json::array();
    for (const char* backend : {forward, "mkl", "mkl"})
      out.push_back({{"shape", "512×768×256 (A·Bᵀ)"}, {"backend", backend}, {"chosen_by", chosen_by}});
    return out;
  };
  FixtureTrial measured = train_trial("measured", "ddp", 1, 0, 1000, 40, 500);
  measured.result["environment"]["gemm_backends"] = shapes("onednn", "measured");
  f.trial(measured);
  FixtureTrial pinned = train_trial("pinned", "ddp", 1, 0, 1000, 40, 500);
  pinned.result["environment"]["gemm_backends"] = shapes("mkl", "--gemm-backend");
  f.trial(pinned);
  FixtureTrial busy = train_trial("busy", "ddp", 1, 0, 1000, 40, 500);
  busy.result["environment"]["gemm_backends"] = shapes("mkl", "measured");
  busy.result["environment"]["gemm_backends"][1]["measured_on_busy_machine"] =
      "other processes kept 1.00 of 2 CPUs busy";
  f.trial(busy);
  FixtureTrial stand_in = train_trial("stand-in", "ddp", 1, 0, 1000, 40, 500);
  stand_in.result["environment"]["gemm_backends"] = shapes("onednn", "measured");
  for (auto& shape : stand_in.result["environment"]["gemm_backends"]) {
    shape["measured_on_busy_machine"] = "other processes kept 2.00 of 2 CPUs busy";
    shape["speeds_from_earlier_launch"] = true;
  }
  f.trial(stand_in);
  // A workload's own values of the wrong type are not taken for anything, and break nothing.
  FixtureTrial odd = train_trial("odd", "ddp", 1, 0, 1000, 40, 500);
  odd.result["environment"]["gemm_backends"] = shapes("onednn", "measured");
  odd.result["environment"]["gemm_backends"][0]["speeds_from_earlier_launch"] = "yes";
  odd.result["environment"]["gemm_backends"][0]["measured_on_busy_machine"] = "busy";
  odd.result["environment"]["gemm_backends"][1]["backend"] = 5;
  odd.result["environment"]["gemm_backends"][2]["chosen_by"] = nullptr;
  f.trial(odd);
  f.trial(train_trial("older", "ddp", 1, 0, 1000, 40, 500));
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md, "| mkl 2, onednn 1 of 3 shapes |"));
  // A choice made from speeds measured under load says so: it may not be the one a quiet machine makes.
  CHECK(contains(md, "| mkl 3 of 3 shapes, measured on a busy machine |"));
  // Where an earlier busy launch's answer stood in, the choice is that launch's.
  CHECK(contains(md, "| mkl 2, onednn 1 of 3 shapes, measured on a busy machine, by an earlier launch |"));
  CHECK(contains(md, "| ? 1, mkl 1, onednn 1 of 3 shapes, measured on a busy machine |"));
  CHECK(contains(md, "| mkl (pinned) |"));
  CHECK(contains(md, "- dense-layer GEMMs: the library that ran each product shape"));
  // The measured speeds vary per launch: they do not split one build on one machine into stacks.
  CHECK_FALSE(contains(md, "mixed results"));
}

TEST_CASE("machine: a program that records less of the same machine does not make it a second machine") {
  auto epyc = [](int family, int model) {
    return nlohmann::json{
        {"cpu_model", "AMD EPYC"},          {"cpu_family", family}, {"cpu_model_number", model}, {"cpu_cores", 2},
        {"cpu_isa", "avx2 fma avx sse4.2"}, {"blas_vendor", "MKL"}, {"blas_version", "2024.2"}};
  };
  // A bare peer records the CPU's name and cores, no family, ISA or BLAS.
  const nlohmann::json bare = {{"cpu_model", "AMD EPYC"}, {"cpu_cores", 2}};
  ReportFixture one("one_machine.sqlite");
  one.campaign("c1");
  FixtureTrial engine = train_trial("engine", "ddp", 1, 0, 1000, 40, 500);
  engine.result["environment"] = epyc(25, 1);
  one.trial(engine);
  FixtureTrial peer = train_trial("peer", "ddp", 1, 0, 1000, 40, 500);
  peer.result["environment"] = bare;
  one.trial(peer);
  CHECK(contains(render_latest(one).markdown,
                 "Ran on AMD EPYC (family 25 model 1), 2 logical CPUs (avx2 fma avx sse4.2), MKL 2024.2.\n"));

  // Beside two EPYCs of different families, the bare record could be either: it stays on its own.
  ReportFixture two("two_machines.sqlite");
  two.campaign("c1");
  two.trial(engine);
  FixtureTrial zen5 = train_trial("engine", "ddp", 1, 1, 1000, 40, 500);
  zen5.result["environment"] = epyc(26, 2);
  two.trial(zen5);
  two.trial(peer);
  CHECK(contains(render_latest(two).markdown,
                 "Ran on 3 machines: AMD EPYC (family 25 model 1), 2 logical CPUs (avx2 fma avx sse4.2), MKL 2024.2; "
                 "AMD EPYC (family 26 model 2), 2 logical CPUs (avx2 fma avx sse4.2), MKL 2024.2; AMD EPYC, 2 logical "
                 "CPUs.\n"));
}

// The model FLOPs utilisation section: shown for results that carry the engine's `mfu` fields, with
// the shares as percentages, and absent for results without them; what bounds it where the engine
// timed its dense GEMMs.
#include <doctest/doctest.h>

#include <functional>

#include "report/report.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

TEST_CASE("utilisation: MFU per configuration when the results carry it, nothing otherwise") {
  ReportFixture f("utilisation.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial t = train_trial("s", "ddp", 2, r, 1000, 40, 500);
    // 6 MFLOP per token at 1000 tokens/s: 6 GFLOP/s against a 60 GFLOP/s calibrated peak = 10 %,
    // against a 120 GFLOP/s vector peak = 5 %; the third repeat slightly faster.
    const double share = r == 2 ? 0.11 : 0.10;
    t.result["mfu"] = {{"model_flops_per_token", 6e6},   {"achieved_gflops", 60 * share},
                       {"calibrated_peak_gflops", 60.0}, {"of_calibrated_peak", share},
                       {"vector_peak_gflops", 120.0},    {"of_vector_peak", share / 2}};
    f.trial(t);
  }
  const std::string md = render_latest(f).markdown;
  REQUIRE(contains(md, "## Model FLOPs utilisation\n"));
  CHECK(contains(md, "| ddp | 2 | s | 1000 ± 0 | 6.0 | 6.20 ± 0.35 | 60.0 ± 0.0 | 10.3 ± 0.6 | 5.2 ± 0.3 | 3 |"));
  CHECK(contains(md, "6·N + 12·L·d·T"));
  CHECK_FALSE(contains(md, "can pass 100 %"));         // fp32 (the fixture's precision) against fp32 peaks
  CHECK_FALSE(contains(md, "as measured at launch"));  // these results do not say which clock

  // Results whose vector peak counts the clock measured at launch: the section says so.
  ReportFixture clocked("utilisation_clock.sqlite");
  clocked.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial t = train_trial("s", "ddp", 2, r, 1000, 40, 500);
    t.result["mfu"] = {{"model_flops_per_token", 6e6},    {"achieved_gflops", 6.0},
                       {"vector_peak_gflops", 120.0},     {"of_vector_peak", 0.05},
                       {"vector_peak_clock", "measured"}, {"vector_peak_clock_mhz", 3700.0}};
    clocked.trial(t);
  }
  CHECK(contains(render_latest(clocked).markdown, "× its clock (as measured at launch, `mfu.vector_peak_clock_mhz`"));

  // A bf16 run is held against the same fp32 peaks: the section says what a share above 100 % means.
  ReportFixture bf16("utilisation_bf16.sqlite");
  bf16.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial t = train_trial("s", "ddp", 2, r, 1000, 40, 500);
    t.result["precision"] = "bf16";
    t.result["mfu"] = {{"model_flops_per_token", 6e6}, {"achieved_gflops", 6.0}, {"of_calibrated_peak", 1.2}};
    bf16.trial(t);
  }
  CHECK(contains(render_latest(bf16).markdown, "bf16 instructions (AVX512-BF16, AMX) can pass 100 % of them."));

  ReportFixture without("no_utilisation.sqlite");
  without.campaign("c1");
  for (int r = 0; r < 3; ++r) without.trial(train_trial("s", "ddp", 2, r, 1000, 40, 500));
  CHECK_FALSE(contains(render_latest(without).markdown, "Model FLOPs utilisation"));
}

namespace {

// 30 of the 40 ms step in GEMMs (75 %) at 48 GFLOP/s against a 60 GFLOP/s calibrated peak (80 %).
nlohmann::json gemm_timed_mfu() {
  return {{"model_flops_per_token", 6e6},
          {"achieved_gflops", 6.0},
          {"calibrated_peak_gflops", 60.0},
          {"of_calibrated_peak", 0.1},
          {"dense_gemm",
           {{"ms_per_step", 30.0},
            {"flops_per_step", 7.2e8},
            {"share_of_step", 0.75},
            {"gflops", 48.0},
            {"of_calibrated_peak", 0.8}}}};
}

// The report of one configuration's three repeats whose results carry gemm_timed_mfu(), each
// changed by `adjust` (given the result and the repeat index).
std::string render_gemm_timed(const std::string& db, const std::function<void(nlohmann::json&, int)>& adjust) {
  ReportFixture f(db);
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial t = train_trial("s", "ddp", 2, r, 1000, 40, 500);
    t.result["mfu"] = gemm_timed_mfu();
    adjust(t.result, r);
    f.trial(t);
  }
  return render_latest(f).markdown;
}

}  // namespace

TEST_CASE("utilisation: what bounds MFU, where the engine timed its dense GEMMs") {
  const std::string md = render_gemm_timed("utilisation_gemm.sqlite", [](nlohmann::json&, int) {});
  REQUIRE(contains(md, "### What bounds it\n"));
  CHECK(contains(
      md, "| ddp | 2 | s | 40.00 ± 0.00 | 30.00 ± 0.00 | 75.0 ± 0.0 | 48.0 ± 0.0 | 80.0 ± 0.0 | 10.0 ± 0.0 | 3 |"));

  // Older engines timed no shape on its own: no column for it; their peak was the SGEMM probe.
  CHECK_FALSE(contains(md, "slowest shape"));
  CHECK(contains(md, "The calibrated peak is the engine's SGEMM measurement at launch"));
  CHECK(contains(md, "says the BLAS runs the model's shapes slower than the calibration's square product"));

  // A peak taken from the model's own shapes on their chosen library is described as such, in
  // both the utilisation section and the GEMM bound.
  const std::string peak_md = render_gemm_timed("utilisation_gemm_peak.sqlite", [](nlohmann::json& result, int) {
    result["mfu"]["calibrated_peak_source"] = "model_gemm_shapes";
    result["mfu"]["calibrated_peak_backend"] = "onednn";
  });
  CHECK(contains(peak_md, "the fastest any of the model's shapes ran on the library chosen for it"));
  CHECK(contains(peak_md, "run slower inside the step than the fastest of them ran at launch"));
  CHECK_FALSE(contains(peak_md, "The calibrated peak is the engine's SGEMM measurement at launch"));

  // Per shape: the one slowest inside the step (mean over the trials), against its library's
  // start-up speed. The first shape is faster on one trial and slower on the other two.
  const std::string with_shapes =
      render_gemm_timed("utilisation_gemm_shapes.sqlite", [](nlohmann::json& result, int r) {
        result["environment"]["gemm_backends"] = {{{"shape", "512×512×512 (A·Bᵀ)"},
                                                   {"backend", "onednn"},
                                                   {"mkl_gflops", 150.0},
                                                   {"onednn_gflops", 200.0},
                                                   {"step_ms", 1.0},
                                                   {"step_gflops", r == 0 ? 184.0 : 160.0}},
                                                  {{"shape", "512×2048×512 (A·B)"},
                                                   {"backend", "mkl"},
                                                   {"mkl_gflops", 180.0},
                                                   {"onednn_gflops", 170.0},
                                                   {"step_ms", 1.0},
                                                   {"step_gflops", 170.0}}};
      });
  CHECK(contains(with_shapes, "| slowest shape in the step: GFLOP/s |"));
  CHECK(contains(with_shapes, "| 10.0 ± 0.0 | 512×512×512 (A·Bᵀ), onednn: 168 (84 % of start-up) | 3 |"));

  // Results without the GEMM timing (PyTorch peers, bf16 under autocast, older engines): no table.
  ReportFixture without("utilisation_no_gemm.sqlite");
  without.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial t = train_trial("s", "ddp", 2, r, 1000, 40, 500);
    t.result["mfu"] = {{"model_flops_per_token", 6e6}, {"achieved_gflops", 6.0}, {"of_calibrated_peak", 0.1}};
    without.trial(t);
  }
  const std::string plain = render_latest(without).markdown;
  CHECK(contains(plain, "## Model FLOPs utilisation\n"));
  CHECK_FALSE(contains(plain, "What bounds it"));
}

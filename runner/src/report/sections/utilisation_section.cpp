#include "report/sections/utilisation_section.h"

#include <fmt/format.h>

#include <map>

#include "json_fields.h"
#include "report/model/machine_context.h"
#include "report/render/cells.h"
#include "report/render/markdown_table.h"
#include "stats.h"

namespace mt {
namespace {

// A ratio metric in percent, "12.3 ± 0.4" (mean ± sample std of the per-trial shares); "-" when absent.
std::string share_cell(const Group& g, const std::string& metric) {
  std::vector<double> percents;
  for (double v : g.sample(metric).values) percents.push_back(100 * v);
  if (percents.empty()) return "-";
  return mean_std_cell(summarize(percents), 1);
}

std::string mean_std(const Group& g, const std::string& metric, int decimals) {
  const auto values = g.sample(metric).values;
  return values.empty() ? "-" : mean_std_cell(summarize(values), decimals);
}

// The dense-layer product shape that ran slowest inside the step (environment.gemm_backends'
// step_gflops, mean over the group's trials), its library, and its speed there against what the
// same library read for it at start-up: "512×512×512 (A·Bᵀ), onednn: 178 (81 % of start-up)".
// "" where the results do not time GEMMs per shape (older engines).
std::string slowest_shape_cell(const Group& g) {
  struct Speeds {
    std::string backend;
    double in_step = 0, at_start = 0;
    int n = 0;
  };
  std::map<std::string, Speeds> by_shape;
  for (const ReportTrial* t : g.succeeded) {
    const auto env = trial_environment(*t);
    const auto it = env.find("gemm_backends");
    if (it == env.end() || !it->is_array()) continue;
    for (const auto& shape : *it) {
      if (!shape.is_object() || !shape.contains("step_gflops") || !shape["step_gflops"].is_number()) continue;
      Speeds& s = by_shape[text_field(shape, "shape", "?")];
      s.backend = text_field(shape, "backend", "?");
      s.in_step += shape["step_gflops"].get<double>();
      s.at_start += number_field(shape, (s.backend + "_gflops").c_str()).value_or(0.0);
      ++s.n;
    }
  }
  const std::pair<const std::string, Speeds>* slowest = nullptr;
  for (const auto& entry : by_shape)
    if (!slowest || entry.second.in_step / entry.second.n < slowest->second.in_step / slowest->second.n)
      slowest = &entry;
  if (!slowest) return "";
  const Speeds& s = slowest->second;
  std::string text = fmt::format("{}, {}: {:.0f}", slowest->first, s.backend, s.in_step / s.n);
  if (s.at_start > 0) text += fmt::format(" ({:.0f} % of start-up)", 100 * s.in_step / s.at_start);
  return text;
}

// Where the engine timed its dense layers' GEMMs (mfu.dense_gemm): their share of the step and
// their speed against the calibrated peak, the two factors of MFU. Empty when no result has them.
std::string render_gemm_bound(const std::vector<const Group*>& training, bool peak_of_shapes) {
  std::vector<const Group*> timed;   // the groups whose GEMMs the engine timed
  std::vector<std::string> slowest;  // their slowest shapes ("" where not timed per shape)
  bool per_shape = false;
  for (const Group* g : training) {
    if (g->sample("mfu.dense_gemm.share_of_step").values.empty()) continue;
    timed.push_back(g);
    slowest.push_back(slowest_shape_cell(*g));
    per_shape = per_shape || !slowest.back().empty();
  }
  if (timed.empty()) return "";
  std::vector<Column> columns = {{"strategy"},
                                 {"ranks", Align::Right},
                                 {"configuration"},
                                 {"step ms", Align::Right},
                                 {"dense GEMMs ms", Align::Right},
                                 {"GEMMs' share of step %", Align::Right},
                                 {"GEMM GFLOP/s", Align::Right},
                                 {"GEMMs of calibrated peak %", Align::Right},
                                 {"MFU of calibrated peak %", Align::Right}};
  if (per_shape) columns.push_back({"slowest shape in the step: GFLOP/s"});
  columns.push_back({"n", Align::Right});
  MarkdownTable table(columns);
  for (size_t i = 0; i < timed.size(); ++i) {
    const Group* g = timed[i];
    std::vector<std::string> row = {g->strategy,
                                    std::to_string(g->ranks),
                                    g->label(),
                                    mean_std(*g, "step_time_ms", 2),
                                    mean_std(*g, "mfu.dense_gemm.ms_per_step", 2),
                                    share_cell(*g, "mfu.dense_gemm.share_of_step"),
                                    mean_std(*g, "mfu.dense_gemm.gflops", 1),
                                    share_cell(*g, "mfu.dense_gemm.of_calibrated_peak"),
                                    share_cell(*g, "mfu.of_calibrated_peak")};
    if (per_shape) row.push_back(slowest[i].empty() ? "-" : slowest[i]);
    row.push_back(g->n_text());
    table.add_row(row);
  }
  return fmt::format(
      "### What bounds it\n\n{}\nThe engine times every GEMM of its dense layers (forward and both gradients, "
      "in fp32 on the CPU) and counts its FLOPs: their time per step (the slowest rank's mean), that time's share "
      "of the step, and their speed for the whole job against the calibrated peak. MFU of the calibrated peak ≈ "
      "share × GEMMs' fraction of the peak × model FLOPs ÷ GEMM FLOPs (that last factor, a little above 1, adds "
      "attention's products, which the attention kernel runs). A GEMM fraction well below 100 % says {}; a low "
      "share says the rest of the step (attention, cross-entropy, layer norms, AdamW, exposed communication) takes "
      "the time.{}\n\n",
      table.render(),
      peak_of_shapes ? "the model's shapes run slower inside the step than the fastest of them ran at launch"
                     : "the BLAS runs the model's shapes slower than the calibration's square product",
      per_shape ? " The slowest shape is the product (of the forward and both gradients of every dense layer) "
                  "that ran slowest inside the step, on rank 0, with its library and its speed there against what "
                  "that library read for it at start-up, alone and in a warm cache (`environment.gemm_backends`)."
                : "");
}

}  // namespace

std::string render_utilisation_section(const std::vector<const Group*>& training) {
  MarkdownTable table({{"strategy"},
                       {"ranks", Align::Right},
                       {"configuration"},
                       {"tokens/s", Align::Right},
                       {"model MFLOP/token", Align::Right},
                       {"achieved GFLOP/s", Align::Right},
                       {"calibrated peak GFLOP/s", Align::Right},
                       {"MFU of calibrated peak %", Align::Right},
                       {"MFU of vector peak %", Align::Right},
                       {"n", Align::Right}});
  int rows = 0;
  bool below_fp32 = false;      // a configuration computing in a narrower type than the peaks count
  bool measured_clock = false;  // a launch that measured its cores' clock (older results did not)
  bool peak_of_shapes = false;  // a calibrated peak from the model's own GEMM shapes (older: the SGEMM probe)
  for (const Group* g : training) {
    const auto per_token = g->sample("mfu.model_flops_per_token").values;
    if (per_token.empty()) continue;
    const std::string precision = g->result_text("precision");
    below_fp32 = below_fp32 || (!precision.empty() && precision != "fp32");
    measured_clock = measured_clock || g->result_text("mfu.vector_peak_clock").find("measured") != std::string::npos;
    peak_of_shapes = peak_of_shapes || g->result_text("mfu.calibrated_peak_source") == "model_gemm_shapes";
    table.add_row({g->strategy, std::to_string(g->ranks), g->label(),
                   mean_std_cell(summarize(g->sample("tokens_per_sec").values), 0), fixed(mean(per_token) / 1e6, 1),
                   mean_std_cell(summarize(g->sample("mfu.achieved_gflops").values), 2),
                   mean_std_cell(summarize(g->sample("mfu.calibrated_peak_gflops").values), 1),
                   share_cell(*g, "mfu.of_calibrated_peak"), share_cell(*g, "mfu.of_vector_peak"), g->n_text()});
    ++rows;
  }
  if (rows == 0) return "";
  return fmt::format(
      "## Model FLOPs utilisation\n\n{}\nModel FLOPs per token = 6·N + 12·L·d·T (N the parameters that multiply: all "
      "but the position table; L layers, d the model width, T the sequence length), as llm.c, nanoGPT and the PaLM "
      "paper count them, without recomputation. Achieved = that × tokens/s. The calibrated peak is {}; the vector "
      "peak is the CPU's fp32 FLOPs per cycle × its clock{} × the cores used. Cells are mean ± sample std over the n "
      "repeats.{}\n\n{}",
      table.render(),
      peak_of_shapes
          ? "measured at launch: where the engine chose a library for each of the dense layers' GEMM shapes (fp32 on "
            "the CPU; `mfu.calibrated_peak_source` is `model_gemm_shapes`), the fastest any of the model's shapes ran "
            "on the library chosen for it, on one rank's threads, × ranks; elsewhere the engine's SGEMM measurement "
            "(GFLOP/s per thread) × threads × ranks. Either way, what the GEMM library reaches on this machine now"
          : "the engine's SGEMM measurement at launch (GFLOP/s per thread) × threads × ranks: what the BLAS reaches "
            "on this machine now",
      measured_clock ? " (as measured at launch, `mfu.vector_peak_clock_mhz`: VMs report their base clock, which "
                       "boosting cores pass)"
                     : "",
      below_fp32 ? " Both peaks are fp32's: a bf16 run whose GEMMs use the CPU's bf16 instructions (AVX512-BF16, AMX) "
                   "can pass 100 % of them."
                 : "",
      render_gemm_bound(training, peak_of_shapes));
}

}  // namespace mt

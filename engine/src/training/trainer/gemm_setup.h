// The GEMM backend of every dense-layer product a training run will execute (gemm_backend.h),
// decided before the first step: rank 0 measures each shape (or reads what it measured before on
// this CPU at this thread count), every rank takes rank 0's answer so that all compute alike, and
// --gemm-backend mkl|onednn pins one backend instead.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/comm/control_channel.h"
#include "training/model/gemm_tally.h"
#include "training/trainer/config.h"

namespace mt {

// Sets the table dense layers consult; leaves it empty (ATen's own linear) where the model's GEMMs
// are not fp32 on the CPU (a GPU run, bf16 autocast).
void choose_gemm_backends(const TrainConfig& config, ControlChannel& control, int threads, bool fp32_cpu_gemms);

// The table as the result records it: per shape, the backend that ran and the speeds measured
// at start-up, and with `per_step` (gemm_tally_by_shape's figures per measured step, in the
// table's order) the time that shape took in a step and its speed there; empty where none was
// chosen.
nlohmann::json gemm_backends_json(const std::vector<GemmTally>& per_step = {});

// The table as a checkpoint records it (metadata.json's gemm_backends): per shape, the backend the
// state was computed with; null where none was chosen.
nlohmann::json gemm_backends_for_checkpoint();

// A resumed run computes as the run that wrote its checkpoint did, whatever this run measured:
// every shape `recorded` names (gemm_backends_for_checkpoint) takes the backend recorded there,
// unless --gemm-backend pinned one, which holds. Entries it cannot read are passed over. Returns the
// shapes whose backend still differs from the checkpoint's: where the resumed run cannot repeat
// the continuous one bit for bit.
std::vector<std::string> adopt_checkpoint_gemm_backends(const nlohmann::json& recorded);

// The GEMM peak a run's MFU is measured against where the table is set: the fastest any of the
// model's shapes ran at start-up on its chosen backend (GFLOP/s on one rank's threads), and that
// backend's name. nullopt where no table was set (GPU, bf16 autocast): the SGEMM probe serves.
struct GemmPeak {
  double gflops = 0;
  std::string backend;
};
std::optional<GemmPeak> chosen_gemm_peak();

// Which of ATen's entries reaches oneDNN on this CPU (gemm_backend.h's onednn_entry).
std::string gemm_onednn_entry();

}  // namespace mt

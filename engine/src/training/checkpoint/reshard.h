// Loading a checkpoint into a run of another layout (another strategy, another world size): each
// tensor this rank saves, and its optimizer moments, are assembled from exactly the slices the
// checkpoint's layout names (a rank reads what it keeps, never the whole model unless its own
// layout holds it). AdamW's step counts, the schedule, the train state and the data cursor are
// global and carry over exactly; a rank's random generator carries over from the same rank where
// that rank existed, and otherwise keeps the run's own seeding (said in the result).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "training/checkpoint/named_tensor.h"
#include "training/checkpoint/tensor_layout.h"

namespace mt {

struct ReshardTarget {
  int rank = 0;
  const CheckpointLayout* layout = nullptr;  // the resuming run's layout, every rank's pieces
  std::vector<NamedTensor> model_tensors;    // what this rank saves, with their shapes
  std::size_t optimizer_tensors = 0;         // the length of this rank's optimizer/steps
};

// This rank's tensors, named as its own checkpoints name them. Throws CheckpointError naming a
// parameter the two layouts do not share or a slice the checkpoint lacks.
std::map<std::string, torch::Tensor> load_resharded_state(const std::filesystem::path& step_dir,
                                                          const ReshardTarget& target);

}  // namespace mt

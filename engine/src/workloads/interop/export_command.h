// `mtengine export STEP_DIR OUT.safetensors`: the full model of a published checkpoint, whatever
// strategy and world size wrote it, as one safetensors file under nanoGPT's names with the model's
// configuration in its metadata; `--with-optimizer` adds the AdamW moments, named by parameter.
// One process, no MPI: every shard's SHA-256 is checked first (a streaming read), then each
// parameter is assembled from the slices the checkpoint's layout names and written at once, so
// no more than one parameter (and its moments) is held at a time. Exit 0, or 2 on unusable input.
#pragma once

#include <string>

namespace mt {

struct ExportConfig {
  std::string step_dir, output;
  bool with_optimizer = false;
};

int run_export_command(const ExportConfig& config);

}  // namespace mt

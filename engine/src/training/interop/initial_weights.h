// `train --init-from FILE.safetensors`: a model's starting weights from a file under nanoGPT's
// names (as `mtengine export` writes them, or as PyTorch code saves a nanoGPT-style model),
// checked against the configuration before anything is copied: every parameter present, no
// tensor the model lacks, shapes and dtypes equal, every value finite. The first problem is named.
// A file `export --with-optimizer` wrote is taken too: its weights start the model, and its AdamW
// moments are left unread (the optimizer of a new run starts from zero).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "core/comm/control_channel.h"
#include "training/model/gpt.h"

namespace mt {

struct InitialWeights {
  std::string path;
  std::string sha256;               // of the file: part of the run's configuration fingerprint
  std::size_t ignored_moments = 0;  // AdamW moment tensors in the file, not used
};

// Throws InputError naming the file and the first mismatch.
InitialWeights load_initial_weights(GptImpl& model, const std::filesystem::path& path);

// The same on every rank of a job, each reading its own host's copy, decided together (a
// collective): a file that one rank cannot use stops every rank as bad input, rank 0 naming that
// rank, its host and the problem, instead of leaving the others waiting in a collective; and ranks
// that read different bytes are refused: the strategies start every rank from rank 0's weights, so
// the run would quietly take whichever copy rank 0's host holds.
InitialWeights load_initial_weights_on_every_rank(GptImpl& model, const std::filesystem::path& path,
                                                  ControlChannel& control);

}  // namespace mt

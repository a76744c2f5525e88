#include "workloads/interop/tokens_command.h"

#include <cstdio>

#include "core/env/resources.h"
#include "core/job/input_error.h"
#include "core/job/output_file.h"
#include "training/data/synthetic.h"
#include "training/interop/safetensors.h"

namespace mt {

int run_tokens_command(const TokensConfig& c) {
  try {
    if (c.rank < 0 || c.rank >= c.world_size)
      throw InputError("--rank " + std::to_string(c.rank) + " is outside a world of " + std::to_string(c.world_size));
    if (const auto problem = output_file_problem("--output", c.output)) throw InputError(*problem);
    // Inputs and targets (int64), each built per micro-batch and then concatenated: four copies.
    const double bytes = 4.0 * 8.0 * static_cast<double>(c.grad_accum_steps) * static_cast<double>(c.batch_size) *
                         static_cast<double>(c.seq_length);
    if (const auto problem =
            host_memory_problem(bytes < 9.2e18 ? static_cast<int64_t>(bytes) : int64_t{9'200'000'000'000'000'000}, 1,
                                "tokens for this batch"))
      throw InputError(*problem + ": lower --batch-size, --seq-length or --grad-accum-steps");
    std::vector<torch::Tensor> inputs, targets;
    for (int64_t micro = 0; micro < c.grad_accum_steps; ++micro) {
      const auto batch = synthetic_batch(c.seed, c.step * c.grad_accum_steps + micro, c.rank, c.batch_size,
                                         c.seq_length, c.vocab_size);
      inputs.push_back(batch.inputs);
      targets.push_back(batch.targets);
    }
    write_safetensors(c.output, {{"inputs", torch::cat(inputs)}, {"targets", torch::cat(targets)}},
                      {{"seed", std::to_string(c.seed)},
                       {"step", std::to_string(c.step)},
                       {"rank", std::to_string(c.rank)},
                       {"world_size", std::to_string(c.world_size)},
                       {"grad_accum_steps", std::to_string(c.grad_accum_steps)},
                       {"loss", "mean cross-entropy over all rows x positions of targets"}});
    return 0;
  } catch (const InputError& e) {
    std::fprintf(stderr, "mtengine tokens: %s\n", e.what());
    return 2;
  }
}

}  // namespace mt

#include "workloads/interop/export_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "core/job/input_error.h"
#include "core/job/output_file.h"
#include "core/job/workload.h"
#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/layout.h"
#include "training/checkpoint/logical_checkpoint.h"
#include "training/interop/nanogpt_names.h"
#include "training/interop/safetensors.h"
#include "training/trainer/checkpoint_state.h"

namespace mt {
namespace {

namespace fs = std::filesystem;

const char* prefix_of(StatePart part) {
  switch (part) {
    case StatePart::exp_avg: return kExpAvgPrefix;
    case StatePart::exp_avg_sq: return kExpAvgSqPrefix;
    default: return "";
  }
}

void export_checkpoint(const ExportConfig& config) {
  // Before the checkpoint is read and checked, which may take a while.
  if (const auto problem = output_file_problem("OUT", config.output)) throw InputError(*problem);
  // The step being read above all: renaming OUT over one of its shards would destroy it.
  if (const auto step = checkpoint_layout::enclosing_step_dir(output_target(config.output)))
    throw InputError(
        fmt::format("OUT '{}' lies inside checkpoint step '{}': a checkpoint is only read, never written into",
                    config.output, step->string()));
  LogicalCheckpoint checkpoint(config.step_dir);
  const CheckpointMetadata& metadata = checkpoint.metadata();
  check_files(checkpoint.dir(), metadata);  // every byte against its SHA-256 before anything is trusted
  TrainConfig settings;
  apply_checkpoint_settings(metadata, settings);
  const ModelConfig& model = settings.model;

  std::vector<StatePart> parts = {StatePart::weights};
  if (config.with_optimizer) parts.insert(parts.end(), {StatePart::exp_avg, StatePart::exp_avg_sq});
  std::vector<SafetensorsWriter::Declared> declared;
  for (const StatePart part : parts) {
    for (const auto& t : checkpoint.layout().parameters) {
      const auto name = nanogpt_name(t.name);
      if (!name) throw CheckpointError("'" + config.step_dir + "': parameter '" + t.name + "' is not part of the GPT");
      declared.push_back({prefix_of(part) + *name, torch::kFloat, t.shape});
    }
  }
  auto file_metadata = nanogpt_config_metadata(model);
  file_metadata["step"] = std::to_string(metadata.global_step);
  file_metadata["tokens_seen"] = std::to_string(metadata.tokens_seen);
  file_metadata["strategy"] = metadata.identity.strategy;
  file_metadata["world_size"] = std::to_string(metadata.identity.world_size);
  file_metadata["precision"] = metadata.identity.precision;
  file_metadata["config_fingerprint"] = metadata.identity.fingerprint;
  if (config.with_optimizer) file_metadata["optimizer_steps"] = std::to_string(checkpoint.optimizer_steps());

  SafetensorsWriter writer(config.output, std::move(declared), file_metadata);
  for (const StatePart part : parts)
    for (const auto& t : checkpoint.layout().parameters) writer.write(checkpoint.assemble(t, part));
  writer.finish();
  std::printf("exported step %lld (%s, %d rank(s)) to %s: %zu parameters%s\n",
              static_cast<long long>(metadata.global_step), metadata.identity.strategy.c_str(),
              metadata.identity.world_size, config.output.c_str(), checkpoint.layout().parameters.size(),
              config.with_optimizer ? " with AdamW moments" : "");
}

}  // namespace

int run_export_command(const ExportConfig& config) {
  try {
    export_checkpoint(config);
    return 0;
  } catch (const InputError& e) {
    std::fprintf(stderr, "mtengine export: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mtengine export: %s\n", e.what());
    return 1;
  }
}

}  // namespace mt

#include "workloads/interop/export_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "core/job/input_error.h"
#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/layout.h"
#include "training/checkpoint/metadata.h"
#include "training/checkpoint/shard_file.h"
#include "training/interop/nanogpt_names.h"
#include "training/interop/safetensors.h"

namespace mt {
namespace {

namespace fs = std::filesystem;

ModelConfig model_config_of(const nlohmann::json& settings) {
  const auto& m = settings.at("model");
  ModelConfig c;
  c.vocab_size = m.at("vocab_size");
  c.d_model = m.at("d_model");
  c.n_heads = m.at("n_heads");
  c.n_layers = m.at("n_layers");
  c.seq_length = m.at("seq_length");
  c.dropout = m.at("dropout");
  return c;
}

// The tensors a parameter is assembled from: the model's own slices, or the optimizer's moments
// at the same elements.
enum class Part { weights, exp_avg, exp_avg_sq };

const char* prefix_of(Part part) {
  switch (part) {
    case Part::exp_avg: return "optimizer.exp_avg.";
    case Part::exp_avg_sq: return "optimizer.exp_avg_sq.";
    default: return "";
  }
}

class CheckpointReader {
 public:
  CheckpointReader(fs::path step_dir) : dir_(std::move(step_dir)) {}

  torch::Tensor assemble(const LogicalTensor& t, Part part) {
    auto out = torch::empty({t.numel()}, torch::TensorOptions().dtype(torch::kFloat));
    for (const auto& piece : t.pieces) {
      auto& shard = reader(piece.rank);
      const auto values = part == Part::weights ? shard.read_elements(piece.tensor, piece.offset, piece.numel)
                                                : shard.read_elements(part == Part::exp_avg ? "optimizer/exp_avg"
                                                                                            : "optimizer/exp_avg_sq",
                                                                      piece.moment_offset, piece.numel);
      if (values.scalar_type() != torch::kFloat)
        throw CheckpointError(fmt::format("'{}': {} of rank {} is not fp32", dir_.string(), piece.tensor, piece.rank));
      out.narrow(0, piece.at, piece.numel).copy_(values);
    }
    return out.view(t.shape);
  }

  // AdamW's step count (what its bias correction uses), as rank 0 saved it.
  int64_t optimizer_steps() {
    auto& shard = reader(0);
    for (const auto& e : shard.entries())
      if (e.name == "optimizer/steps") {
        const auto steps = shard.read_elements(e.name, 0, static_cast<int64_t>(e.bytes / sizeof(int64_t)));
        return steps.numel() == 0 ? 0 : steps.max().item<int64_t>();
      }
    throw CheckpointError("'" + dir_.string() + "': rank 0's shard lacks optimizer/steps");
  }

 private:
  ShardReader& reader(int rank) {
    auto it = readers_.find(rank);
    if (it == readers_.end())
      it = readers_.emplace(rank, ShardReader(dir_ / checkpoint_layout::shard_name(rank))).first;
    return it->second;
  }
  fs::path dir_;
  std::map<int, ShardReader> readers_;
};

void export_checkpoint(const ExportConfig& config) {
  const fs::path dir = config.step_dir;
  if (!fs::is_directory(dir)) throw InputError("'" + dir.string() + "' is not a checkpoint step directory");
  if (!checkpoint_layout::is_ready(dir))
    throw InputError("'" + dir.string() + "' is not a published checkpoint step (no READY): it may be incomplete");
  const CheckpointMetadata metadata = read_metadata(dir);
  if (!metadata.layout || metadata.settings.is_null())
    throw InputError("'" + dir.string() +
                     "' does not record where its parameters live (written by an older mtengine): resume from it "
                     "with this version and save again, then export that step");
  check_files(dir, metadata);  // every byte against its SHA-256 before anything is trusted
  const ModelConfig model = model_config_of(metadata.settings);

  std::vector<Part> parts = {Part::weights};
  if (config.with_optimizer) parts.insert(parts.end(), {Part::exp_avg, Part::exp_avg_sq});
  std::vector<SafetensorsWriter::Declared> declared;
  for (const Part part : parts) {
    for (const auto& t : metadata.layout->parameters) {
      const auto name = nanogpt_name(t.name);
      if (!name) throw CheckpointError("'" + dir.string() + "': parameter '" + t.name + "' is not part of the GPT");
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

  CheckpointReader reader(dir);
  if (config.with_optimizer) file_metadata["optimizer_steps"] = std::to_string(reader.optimizer_steps());
  SafetensorsWriter writer(config.output, std::move(declared), file_metadata);
  for (const Part part : parts)
    for (const auto& t : metadata.layout->parameters) writer.write(reader.assemble(t, part));
  writer.finish();
  std::printf("exported step %lld (%s, %d rank(s)) to %s: %zu parameters%s\n",
              static_cast<long long>(metadata.global_step), metadata.identity.strategy.c_str(),
              metadata.identity.world_size, config.output.c_str(), metadata.layout->parameters.size(),
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
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "mtengine export: '%s' has damaged settings: %s\n", config.step_dir.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mtengine export: %s\n", e.what());
    return 1;
  }
}

}  // namespace mt

#include "training/trainer/checkpoint_state.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ATen/CPUGeneratorImpl.h>

#include <nlohmann/json.hpp>

#include "training/checkpoint/checkpoint_error.h"
#include "training/model/model_config_json.h"
#include "training/trainer/setting_options.h"

namespace mt {
namespace {

torch::Tensor scalar(int64_t value) { return torch::tensor({value}, torch::TensorOptions().dtype(torch::kLong)); }

const torch::Tensor& required(const std::map<std::string, torch::Tensor>& tensors, const std::string& name) {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw CheckpointError("checkpoint shard lacks " + name);
  return it->second;
}

}  // namespace

FaultPlan fault_plan(const TrainConfig& config) {
  std::vector<Fault> faults;
  for (const auto& spec : config.faults) faults.push_back(parse_fault(spec));
  return FaultPlan(std::move(faults));
}

CheckpointSettings checkpoint_settings(const TrainConfig& config) {
  return {config.checkpoint_dir, config.save_every, config.keep_last, config.resume, config.async_save};
}

nlohmann::json checkpoint_settings_json(const TrainConfig& c, const LrSchedule& schedule,
                                        const std::string& initial_weights_sha256) {
  nlohmann::json math = {{"model", model_config_json(c.model)},
                         {"batch_size", c.batch_size},
                         {"grad_accum_steps", c.grad_accum_steps},
                         {"gradient_sync_mode", c.gradient_sync_mode},
                         {"grad_reduce_dtype", c.grad_reduce_dtype},
                         {"learning_rate", c.learning_rate},
                         {"lr_schedule",
                          {{"kind", schedule.kind},
                           {"warmup_steps", schedule.warmup_steps},
                           {"decay_steps", schedule.decay_steps},
                           {"min_learning_rate", schedule.min}}},
                         {"max_grad_norm", c.max_grad_norm},
                         {"seed", c.seed},
                         {"keep_denormals", c.keep_denormals}};
  // Only when set, so checkpoints of runs without it keep their fingerprints.
  if (!initial_weights_sha256.empty()) math["initial_weights_sha256"] = initial_weights_sha256;
  return math;
}

CheckpointIdentity checkpoint_identity(const TrainConfig& c, int world_size, const LrSchedule& schedule,
                                       const std::string& initial_weights_sha256) {
  const nlohmann::json settings = checkpoint_settings_json(c, schedule, initial_weights_sha256);
  return {c.strategy, world_size, c.precision, fingerprint_of(settings), settings, fingerprinted_setting_options()};
}

void apply_checkpoint_settings(const CheckpointMetadata& metadata, TrainConfig& c) {
  const auto& s = metadata.settings;
  if (s.is_null()) throw CheckpointError("the checkpoint does not record its settings (written by an older mtengine)");
  try {
    const auto& m = s.at("model");
    c.model = {m.at("vocab_size"), m.at("d_model"),    m.at("n_heads"),
               m.at("n_layers"),   m.at("seq_length"), m.at("dropout")};
    c.batch_size = s.at("batch_size");
    c.grad_accum_steps = s.at("grad_accum_steps");
    c.gradient_sync_mode = s.at("gradient_sync_mode");
    c.grad_reduce_dtype = s.at("grad_reduce_dtype");
    c.learning_rate = s.at("learning_rate");
    const auto& schedule = s.at("lr_schedule");
    c.lr_scheduler = schedule.at("kind");
    c.lr_warmup_steps = schedule.at("warmup_steps");
    c.lr_decay_steps = schedule.at("decay_steps");
    c.min_learning_rate = schedule.at("min_learning_rate");
    c.max_grad_norm = s.at("max_grad_norm");
    c.seed = s.at("seed");
    c.keep_denormals = s.at("keep_denormals");
    c.precision = metadata.identity.precision;
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(std::string("the checkpoint's settings are damaged: ") + e.what());
  }
}

CheckpointLayout checkpoint_layout_of(GptImpl& model, Strategy& strategy, int world_size) {
  std::vector<ParameterShape> shapes;
  for (const auto& item : model.named_parameters())
    shapes.push_back({item.key(), std::vector<int64_t>(item.value().sizes().begin(), item.value().sizes().end())});
  std::vector<std::pair<std::string, int64_t>> saved;
  for (const auto& t : strategy.model_state()) saved.emplace_back(t.name, t.tensor.numel());
  return make_checkpoint_layout(shapes, strategy.parameter_placements(model.parameters()), saved, world_size);
}

std::vector<NamedTensor> rank_checkpoint(Strategy& strategy, const FusedAdamW& optimizer, int rank, int world_size,
                                         const TrainPosition& position, double next_learning_rate,
                                         int64_t micro_batches_per_step, const torch::Device& device) {
  std::vector<NamedTensor> out = strategy.model_state();
  // A replicated optimizer is the same on every rank: each rank saves 1/N of it.
  for (auto& t : strategy.sharded_optimizer() ? optimizer.state() : optimizer.state_slice(rank, world_size))
    out.push_back(std::move(t));
  out.push_back({"scheduler/step", scalar(position.global_step)});
  out.push_back(
      {"scheduler/learning_rate", torch::tensor({next_learning_rate}, torch::TensorOptions().dtype(torch::kDouble))});
  out.push_back({"train_state/global_step", scalar(position.global_step)});
  out.push_back({"train_state/micro_step", scalar(0)});  // saves happen between optimizer steps
  out.push_back({"train_state/tokens_seen", scalar(position.tokens_seen)});
  out.push_back({"data/next_micro_batch", scalar(position.global_step * micro_batches_per_step)});
  out.push_back({"rng/cpu", at::detail::getDefaultCPUGenerator().get_state()});
  if (!device.is_cpu())
    out.push_back({"rng/" + device.str(), at::globalContext().defaultGenerator(device).get_state()});
  return out;
}

std::string restore_problem(const std::map<std::string, torch::Tensor>& tensors, Strategy& strategy,
                            int64_t metadata_step) {
  for (auto& target : strategy.model_state()) {
    auto it = tensors.find(target.name);
    if (it == tensors.end()) return "checkpoint shard lacks " + target.name;
    const auto& saved = it->second;
    if (saved.sizes() != target.tensor.sizes())
      return fmt::format("checkpoint's {} has shape {}, this model's is {}", target.name, fmt::join(saved.sizes(), "x"),
                         fmt::join(target.tensor.sizes(), "x"));
    if (saved.scalar_type() != target.tensor.scalar_type())
      return fmt::format("checkpoint's {} is {}, this model's is {}", target.name, c10::toString(saved.scalar_type()),
                         c10::toString(target.tensor.scalar_type()));
  }
  auto rng = tensors.find("rng/cpu");
  const auto generator_state = at::detail::getDefaultCPUGenerator().get_state();
  if (rng != tensors.end() &&
      (rng->second.scalar_type() != generator_state.scalar_type() || rng->second.numel() != generator_state.numel()))
    return fmt::format("checkpoint's rng/cpu holds {} {} values, not a CPU generator's state ({} bytes)",
                       rng->second.numel(), c10::toString(rng->second.scalar_type()), generator_state.numel());
  if (rng != tensors.end()) {
    // The right size can still hold noise; a scratch generator takes it first, so the job's own
    // is never left half-set and the user sees the field, not a c10 stack trace.
    try {
      at::make_generator<at::CPUGeneratorImpl>().set_state(rng->second);
    } catch (const c10::Error& e) {
      const std::string why = e.what_without_backtrace();
      return fmt::format("checkpoint's rng/cpu is not a CPU generator's state ({})", why.substr(0, why.find('\n')));
    }
  }
  auto step = tensors.find("train_state/global_step");
  if (step == tensors.end()) return "checkpoint shard lacks train_state/global_step";
  if (step->second.numel() != 1 || step->second.scalar_type() != torch::kLong)
    return "checkpoint's train_state/global_step is not one integer";
  if (step->second.item<int64_t>() != metadata_step)
    return fmt::format("this rank's shard is at step {}, the checkpoint's metadata says {}",
                       step->second.item<int64_t>(), metadata_step);
  return "";
}

std::map<std::string, torch::Tensor> load_resume_point(Checkpointer& checkpointer, const ResumePoint& point,
                                                       GptImpl& model, Strategy& strategy,
                                                       std::size_t optimizer_tensors, int rank, int world_size) {
  if (!point.reshard) return checkpointer.load(point);
  const CheckpointLayout layout = checkpoint_layout_of(model, strategy, world_size);
  return checkpointer.load_resharded(point, {rank, &layout, strategy.model_state(), optimizer_tensors});
}

TrainPosition restore_rank(const std::map<std::string, torch::Tensor>& tensors, Strategy& strategy,
                           FusedAdamW& optimizer, Communicator& comm, const torch::Device& device) {
  {
    torch::NoGradGuard no_grad;
    for (auto& target : strategy.model_state()) {
      const auto& saved = required(tensors, target.name);
      if (saved.sizes() != target.tensor.sizes())
        throw CheckpointError("checkpoint's " + target.name + " does not fit this model");
      target.tensor.copy_(saved);
    }
  }
  strategy.after_model_state_loaded();
  if (strategy.sharded_optimizer()) {
    optimizer.load_state(tensors);
  } else {
    optimizer.load_state_slices(tensors, comm);
  }
  // The default generators are handed out as const references to shared handles; a copy of
  // the handle sets the state of the one generator behind it.
  at::Generator cpu_generator = at::detail::getDefaultCPUGenerator();
  cpu_generator.set_state(required(tensors, "rng/cpu"));
  if (!device.is_cpu()) {
    at::Generator device_generator = at::globalContext().defaultGenerator(device);
    device_generator.set_state(required(tensors, "rng/" + device.str()));
  }
  return {required(tensors, "train_state/global_step").item<int64_t>(),
          required(tensors, "train_state/tokens_seen").item<int64_t>()};
}

}  // namespace mt

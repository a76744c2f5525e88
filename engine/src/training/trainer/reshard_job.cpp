#include "training/trainer/reshard_job.h"

#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/checkpointer.h"
#include "training/checkpoint/layout.h"
#include "training/checkpoint/save_directory.h"
#include "training/model/gpt.h"
#include "training/optim/fused_adamw.h"
#include "training/optim/lr_schedule.h"
#include "training/strategy/strategy.h"
#include "training/trainer/checkpoint_state.h"
#include "training/trainer/trainer.h"

namespace mt {

ReshardReport reshard_on_this_rank(const ReshardRequest& request, ProcessGroup& group) {
  ControlChannel& control = group.control;
  Communicator& comm = group.collectives;
  // Named as reshard's own argument: the checks resume_point() makes would speak of --resume.
  if (!std::filesystem::is_directory(request.source))
    throw CheckpointError("SRC '" + request.source + "': no such directory");
  if (!checkpoint_layout::is_ready(request.source))
    throw CheckpointError("SRC '" + request.source + "' is not a published checkpoint (no READY)");
  // The source's settings make the run whose checkpoint this becomes: its fingerprint is the source's.
  const CheckpointMetadata source = read_metadata(request.source);
  rank0_decides(control,
                [&] { return reshard_destination_problem(request.destination, source.global_step, request.source); });
  TrainConfig config;
  apply_checkpoint_settings(source, config);
  config.strategy = request.strategy;
  config.bucket_cap_mb = request.bucket_cap_mb;
  config.steps = std::max<int64_t>(1, source.global_step);
  const std::string initial_weights = source.settings.value("initial_weights_sha256", "");

  Gpt model = make_gpt(config.model, config.seed);  // its weights are replaced by the checkpoint's
  const int64_t parameter_bytes = parameter_count(*model) * static_cast<int64_t>(sizeof(float));
  auto strategy = make_strategy(config, comm, resolved_sync_mode(config), parameter_bytes);
  strategy->prepare(*model);
  const auto optimized = strategy->optimizer_parameters();
  FusedAdamW optimizer(optimized, FusedAdamWOptions{});
  const LrSchedule schedule = lr_schedule_of(config);

  const FaultPlan no_faults;
  Checkpointer checkpointer({request.destination, 1, 0, request.source}, control,
                            checkpoint_identity(config, comm.world_size(), schedule, initial_weights), no_faults);
  if (control.rank() == 0)
    checkpointer.describe_contents(checkpoint_settings_json(config, schedule, initial_weights),
                                   checkpoint_layout_of(*model, *strategy, comm.world_size()),
                                   source.gemm_backends);  // the state was computed with them: a resume takes them
  const auto point = checkpointer.resume_point();
  const auto tensors =
      load_resume_point(checkpointer, *point, *model, *strategy, optimized.size(), comm.rank(), comm.world_size());
  all_ranks_or_none(control, restore_problem(tensors, *strategy, point->metadata.global_step));
  const TrainPosition position = restore_rank(tensors, *strategy, optimizer, comm, torch::Device(torch::kCPU));
  const double next_learning_rate = tensors.at("scheduler/learning_rate").item<double>();
  const SaveStats saved =
      checkpointer.save(position.global_step, position.tokens_seen,
                        rank_checkpoint(*strategy, optimizer, comm.rank(), comm.world_size(), position,
                                        next_learning_rate, config.grad_accum_steps, torch::Device(torch::kCPU)));
  return {position.global_step, saved.bytes, source.identity.strategy, source.identity.world_size};
}

}  // namespace mt

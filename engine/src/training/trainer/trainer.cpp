#include "training/trainer/trainer.h"

#include <ATen/autocast_mode.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "training/checkpoint/checkpointer.h"
#include "training/data/synthetic.h"
#include "core/env/float_mode.h"
#include "core/env/resources.h"
#include "training/model/activation_checkpoint.h"
#include "training/model/bf16_emulation.h"
#include "training/model/gemm_backend.h"
#include "training/model/gpt.h"
#include "training/profile/profiler.h"
#include "training/strategy/strategy.h"
#include "training/trainer/checkpoint_state.h"
#include "training/trainer/gemm_setup.h"
#include "training/interop/initial_weights.h"
#include "training/interop/model_file.h"
#include "training/device/device_runtime.h"
#include "training/faults/faults.h"
#include "training/optim/fused_adamw.h"
#include "training/optim/grad_norm.h"
#include "training/optim/lr_schedule.h"
#include "core/job/input_error.h"
#include "core/job/memory_check.h"
#include "training/trainer/memory_estimate.h"
#include "training/trainer/progress_file.h"

namespace mt {
namespace {

CollectiveCounts per_step(const CollectiveCounts& before, const CollectiveCounts& after, long steps) {
  CollectiveCounts d = after - before;
  for (auto kind : {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                    CollectiveKind::broadcast, CollectiveKind::all_to_all})
    d[kind] /= steps;
  return d;
}

// bf16 compute with fp32 master weights: autocast runs matmuls in bf16 while parameters,
// gradients and optimizer state stay fp32. Under bf16 emulation the model rounds its GEMM
// operands itself and autocast stays off.
torch::Tensor forward_loss(Gpt& model, const torch::Tensor& inputs, const torch::Tensor& targets, bool autocast_bf16) {
  if (!autocast_bf16) return model->loss(inputs, targets);
  const auto device = inputs.device().type();
  at::autocast::set_autocast_enabled(device, true);
  at::autocast::set_autocast_dtype(device, at::kBFloat16);
  auto loss = model->loss(inputs, targets).to(torch::kFloat);
  at::autocast::set_autocast_enabled(device, false);
  at::autocast::clear_cache();
  return loss;
}

// Sets the denormal mode in every thread of the intra-op pool (threads started earlier keep the
// mode they were created with) and reports whether all of them now have it.
bool apply_denormal_mode_to_pool(bool flush, int threads) {
  set_flush_denormal(flush);
  std::atomic<int> agreeing{0};
  at::parallel_for(0, threads, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      set_flush_denormal(flush);
      const FloatMode mode = current_float_mode();
      if ((mode.flush_to_zero && mode.denormals_are_zero) == flush) ++agreeing;
    }
  });
  const FloatMode mine = current_float_mode();
  return agreeing == threads && (mine.flush_to_zero && mine.denormals_are_zero) == flush;
}

// The step's gradients as the optimizer is about to see them, gathered (collective) and written
// by rank 0 under nanoGPT's names, for comparison with a reference implementation.
void write_gradients(const TrainConfig& config, GptImpl& model, Strategy& strategy, int rank, int64_t step,
                     double mean_loss) {
  const auto gradients = strategy.full_gradients();
  if (rank != 0) return;
  write_model_file(config.gradients_out, config.model, model.named_parameters().keys(), gradients,
                   {{"loss", fmt::format("{:.17g}", mean_loss)}, {"step", std::to_string(step)}});
}

// The job's small-message latency floor, measured with every multi-rank launch: the median of
// 100 scalar all-reduces on the host control channel (8 bytes; not training traffic), which on two
// ranks is a ping-pong. A calibration beside the SGEMM and memory probes: a slow or busy
// interconnect shows here before it shows in a step time.
double scalar_allreduce_latency_us(ControlChannel& control) {
  std::vector<double> us;
  control.barrier();
  for (int i = 0; i < 100; ++i) {
    const auto start = std::chrono::steady_clock::now();
    control.sum(1.0);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(us.begin(), us.begin() + 50, us.end());
  return control.max(us[50]);  // the slowest rank's median: what a step would wait for
}

void record_save(RankRun& run, const SaveStats& saved) {
  run.checkpoint_saves.push_back({saved.step, saved.ms, saved.bytes, saved.async, saved.background_ms, saved.total_ms});
}

}  // namespace

std::unique_ptr<Strategy> make_strategy(const TrainConfig& config, Communicator& comm, SyncMode sync_mode,
                                        int64_t parameter_bytes) {
  StrategyOptions options;
  options.comm = &comm;
  options.sync_mode = sync_mode;
  options.bucket_cap_mb = resolved_bucket_cap_mb(config, parameter_bytes);
  options.first_bucket_cap_mb = config.first_bucket_cap_mb;
  options.grad_reduce_type = config.grad_reduce_dtype == "bf16" ? ElementType::bf16 : ElementType::f32;
  options.backward_prefetch = config.backward_prefetch;
  return find_strategy(config.strategy)->make(options);
}

SyncMode resolved_sync_mode(const TrainConfig& config) {
  if (config.gradient_sync_mode == "every") return SyncMode::every;
  if (config.gradient_sync_mode == "last") return SyncMode::last;
  return find_strategy(config.strategy)->auto_sync_mode;
}

LrSchedule lr_schedule_of(const TrainConfig& config) {
  const int64_t total_steps = config.warmup_steps + config.steps;
  return {config.lr_scheduler, config.learning_rate, config.min_learning_rate, config.lr_warmup_steps,
          config.lr_decay_steps > 0 ? config.lr_decay_steps : total_steps - config.lr_warmup_steps};
}

void train_on_this_rank(const TrainConfig& config, ProcessGroup& group, RankRun& run) {
  ControlChannel& control = group.control;
  // A profiled run sees the same collectives, each also drawn in its trace.
  std::unique_ptr<Profiler> profiler;
  std::unique_ptr<Communicator> traced_collectives;
  if (!config.profile_dir.empty()) {
    profiler = std::make_unique<Profiler>(control.rank(), config.profile_dir);
    traced_collectives = profiler->traced(group.collectives);
  }
  Communicator& comm = traced_collectives ? *traced_collectives : group.collectives;
  at::set_num_threads(run.threads);
  set_blas_threads(run.threads);
  const bool flush = !config.keep_denormals;
  run.flush_denormal_all_threads = apply_denormal_mode_to_pool(flush, run.threads) && flush;
  const int rank = comm.rank();

  // The model is built in host memory on every rank, also for a GPU run (then moved).
  const TrainingMemory need = training_memory_lower_bound(config, comm.world_size());
  const double host_bytes = comm.device_memory() ? need.parameter_bytes : need.total();
  require_host_memory(control, /*device_memory=*/false, host_bytes, "train with this model and batch",
                      "lower --vocab-size, --d-model, --n-layers, --seq-length or --batch-size, or run fewer ranks "
                      "per host");
  auto runtime = make_device_runtime(comm.device_memory());
  if (profiler) runtime = profiler->traced(std::move(runtime));
  Gpt model = make_gpt(config.model, config.seed);
  if (!config.init_from.empty()) {
    const InitialWeights initial = load_initial_weights_on_every_rank(*model, config.init_from, control);
    run.initial_weights_path = initial.path;
    run.initial_weights_sha256 = initial.sha256;
    if (initial.ignored_moments > 0 && control.rank() == 0)
      std::fprintf(stderr,
                   "mtengine: --init-from '%s': took its weights; its %zu AdamW moment tensors are not used (the "
                   "optimizer starts from zero; --resume a checkpoint to continue with its optimizer)\n",
                   initial.path.c_str(), initial.ignored_moments);
  }
  model->to(runtime->device());
  model->train();
  run.parameters = parameter_count(*model);
  if (config.activation_checkpointing) model->set_block_runner(checkpointed_runner(model->block_runner()));

  const int64_t parameter_bytes = run.parameters * static_cast<int64_t>(sizeof(float));
  run.bucket_cap_mb = resolved_bucket_cap_mb(config, parameter_bytes);
  auto strategy = make_strategy(config, comm, run.sync_mode, parameter_bytes);
  strategy->prepare(*model);
  if (profiler) model->set_block_runner(profiler->traced_blocks(model->block_runner()));
  // Dropout masks must differ between ranks, like any independent data-parallel worker.
  torch::manual_seed(config.seed + 7919ULL * static_cast<uint64_t>(rank + 1));

  const auto optimized = strategy->optimizer_parameters();
  FusedAdamWOptions adamw;
  adamw.lr = config.learning_rate;
  FusedAdamW optimizer(optimized, adamw);
  const int64_t total_steps = config.warmup_steps + config.steps;
  const LrSchedule schedule = lr_schedule_of(config);

  const int micro_count = static_cast<int>(config.grad_accum_steps);
  const bool bf16 = config.precision == "bf16";
  // On a CPU without bf16 instructions, autocast's bf16 GEMMs crawl: emulate them instead.
  // MT_BF16_GEMM=emulated forces the emulation (to check it where both paths can run).
  run.bf16_gemm = !bf16 ? "" : runtime->is_gpu() || cpu_has_native_bf16() ? "native" : "emulated";
  if (const char* forced = std::getenv("MT_BF16_GEMM"); forced && bf16 && !runtime->is_gpu()) {
    if (std::string(forced) != "emulated" && std::string(forced) != "native")
      throw InputError(std::string("MT_BF16_GEMM is '") + forced + "': use emulated or native");
    run.bf16_gemm = forced;
  }
  set_bf16_emulation(run.bf16_gemm == "emulated");
  const bool autocast_bf16 = run.bf16_gemm == "native";
  choose_gemm_backends(config, control, run.threads, !runtime->is_gpu() && !autocast_bf16);

  const FaultPlan faults = fault_plan(config);
  if (auto problem = faults.check(comm.world_size())) throw InputError(*problem);
  Checkpointer checkpointer(checkpoint_settings(config), control,
                            checkpoint_identity(config, comm.world_size(), schedule, run.initial_weights_sha256),
                            faults);
  TrainPosition position;
  std::vector<std::string> gemm_unlike_checkpoint;  // shapes --gemm-backend runs on another backend
  const auto point = checkpointer.resume_point();
  checkpointer.check_save_directory(point);
  if (point) {
    const auto load_start = std::chrono::steady_clock::now();
    const auto tensors =
        load_resume_point(checkpointer, *point, *model, *strategy, optimized.size(), rank, comm.world_size());
    if (point->reshard) {
      run.resharded_from = {point->metadata.identity.strategy, point->metadata.identity.world_size};
      if (rank == 0)
        std::fprintf(stderr, "mtengine: resharding '%s' (%s x%d) for %s x%d\n", point->step_dir.c_str(),
                     point->metadata.identity.strategy.c_str(), point->metadata.identity.world_size,
                     config.strategy.c_str(), comm.world_size());
    }
    all_ranks_or_none(control, restore_problem(tensors, *strategy, point->metadata.global_step));
    position = restore_rank(tensors, *strategy, optimizer, comm, runtime->device());
    run.resumed_from_step = position.global_step;
    gemm_unlike_checkpoint = adopt_checkpoint_gemm_backends(point->metadata.gemm_backends);
    if (!gemm_unlike_checkpoint.empty() && rank == 0)
      std::fprintf(stderr,
                   "mtengine: --gemm-backend %s runs %zu shape(s) on another backend than the checkpoint was "
                   "computed with (first: %s): the resumed run will not repeat the continuous one bit for bit\n",
                   config.gemm_backend.c_str(), gemm_unlike_checkpoint.size(), gemm_unlike_checkpoint.front().c_str());
    run.checkpoint_load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count();
  }
  run.first_step = position.global_step;
  if (position.global_step >= total_steps) {
    run.nothing_to_train = fmt::format(
        "resumed from step {}, {} the run's end (--warmup-steps {} + --steps {} = step {}): nothing left to "
        "train, so no throughput, step time or loss was measured",
        position.global_step, position.global_step == total_steps ? "which is" : "past", config.warmup_steps,
        config.steps, total_steps);
    if (rank == 0) std::fprintf(stderr, "mtengine train: %s\n", run.nothing_to_train.c_str());
  }
  // After the resume: a resumed run records the backends it took from its checkpoint.
  if (checkpointer.saving() && rank == 0)
    checkpointer.describe_contents(checkpoint_settings_json(config, schedule, run.initial_weights_sha256),
                                   checkpoint_layout_of(*model, *strategy, comm.world_size()),
                                   gemm_backends_for_checkpoint());
  ProgressFile progress(rank == 0 ? config.progress_file : std::string());
  progress.record(position.global_step);
  if (comm.world_size() > 1) run.allreduce_8_bytes_us = scalar_allreduce_latency_us(control);
  if (!config.weights_out.empty()) {  // collective: sharded strategies gather
    const auto weights = strategy->full_parameters();
    if (rank == 0)
      write_model_file(config.weights_out, config.model, model->named_parameters().keys(), weights,
                       {{"step", std::to_string(position.global_step)}});
  }
  // CPU kernels repeat bit for bit at fixed threads, on the backends the checkpoint was computed with.
  run.resume_deterministic = !runtime->is_gpu() && gemm_unlike_checkpoint.empty();
  // Warmup and measured steps count from step 0 of the training, not from a resume point.
  const int64_t measure_from = std::max<int64_t>(config.warmup_steps, position.global_step);
  const int64_t tokens_per_step = config.batch_size * config.model.seq_length * micro_count * comm.world_size();
  if (profiler) {
    if (measure_from > position.global_step) {
      profiler->record_operators_in(measure_from - 1, runtime->is_gpu());
    } else {
      profiler->record_operators_in(-1, false,
                                    position.global_step > 0
                                        ? "resumed past the warmup: no unreported step to record them in"
                                        : "no warmup step to record them in (--warmup-steps 0)");
    }
  }
  CollectiveCounts counts_at_measure_start = comm.counts();
  long rounds_at_measure_start = strategy->sync_rounds();
  std::vector<GemmTally> gemm_by_shape_at_measure_start = gemm_tally_by_shape();

  for (int64_t step = position.global_step; step < total_steps; ++step) {
    run.current_step = step;
    if (profiler) profiler->before_step(step);
    if (step == measure_from) {
      counts_at_measure_start = comm.counts();
      rounds_at_measure_start = strategy->sync_rounds();
      gemm_by_shape_at_measure_start = gemm_tally_by_shape();
    }
    const double lr = learning_rate_at(schedule, step);
    optimizer.set_lr(lr);
    run.learning_rate.push_back(lr);

    // The clock starts before the ranks align: a step takes as long as its slowest rank, so the
    // time spent waiting for a straggler belongs to it (and an injected sleep is a straggler).
    runtime->begin_step();
    faults.before_step(rank, step);
    runtime->start(StepPhase::rank_wait);
    control.barrier();  // a step's work starts on all ranks together
    runtime->stop(StepPhase::rank_wait);
    auto loss_sum = torch::zeros({}, torch::TensorOptions().device(runtime->device()));
    const GemmTally gemm_before = gemm_tally();
    for (int micro = 0; micro < micro_count; ++micro) {
      runtime->start(StepPhase::data);
      const TokenBatch batch = synthetic_batch(config.seed, step * micro_count + micro, rank, config.batch_size,
                                               config.model.seq_length, config.model.vocab_size);
      const auto inputs = runtime->to_device(batch.inputs);
      const auto targets = runtime->to_device(batch.targets);
      runtime->stop(StepPhase::data);

      runtime->start(StepPhase::compute);
      strategy->before_micro_batch(micro, micro_count);
      auto loss = forward_loss(model, inputs, targets, autocast_bf16);
      if (faults.nan_loss(rank, step)) loss = loss * std::numeric_limits<float>::quiet_NaN();
      backward_loss(*strategy, loss, micro_count).backward();
      strategy->after_backward(micro, micro_count);
      loss_sum += loss.detach() / micro_count;  // stays on the device: no sync per micro-batch
      runtime->stop(StepPhase::compute);
    }
    runtime->start(StepPhase::optimizer);
    strategy->before_optimizer_step();

    // This rank's loss and squared gradient norm reach the host in one transfer, then one scalar
    // reduction serves the health check and the global gradient norm: shards are disjoint, so
    // their squared norms add; replicated gradients are identical on every rank.
    const auto local = torch::stack({loss_sum.to(torch::kDouble), squared_gradient_norm(optimized, runtime->device())})
                           .to(torch::kCPU);
    const double local_loss = local[0].item<double>(), local_norm_sq = local[1].item<double>();
    std::vector<double> sums = {local_loss, strategy->sharded_optimizer() ? local_norm_sq : 0.0};
    control.sum(sums);
    const double mean_loss = sums[0] / comm.world_size();
    const double grad_norm = std::sqrt(strategy->sharded_optimizer() ? sums[1] : local_norm_sq);
    run.mean_loss.push_back(mean_loss);
    run.grad_norm.push_back(grad_norm);
    if (!config.gradients_out.empty() && step == run.first_step)
      write_gradients(config, *model, *strategy, rank, step, mean_loss);
    if (!std::isfinite(mean_loss) || !std::isfinite(grad_norm)) {
      run.non_finite = true;
      run.non_finite_what = std::isfinite(mean_loss) ? "gradient" : "loss";
      // A non-finite loss is this rank's own; gradients were already reduced across ranks, so a
      // bad gradient norm is everyone's and says nothing about where it began.
      const bool mine_bad = std::isfinite(mean_loss) ? !std::isfinite(local_norm_sq) : !std::isfinite(local_loss);
      run.first_bad_rank = static_cast<int>(control.min(mine_bad ? rank : comm.world_size()));
      return;
    }
    // Clipping scales the gradients inside the optimizer's single pass.
    const bool clip = config.max_grad_norm > 0 && grad_norm > config.max_grad_norm;
    const auto optimizer_start = std::chrono::steady_clock::now();
    const bool cleared = optimizer.step(clip ? config.max_grad_norm / (grad_norm + 1e-6) : 1.0,
                                        strategy->optimizer_may_clear_gradients());
    if (profiler) profiler->optimizer_step(optimizer_start, std::chrono::steady_clock::now());
    strategy->after_optimizer_step();
    if (!cleared) strategy->zero_grad();
    runtime->stop(StepPhase::optimizer);
    const StepTimes times = runtime->end_step();
    run.optimizer_ms.push_back(times[StepPhase::optimizer]);
    run.step_ms.push_back(times.step_ms);
    run.data_ms.push_back(times[StepPhase::data]);
    run.forward_backward_ms.push_back(times[StepPhase::compute]);
    run.rank_wait_ms.push_back(times[StepPhase::rank_wait]);
    const GemmTally gemm_after = gemm_tally();
    run.gemm_ms.push_back((gemm_after.seconds - gemm_before.seconds) * 1e3);
    run.gemm_flops.push_back(gemm_after.flops - gemm_before.flops);
    if (profiler) profiler->after_step(step, times.step_ms);

    run.step_during_save.push_back(checkpointer.save_in_flight());

    position = {step + 1, (step + 1) * tokens_per_step};
    progress.record(position.global_step);
    // Outside the step's timing. A save in flight is published once written; a new one due waits
    // for it (at most one in flight).
    if (checkpointer.save_in_flight())
      if (auto done = checkpointer.finish_async_save(/*wait=*/checkpointer.due(position.global_step)))
        record_save(run, *done);
    if (checkpointer.due(position.global_step)) {
      auto tensors = rank_checkpoint(*strategy, optimizer, rank, comm.world_size(), position,
                                     learning_rate_at(schedule, step + 1), micro_count, runtime->device());
      if (config.async_save) {
        checkpointer.start_async_save(position.global_step, position.tokens_seen, tensors);
      } else {
        record_save(run, checkpointer.save(position.global_step, position.tokens_seen, tensors));
      }
    }
  }
  if (auto done = checkpointer.finish_async_save(/*wait=*/true)) record_save(run, *done);

  const long measured = static_cast<long>(std::max<int64_t>(0, total_steps - measure_from));
  run.sync_rounds_per_step = measured > 0 ? (strategy->sync_rounds() - rounds_at_measure_start) / measured : 0;
  run.collectives_per_step = per_step(counts_at_measure_start, comm.counts(), std::max(1L, measured));
  if (measured > 0) {
    const auto at_end = gemm_tally_by_shape();
    for (size_t i = 0; i < at_end.size(); ++i)
      run.gemm_by_shape.push_back({(at_end[i].seconds - gemm_by_shape_at_measure_start[i].seconds) / measured,
                                   (at_end[i].flops - gemm_by_shape_at_measure_start[i].flops) / measured});
  }
  const StrategyReport report = strategy->report();
  run.bucket_bytes = report.bucket_bytes;
  run.parameter_bytes = report.parameter_bytes;
  run.gradient_bytes = report.gradient_bytes;
  run.peak_full_parameter_bytes = report.peak_full_parameter_bytes;
  run.gathered_parameter_bytes = report.gathered_parameter_bytes;
  run.peak_gradient_bytes = report.peak_gradient_bytes;
  run.optimizer_state_bytes = optimizer.state_bytes();
  run.gpu = runtime->is_gpu();
  const DeviceMemoryPeaks peaks = runtime->memory_peaks();
  run.device_max_allocated_bytes = peaks.max_allocated_bytes;
  run.device_max_reserved_bytes = peaks.max_reserved_bytes;
  if (profiler) {
    const auto summary = profiler->finish(control, measure_from);
    if (control.rank() == 0) run.profile_json = summary.dump();
  }
}

}  // namespace mt

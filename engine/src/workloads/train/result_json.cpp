#include "workloads/train/result_json.h"

#include <cstdlib>

#include "training/model/model_config_json.h"
#include "training/trainer/gemm_setup.h"
#include "training/trainer/memory_estimate.h"
#include "training/trainer/model_flops.h"

namespace mt {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

nlohmann::json config_fields(const TrainConfig& c, int world_size) {
  const auto* entry = find_strategy(c.strategy);
  nlohmann::json out = result_document("train", true,
                                       {{"strategy", c.strategy},
                                        {"backend", c.job.backend},
                                        {"world_size", world_size},
                                        {"precision", c.precision},
                                        {"model_config", model_config_json(c.model)},
                                        {"batch_size_per_rank", c.batch_size},
                                        {"gradient_accumulation_steps", c.grad_accum_steps},
                                        {"gradient_sync_mode", c.gradient_sync_mode},
                                        {"learning_rate", c.learning_rate},
                                        {"lr_scheduler",
                                         {{"kind", c.lr_scheduler},
                                          {"warmup_steps", c.lr_warmup_steps},
                                          {"decay_steps", c.lr_decay_steps},
                                          {"min_learning_rate", c.min_learning_rate}}},
                                        {"max_grad_norm", c.max_grad_norm},
                                        {"grad_reduce_dtype", c.grad_reduce_dtype},
                                        {"activation_checkpointing", c.activation_checkpointing},
                                        {"backward_prefetch", c.backward_prefetch},
                                        {"bucket_cap_mb", c.bucket_cap_mb},
                                        {"first_bucket_cap_mb", c.first_bucket_cap_mb},
                                        {"seed", c.seed},
                                        {"steps", c.steps},
                                        {"warmup_steps", c.warmup_steps}});
  if (entry) {
    const SyncMode resolved = c.gradient_sync_mode == "auto"    ? entry->auto_sync_mode
                              : c.gradient_sync_mode == "every" ? SyncMode::every
                                                                : SyncMode::last;
    out["resolved_gradient_sync_mode"] = sync_mode_name(resolved);
  }
  return out;
}

// Model FLOPs utilisation (see training/trainer/model_flops.h) against two peaks of the cores the
// job used: the GEMM peak each launch measures (what the GEMM library reaches on this machine now)
// and the CPU's fp32 vector peak at the clock its cores were measured at (else the reported one,
// `vector_peak_clock` says which). On a GPU neither applies. The GEMM peak is the fastest of the
// model's own shapes on the library chosen for it where the engine chose one per shape (fp32 on
// the CPU), else the SGEMM probe on ATen's BLAS: on an AMD EPYC (Zen 5) oneDNN ran the 23.2M
// model's shapes at 420-480 GFLOP/s on 2 threads and the probe, on MKL, read 224, so MFU against
// the probe passed 160 %. `calibrated_peak_source` says which peak a result used. Where the
// dense layers' GEMMs ran through the engine's dispatch (fp32 on the CPU), `dense_gemm` says how
// much of the step they took and how fast they ran (per rank FLOPs; speed for the whole job).
nlohmann::json utilisation_json(const TrainConfig& c, int world_size, const RankRun& run, const TrainSummary& s,
                                const Environment& env) {
  const double per_token =
      training_flops_per_token({run.parameters, c.model.n_layers, c.model.d_model, c.model.seq_length});
  nlohmann::json out = {{"model_flops_per_token", per_token}, {"achieved_gflops", per_token * s.tokens_per_sec / 1e9}};
  if (run.gpu) return out;
  const double cores = static_cast<double>(run.threads) * world_size;
  const auto gemm_peak = chosen_gemm_peak();
  const double calibrated = gemm_peak ? gemm_peak->gflops * 1e9 * world_size : env.blas.gflops_per_thread * 1e9 * cores;
  const double vector = env.cpu.fp32_peak_gflops_per_core() * 1e9 * cores;
  if (calibrated > 0) {
    out["calibrated_peak_gflops"] = calibrated / 1e9;
    out["calibrated_peak_source"] = gemm_peak ? "model_gemm_shapes" : "sgemm_probe";
    out["calibrated_peak_backend"] = gemm_peak ? gemm_peak->backend : env.blas.vendor;
    out["of_calibrated_peak"] = utilisation(per_token, s.tokens_per_sec, calibrated);
  }
  if (vector > 0) {
    out["vector_peak_gflops"] = vector / 1e9;
    out["vector_peak_clock_mhz"] = env.cpu.peak_clock_mhz();
    out["vector_peak_clock"] = env.cpu.peak_clock_source();
    out["of_vector_peak"] = utilisation(per_token, s.tokens_per_sec, vector);
  }
  // What bounds it: MFU of the calibrated peak ≈ (the GEMMs' share of the step) × (their speed ÷
  // that peak) × (model FLOPs ÷ GEMM FLOPs, which adds attention's products).
  if (s.gemm_ms > 0 && s.step_time_ms > 0) {
    const double gemm_flops_per_sec = world_size * s.gemm_flops / (s.gemm_ms / 1e3);
    nlohmann::json gemm = {{"ms_per_step", s.gemm_ms},
                           {"flops_per_step", s.gemm_flops},
                           {"share_of_step", s.gemm_ms / s.step_time_ms},
                           {"gflops", gemm_flops_per_sec / 1e9}};
    if (calibrated > 0) gemm["of_calibrated_peak"] = gemm_flops_per_sec / calibrated;
    out["dense_gemm"] = gemm;
  }
  return out;
}

}  // namespace

nlohmann::json train_result_json(const TrainConfig& c, int world_size, const RankRun& run, const TrainSummary& s,
                                 const Environment& env) {
  nlohmann::json out = config_fields(c, world_size);
  out["status"] = "ok";
  out["parameters"] = run.parameters;
  out["resolved_gradient_sync_mode"] = sync_mode_name(run.sync_mode);
  out["threads_per_rank"] = run.threads;
  const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
  out["omp_wait_policy"] = wait_policy ? wait_policy : "";
  out["resolved_bucket_cap_mb"] = run.bucket_cap_mb;
  out["flush_denormal_all_threads"] = run.flush_denormal_all_threads;
  out["tokens_per_sec"] = s.tokens_per_sec;
  out["step_time_ms"] = s.step_time_ms;
  out["data_time_ms"] = s.data_time_ms;
  out["forward_backward_ms"] = s.forward_backward_ms;
  out["optimizer_step_ms"] = s.optimizer_step_ms;
  out["rank_wait_ms"] = s.rank_wait_ms;
  out["mfu"] = utilisation_json(c, world_size, run, s, env);
  out["peak_memory_mb"] = static_cast<double>(s.peak_rss_bytes) / kMiB;
  out["device"] = run.gpu ? "cuda" : "cpu";
  if (!run.bf16_gemm.empty()) out["bf16_gemm"] = run.bf16_gemm;
  if (run.gpu) {  // the caching allocator's peaks: what the GPU actually held
    out["cuda_max_allocated_mb"] = static_cast<double>(s.device_max_allocated_bytes) / kMiB;
    out["cuda_max_reserved_mb"] = static_cast<double>(s.device_max_reserved_bytes) / kMiB;
  }
  out["loss"] = s.loss;
  out["grad_norm"] = run.grad_norm.empty() ? 0.0 : run.grad_norm.back();
  out["collectives_per_step"] = {
      {"sync_rounds", run.sync_rounds_per_step},           {"all_reduce", run.collectives_per_step.all_reduce},
      {"all_gather", run.collectives_per_step.all_gather}, {"reduce_scatter", run.collectives_per_step.reduce_scatter},
      {"broadcast", run.collectives_per_step.broadcast},   {"all_to_all", run.collectives_per_step.all_to_all}};
  out["buckets"] = {{"count", run.bucket_bytes.size()}, {"bytes", run.bucket_bytes}};
  out["memory"] = {{"parameter_bytes", s.parameter_bytes},
                   {"gradient_bytes", s.gradient_bytes},
                   {"optimizer_state_bytes", s.optimizer_state_bytes},
                   {"peak_gradient_bytes", s.peak_gradient_bytes},
                   {"peak_full_parameter_bytes", s.peak_full_parameter_bytes},
                   {"gathered_parameter_bytes", s.gathered_parameter_bytes},
                   {"peak_rss_bytes", s.peak_rss_bytes},
                   {"host_need_lower_bound_bytes", training_memory_lower_bound(c, world_size).total()}};
  out["per_step"] = {{"first_step", run.first_step},       {"loss", run.mean_loss},
                     {"grad_norm", run.grad_norm},         {"learning_rate", run.learning_rate},
                     {"step_time_ms", s.step_ms_per_rank}, {"rank_wait_ms", s.rank_wait_ms_per_rank}};
  out["hosts"] = s.hosts;
  if (run.allreduce_8_bytes_us > 0) out["calibration"] = {{"allreduce_8_bytes_us", run.allreduce_8_bytes_us}};
  out["resume_deterministic"] = run.resume_deterministic;
  out["resumed_from_step"] = run.resumed_from_step ? nlohmann::json(*run.resumed_from_step) : nlohmann::json(nullptr);
  if (run.resumed_from_step) out["checkpoint_load_ms"] = run.checkpoint_load_ms;
  out["resharded_from"] = run.resharded_from ? nlohmann::json{{"strategy", run.resharded_from->strategy},
                                                              {"world_size", run.resharded_from->world_size}}
                                             : nlohmann::json(nullptr);
  out["initial_weights"] = run.initial_weights_path.empty() ? nlohmann::json(nullptr)
                                                            : nlohmann::json{{"path", run.initial_weights_path},
                                                                             {"sha256", run.initial_weights_sha256}};
  nlohmann::json saves = nlohmann::json::array();
  for (const auto& save : run.checkpoint_saves) {
    // save_ms is what training waited for; an async save's write ran beside training.
    nlohmann::json entry = {{"step", save.step}, {"save_ms", save.ms}, {"bytes", save.bytes}, {"async", save.async}};
    const double wall_ms = save.async ? save.total_ms : save.ms;
    if (wall_ms > 0) entry["gb_per_s"] = static_cast<double>(save.bytes) / 1e6 / wall_ms;
    if (save.async) {
      entry["background_ms"] = save.background_ms;
      entry["total_ms"] = save.total_ms;
    }
    saves.push_back(entry);
  }
  // Training's own speed while async saves were being written, against the other steps.
  double during = 0, otherwise = 0;
  int n_during = 0, n_otherwise = 0;
  for (std::size_t i = 0; i < run.step_ms.size() && i < run.step_during_save.size(); ++i) {
    if (static_cast<int64_t>(i) + run.first_step < c.warmup_steps) continue;
    (run.step_during_save[i] ? during : otherwise) += run.step_ms[i];
    ++(run.step_during_save[i] ? n_during : n_otherwise);
  }
  if (n_during > 0 && n_otherwise > 0)
    out["step_ms_during_async_saves"] = {{"during", during / n_during},
                                         {"steps_during", n_during},
                                         {"otherwise", otherwise / n_otherwise},
                                         {"steps_otherwise", n_otherwise}};
  out["checkpoint_saves"] = saves;
  if (!run.profile_json.empty()) out["profile"] = nlohmann::json::parse(run.profile_json);
  out["environment"] = to_json(env, /*include_machine=*/true);
  if (auto gemm = gemm_backends_json(run.gemm_by_shape); !gemm.empty()) {
    out["environment"]["gemm_backends"] = std::move(gemm);
    out["environment"]["gemm_onednn_entry"] = gemm_onednn_entry();
  }
  // A resume at the run's end ran no step: its zeros are no measurement, so they are null (a
  // store records no value rather than a throughput of 0), and the result says why.
  out["nothing_to_train"] = !run.nothing_to_train.empty();
  if (!run.nothing_to_train.empty()) {
    out["note"] = run.nothing_to_train;
    for (const char* measured : {"tokens_per_sec", "step_time_ms", "data_time_ms", "forward_backward_ms",
                                 "optimizer_step_ms", "rank_wait_ms", "mfu", "loss", "grad_norm", "peak_memory_mb",
                                 "cuda_max_allocated_mb", "cuda_max_reserved_mb", "collectives_per_step", "memory"})
      if (out.contains(measured)) out[measured] = nullptr;
  }
  return out;
}

nlohmann::json error_result_json(const TrainConfig& c, int world_size, const RunError& e, const Environment& env) {
  nlohmann::json out = config_fields(c, world_size);
  out["status"] = "error";
  nlohmann::json error = {{"reason", e.reason}};
  error["rank"] = e.rank ? nlohmann::json(*e.rank) : nlohmann::json(nullptr);
  error["step"] = e.step ? nlohmann::json(*e.step) : nlohmann::json(nullptr);
  if (!e.policy.empty()) error["policy"] = e.policy;
  out["error"] = error;
  out["environment"] = to_json(env, /*include_machine=*/true);
  return out;
}

}  // namespace mt

// ZeRO stages 1 and 2 (DeepSpeed's optimizer-state and gradient partitioning), natively. The two
// stages differ only in how gradients are reduced, so they share this file.
// Every rank keeps the full parameters. They are grouped into buckets (reverse order, like DDP),
// each a FlatUnit whose shards alias the full buffer: the optimizer steps only this rank's shard
// of each bucket, in place, so its state (AdamW moments) exists for 1/N of the model; after the
// step one in-place all-gather per bucket brings every rank the updated parameters.
//   zero1: gradients stay full; each bucket is all-reduced (asynchronously, started when its last
//          gradient is ready) and the shard's part copied out before the step.
//   zero2: each bucket's gradients are reduce-scattered as soon as they are ready, added to the
//          shard's gradient, and the full bucket gradients freed once the reduction completes:
//          only the buckets in flight hold full gradients at any time.
// Both reduce through the BucketReducer that DDP uses.
#include <algorithm>
#include <memory>
#include <optional>

#include "core/comm/communicator.h"
#include "training/model/grad_in_place.h"
#include "training/strategy/bucket_reducer.h"
#include "training/strategy/buckets.h"
#include "training/strategy/flat_unit.h"
#include "training/strategy/grad_hooks.h"
#include "training/strategy/parameter_broadcast.h"
#include "training/strategy/strategy.h"

namespace mt {
namespace {

class Zero final : public Strategy {
 public:
  Zero(const StrategyOptions& options, int stage)
      : options_(options),
        comm_(*options.comm),
        stage_(stage),
        reducer_(comm_, stage == 1 ? BucketReduction::all_reduce : BucketReduction::reduce_scatter,
                 options.grad_reduce_type) {}

  void prepare(GptImpl& model) override {
    model_ = &model;
    auto parameters = model.parameters();
    broadcast_parameters(comm_, parameters);
    std::vector<std::size_t> sizes;
    for (auto& p : parameters) sizes.push_back(p.nbytes());
    for (const auto& bucket : assign_buckets(sizes, bucket_cap_bytes(options_.bucket_cap_mb))) {
      std::vector<torch::Tensor> members;
      for (std::size_t index : bucket.parameters) members.push_back(parameters[index]);
      units_.push_back(std::make_unique<FlatUnit>(members, comm_, ledger_, /*shard_is_view=*/true));
    }
    pending_.resize(units_.size());
    for (std::size_t u = 0; u < units_.size(); ++u) {
      FlatUnit& unit = *units_[u];
      if (stage_ == 1) {
        unit.ensure_gradients();  // full gradients live for the whole run
        reducer_.add_bucket({[&unit] { return unit.full_gradients(); }, {}, {}});
      } else {
        reducer_.add_bucket(
            {[&unit] { return unit.full_gradients(); }, unit.shard_grad(), [&unit] { unit.release_gradients(); }});
      }
      for (auto p : unit.parameters()) {
        if (stage_ == 2) hooks_.before_accumulate(p, [&unit] { unit.ensure_gradients(); });
        hooks_.after_accumulate(p, [this, u] { on_gradient_ready(u); });
      }
    }
    // Stage 1 keeps every full gradient in place for the whole run; stage 2 allocates them as
    // backward reaches them, after the products that would add into them.
    if (stage_ == 1) grads_in_place_.emplace(parameters);
  }

  std::vector<torch::Tensor> optimizer_parameters() override { return shard_parameters(units_); }
  bool sharded_optimizer() const override { return true; }

  void before_micro_batch(int micro_index, int micro_count) override {
    const bool every = options_.sync_mode == SyncMode::every;
    reducer_.start_micro_batch(every || micro_index + 1 == micro_count, every && micro_count > 1);
    for (std::size_t u = 0; u < units_.size(); ++u) pending_[u] = units_[u]->parameters().size();
  }

  void after_backward(int, int) override {
    reducer_.finish();  // retires every reduction: ZeRO-2's full gradients are freed by now
    held_gradient_bytes_ = std::max(held_gradient_bytes_, ledger_.gradient_live);
  }

  void before_optimizer_step() override {
    if (stage_ == 1)
      for (auto& unit : units_) unit->copy_gradient_shard();
  }

  void after_optimizer_step() override { gather_all_units(); }

  std::vector<NamedTensor> model_state() override { return unit_shards(units_); }
  void after_model_state_loaded() override { gather_all_units(); }

  void zero_grad() override {
    for (auto& unit : units_) {
      unit->shard_grad().zero_();
      if (unit->gradients_resident()) unit->full_gradients().zero_();
    }
  }

  std::vector<torch::Tensor> full_parameters() override {
    std::vector<torch::Tensor> out;
    for (const auto& p : model_->parameters()) out.push_back(p.detach().clone());
    return out;
  }

  std::vector<torch::Tensor> full_gradients() override { return gathered_gradients(units_, model_->parameters()); }
  std::vector<ParameterPlacement> parameter_placements(const std::vector<torch::Tensor>& model_parameters) override {
    return unit_placements(units_, model_parameters);
  }

  long sync_rounds() const override { return reducer_.rounds(); }
  double loss_scale() const override { return reducer_.averaging_loss_scale(); }

  StrategyReport report() const override {
    return flat_units_report(units_, ParameterResidency::full, held_gradient_bytes_, ledger_);
  }

 private:
  // Every rank's shard into every rank's full buffers, in place.
  void gather_all_units() {
    std::vector<WorkHandle> gathers;
    for (auto& unit : units_) gathers.push_back(unit->start_all_gather_in_place());
    wait_all(gathers);
  }

  void on_gradient_ready(std::size_t u) {
    if (--pending_[u] == 0) reducer_.mark_ready(u);
  }

  StrategyOptions options_;
  Communicator& comm_;
  int stage_;
  BucketReducer reducer_;
  GptImpl* model_ = nullptr;
  MemoryLedger ledger_;
  std::vector<std::unique_ptr<FlatUnit>> units_;
  std::vector<std::size_t> pending_;
  GradHooks hooks_;
  std::optional<GradsAccumulatedInPlace> grads_in_place_;
  int64_t held_gradient_bytes_ = 0;  // gradient bytes live at the end of a micro-batch
};

}  // namespace

std::unique_ptr<Strategy> make_zero1(const StrategyOptions& options) { return std::make_unique<Zero>(options, 1); }

std::unique_ptr<Strategy> make_zero2(const StrategyOptions& options) { return std::make_unique<Zero>(options, 2); }

}  // namespace mt

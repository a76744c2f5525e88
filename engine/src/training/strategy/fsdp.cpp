// Fully sharded data parallelism (full shard). Units: one per transformer block plus a root unit
// (embeddings, final norm; the head is tied to the token embedding). Each unit's parameters are
// one flat buffer sharded evenly over ranks (FlatUnit); between uses a rank holds only its shard.
//   forward:  the root is gathered when a micro-batch starts and kept until its backward is done
//             (it is needed at both ends of the model); each block is gathered just before its
//             forward and released right after.
//   backward: a hook on the block's output gathers the block again just before its backward
//             (optionally starting the next block's gather early: backward prefetch); once all
//             its gradients are accumulated it is released and its gradients reduce-scattered
//             asynchronously through the shared BucketReducer (units are its buckets, in the
//             order backward finishes them: the last block first, the root last), so each rank
//             keeps only its shard of the averaged gradient.
// Sync mode `last` skips the reduce-scatter on all but the final micro-batch: full unsharded
// gradients then live through the accumulation window (less traffic, more memory).
// The optimizer steps on the shards; nothing needs gathering after the step.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "core/comm/communicator.h"
#include "training/strategy/bucket_reducer.h"
#include "training/strategy/flat_unit.h"
#include "training/strategy/grad_hooks.h"
#include "training/strategy/parameter_broadcast.h"
#include "training/strategy/strategy.h"

namespace mt {
namespace {

class Fsdp final : public Strategy {
 public:
  explicit Fsdp(const StrategyOptions& options)
      : options_(options),
        comm_(*options.comm),
        reducer_(comm_, BucketReduction::reduce_scatter, options.grad_reduce_type) {}

  void prepare(GptImpl& model) override {
    model_ = &model;
    broadcast_parameters(comm_, model.parameters());
    // Unit 0 is the root; unit i + 1 is block i.
    units_.push_back(std::make_unique<FlatUnit>(model.root_parameters(), comm_, ledger_, false));
    for (auto& block : model.blocks())
      units_.push_back(std::make_unique<FlatUnit>(block->parameters(), comm_, ledger_, false));
    pending_.resize(units_.size());
    bucket_of_unit_.resize(units_.size());
    for (std::size_t i = 0; i < units_.size(); ++i) {  // backward finishes block L first, root last
      const std::size_t u = (units_.size() - i) % units_.size();
      FlatUnit& unit = *units_[u];
      bucket_of_unit_[u] = reducer_.add_bucket(
          {[&unit] { return unit.full_gradients(); }, unit.shard_grad(), [&unit] { unit.release_gradients(); }});
    }
    for (std::size_t u = 0; u < units_.size(); ++u) {
      units_[u]->release_parameters();
      for (auto p : units_[u]->parameters()) {
        // Point .grad at a live buffer just before autograd accumulates into it.
        hooks_.before_accumulate(p, [this, u] { units_[u]->ensure_gradients(); });
        hooks_.after_accumulate(p, [this, u] { on_gradient_ready(u); });
      }
    }

    // Building the model materialised everything once; the peak that matters is training's.
    ledger_.full_parameter_peak = ledger_.full_parameter_live;

    BlockRunner inner = model.block_runner();
    model.set_block_runner([this, inner](int64_t index, Block& block, const torch::Tensor& x) {
      const std::size_t u = static_cast<std::size_t>(index) + 1;
      units_[u]->gather_parameters();
      auto y = inner(index, block, x);
      if (y.requires_grad()) y.register_hook([this, u](const torch::Tensor&) { before_unit_backward(u); });
      units_[u]->release_parameters();
      return y;
    });
  }

  std::vector<torch::Tensor> optimizer_parameters() override { return shard_parameters(units_); }
  bool sharded_optimizer() const override { return true; }

  void before_micro_batch(int micro_index, int micro_count) override {
    reducer_.start_micro_batch(options_.sync_mode == SyncMode::every || micro_index + 1 == micro_count);
    for (std::size_t u = 0; u < units_.size(); ++u) pending_[u] = units_[u]->parameters().size();
    prefetched_ = 0;
    prefetch_ = nullptr;
    units_[0]->gather_parameters();
  }

  void after_backward(int, int) override {
    if (prefetch_) prefetch_->wait();
    for (std::size_t u = 0; u < units_.size(); ++u) {
      if (pending_[u] != 0) throw std::runtime_error("fsdp: a unit's parameters did not all receive gradients");
    }
    reducer_.finish();
    held_gradient_bytes_ = std::max(held_gradient_bytes_, ledger_.gradient_live);
  }

  void zero_grad() override {
    for (auto& unit : units_) unit->shard_grad().zero_();
  }

  std::vector<torch::Tensor> full_parameters() override {
    for (auto& unit : units_) unit->gather_parameters();
    std::vector<torch::Tensor> out;
    for (const auto& p : model_->parameters()) out.push_back(p.detach().clone());
    for (auto& unit : units_) unit->release_parameters();
    return out;
  }

  std::vector<torch::Tensor> full_gradients() override { return gathered_gradients(units_, model_->parameters()); }
  std::vector<ParameterPlacement> parameter_placements(const std::vector<torch::Tensor>& model_parameters) override {
    return unit_placements(units_, model_parameters);
  }

  long sync_rounds() const override { return reducer_.rounds(); }
  double loss_scale() const override { return reducer_.averaging_loss_scale(); }

  // Parameters are gathered from the shards whenever they are used: nothing more to do.
  std::vector<NamedTensor> model_state() override { return unit_shards(units_); }
  void after_model_state_loaded() override {}

  StrategyReport report() const override {
    return flat_units_report(units_, ParameterResidency::shard, held_gradient_bytes_, ledger_);
  }

 private:
  void before_unit_backward(std::size_t u) {
    if (prefetched_ == u && prefetch_) prefetch_->wait();  // started by the previous unit
    units_[u]->gather_parameters();
    // Blocks run backward in reverse: block u - 1 is next (unit 0, the root, is resident).
    if (options_.backward_prefetch && u > 1) {
      prefetch_ = units_[u - 1]->start_gather_parameters();
      prefetched_ = u - 1;
    }
  }

  void on_gradient_ready(std::size_t u) {
    if (--pending_[u] != 0) return;
    units_[u]->release_parameters();
    reducer_.mark_ready(bucket_of_unit_[u]);
  }

  StrategyOptions options_;
  Communicator& comm_;
  GptImpl* model_ = nullptr;
  MemoryLedger ledger_;
  std::vector<std::unique_ptr<FlatUnit>> units_;
  std::vector<std::size_t> pending_;
  std::size_t prefetched_ = 0;  // unit whose gather is in flight; 0: none
  WorkHandle prefetch_;
  BucketReducer reducer_;
  std::vector<std::size_t> bucket_of_unit_;
  GradHooks hooks_;
  int64_t held_gradient_bytes_ = 0;  // gradient bytes live at the end of a micro-batch
};

}  // namespace

std::unique_ptr<Strategy> make_fsdp(const StrategyOptions& options) { return std::make_unique<Fsdp>(options); }

}  // namespace mt

// ZeRO stages 1 and 2 (DeepSpeed's optimizer-state and gradient partitioning), natively. The two
// stages differ only in how gradients are reduced, so they share this file.
// Every rank keeps the full parameters. They are grouped into buckets (reverse order, like DDP),
// each a FlatUnit whose shards alias the full buffer: the optimizer steps only this rank's shard
// of each bucket, in place, so its state (AdamW moments) exists for 1/N of the model; after the
// step one in-place all-gather per bucket brings every rank the updated parameters.
//   zero1: gradients stay full; each bucket is all-reduced (non-blocking, started when its last
//          gradient is ready) and the shard's part copied out before the step.
//   zero2: each bucket's gradients are reduce-scattered as soon as they are ready, accumulated
//          into the shard's gradient, and the full bucket gradient is freed: only one bucket's
//          worth of full gradients needs to exist at a time.
#include <algorithm>
#include <memory>
#include <stdexcept>

#include "comm/communicator.h"
#include "strategy/buckets.h"
#include "strategy/flat_unit.h"
#include "strategy/grad_hooks.h"
#include "strategy/strategy.h"

namespace mt {
namespace {

class Zero final : public Strategy {
 public:
  Zero(const StrategyOptions& options, int stage)
      : options_(options), comm_(*options.comm), stage_(stage) {}

  void prepare(GptImpl& model) override {
    model_ = &model;
    auto parameters = model.parameters();
    std::vector<std::size_t> sizes;
    {
      torch::NoGradGuard no_grad;
      for (auto& p : parameters) {
        if (comm_.world_size() > 1) comm_.broadcast(p.data_ptr<float>(), p.nbytes(), 0);
        sizes.push_back(p.nbytes());
      }
    }
    for (const auto& bucket : assign_buckets(sizes, bucket_cap_bytes(options_.bucket_cap_mb))) {
      std::vector<torch::Tensor> members;
      for (std::size_t index : bucket.parameters) members.push_back(parameters[index]);
      units_.push_back(std::make_unique<FlatUnit>(members, comm_, ledger_, /*shard_is_view=*/true));
    }
    pending_.resize(units_.size());
    ready_.resize(units_.size());
    for (std::size_t u = 0; u < units_.size(); ++u) {
      if (stage_ == 1) units_[u]->ensure_gradients();  // full gradients live for the whole run
      for (auto p : units_[u]->parameters()) {
        if (stage_ == 2)
          hooks_.before_accumulate(p, [this, u] { units_[u]->ensure_gradients(); });
        hooks_.after_accumulate(p, [this, u] { on_gradient_ready(u); });
      }
    }
  }

  std::vector<torch::Tensor> optimizer_parameters() override { return shard_parameters(units_); }
  bool sharded_optimizer() const override { return true; }

  void before_micro_batch(int micro_index, int micro_count) override {
    syncing_ = options_.sync_mode == SyncMode::every || micro_index + 1 == micro_count;
    for (std::size_t u = 0; u < units_.size(); ++u) {
      pending_[u] = units_[u]->parameters().size();
      ready_[u] = false;
    }
    next_to_start_ = 0;
  }

  void after_backward(int, int) override {
    held_gradient_bytes_ = std::max(held_gradient_bytes_, ledger_.gradient_live);
    if (!syncing_) return;
    for (std::size_t u = 0; u < units_.size(); ++u) {
      if (!ready_[u]) throw std::runtime_error("zero: a bucket's parameters did not all receive gradients");
    }
    if (stage_ == 1) {
      comm_.wait_all();
      if (options_.grad_reduce_type == ElementType::bf16) {
        torch::NoGradGuard no_grad;
        for (std::size_t u = 0; u < units_.size(); ++u) units_[u]->full_gradients().copy_(staging_[u]);
      }
    }
    held_gradient_bytes_ = std::max(held_gradient_bytes_, ledger_.gradient_live);
    ++sync_rounds_;
  }

  void before_optimizer_step() override {
    if (stage_ == 1)
      for (auto& unit : units_) unit->copy_gradient_shard();
  }

  void after_optimizer_step() override {
    for (auto& unit : units_) {
      comm_.all_gather(unit->shard().data_ptr<float>(),
                       unit->shard().data_ptr<float>() - comm_.rank() * unit->shard_numel(),
                       static_cast<std::size_t>(unit->shard_numel()), ElementType::f32);
    }
  }

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

  long sync_rounds() const override { return sync_rounds_; }

  StrategyReport report() const override {
    return flat_units_report(units_, ParameterResidency::full, held_gradient_bytes_, ledger_);
  }

 private:
  void on_gradient_ready(std::size_t u) {
    if (--pending_[u] != 0) return;
    ready_[u] = true;
    if (!syncing_) return;
    if (stage_ == 2) {
      // Blocking, in hook order: every rank runs the same backward graph, so the same order.
      units_[u]->reduce_scatter_gradients(options_.grad_reduce_type);
      units_[u]->release_gradients();
      return;
    }
    start_ready_all_reduces();
    comm_.progress();
  }

  void start_ready_all_reduces() {
    torch::NoGradGuard no_grad;
    staging_.resize(units_.size());
    while (next_to_start_ < units_.size() && ready_[next_to_start_]) {
      auto& full = units_[next_to_start_]->full_gradients();
      full.mul_(1.0 / comm_.world_size());
      if (options_.grad_reduce_type == ElementType::bf16) {
        staging_[next_to_start_] = full.to(torch::kBFloat16);
        comm_.start_all_reduce_sum(staging_[next_to_start_].data_ptr(),
                                   static_cast<std::size_t>(full.numel()), ElementType::bf16);
      } else {
        comm_.start_all_reduce_sum(full.data_ptr(), static_cast<std::size_t>(full.numel()),
                                   ElementType::f32);
      }
      ++next_to_start_;
    }
  }

  StrategyOptions options_;
  Communicator& comm_;
  int stage_;
  GptImpl* model_ = nullptr;
  MemoryLedger ledger_;
  std::vector<std::unique_ptr<FlatUnit>> units_;
  std::vector<std::size_t> pending_;
  std::vector<bool> ready_;
  std::vector<torch::Tensor> staging_;
  std::size_t next_to_start_ = 0;
  bool syncing_ = false;
  GradHooks hooks_;
  long sync_rounds_ = 0;
  int64_t held_gradient_bytes_ = 0;  // gradient bytes live at the end of a micro-batch
};

}  // namespace

std::unique_ptr<Strategy> make_zero1(const StrategyOptions& options) {
  return std::make_unique<Zero>(options, 1);
}

std::unique_ptr<Strategy> make_zero2(const StrategyOptions& options) {
  return std::make_unique<Zero>(options, 2);
}

}  // namespace mt

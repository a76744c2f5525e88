// Data parallelism: every rank holds the full model; gradients are averaged over ranks by
// bucketed all-reduce, overlapped with backward. Buckets take parameters in reverse order (the
// order their gradients appear), the first one small. Each parameter's .grad is a view into its
// bucket's flat buffer, so autograd accumulates straight into what is reduced, with no copies.
// When a bucket's last gradient has been accumulated, a hook starts its non-blocking all-reduce;
// buckets are started in bucket order on every rank (MPI requires the same collective order).
// All are waited for at the end of the micro-batch's backward. A world-size-1 run is a valid DDP
// run that skips communication entirely.
#include <stdexcept>

#include "comm/communicator.h"
#include "strategy/buckets.h"
#include "strategy/grad_hooks.h"
#include "strategy/strategy.h"

namespace mt {
namespace {

class Ddp final : public Strategy {
 public:
  explicit Ddp(const StrategyOptions& options) : options_(options), comm_(*options.comm) {}

  void prepare(GptImpl& model) override {
    parameters_ = model.parameters();
    torch::NoGradGuard no_grad;
    if (comm_.world_size() > 1)
      for (auto& p : parameters_) comm_.broadcast(p.data_ptr<float>(), p.nbytes(), /*root=*/0);

    std::vector<std::size_t> sizes;
    for (const auto& p : parameters_) sizes.push_back(p.nbytes());
    buckets_ = assign_buckets(sizes, bucket_cap_bytes(options_.bucket_cap_mb),
                              bucket_cap_bytes(options_.first_bucket_cap_mb));
    pending_.resize(buckets_.size());
    ready_.resize(buckets_.size());
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
      auto flat = torch::zeros({static_cast<int64_t>(buckets_[b].bytes / sizeof(float))});
      int64_t offset = 0;
      for (std::size_t index : buckets_[b].parameters) {
        auto& p = parameters_[index];
        p.mutable_grad() = flat.narrow(0, offset, p.numel()).view(p.sizes());
        offset += p.numel();
        hooks_.after_accumulate(p, [this, b] { on_gradient_ready(b); });
      }
      flat_.push_back(flat);
    }
    staging_.resize(buckets_.size());
  }

  std::vector<torch::Tensor> optimizer_parameters() override { return parameters_; }
  bool sharded_optimizer() const override { return false; }

  void before_micro_batch(int micro_index, int micro_count) override {
    syncing_ = comm_.world_size() > 1 &&
               (options_.sync_mode == SyncMode::every || micro_index + 1 == micro_count);
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
      pending_[b] = buckets_[b].parameters.size();
      ready_[b] = false;
    }
    next_to_start_ = 0;
  }

  void after_backward(int, int) override {
    if (!syncing_) return;
    // A parameter without a gradient this micro-batch never fires its hook: reduce anyway, so
    // every rank issues the same collectives.
    for (std::size_t b = 0; b < buckets_.size(); ++b) ready_[b] = true;
    start_ready_buckets();
    comm_.wait_all();
    if (options_.grad_reduce_type == ElementType::bf16) {
      torch::NoGradGuard no_grad;
      for (std::size_t b = 0; b < buckets_.size(); ++b) flat_[b].copy_(staging_[b]);
    }
    ++sync_rounds_;
  }

  void zero_grad() override {
    for (auto& flat : flat_) flat.zero_();
  }

  std::vector<torch::Tensor> full_parameters() override {
    std::vector<torch::Tensor> out;
    for (const auto& p : parameters_) out.push_back(p.detach().clone());
    return out;
  }

  long sync_rounds() const override { return sync_rounds_; }

  StrategyReport report() const override {
    StrategyReport out;
    for (const auto& bucket : buckets_) {
      out.bucket_bytes.push_back(static_cast<int64_t>(bucket.bytes));
      out.gradient_bytes += static_cast<int64_t>(bucket.bytes);
    }
    for (const auto& p : parameters_) out.parameter_bytes += static_cast<int64_t>(p.nbytes());
    out.peak_gradient_bytes = out.gradient_bytes;
    out.peak_full_parameter_bytes = out.parameter_bytes;
    return out;
  }

 private:
  void on_gradient_ready(std::size_t bucket) {
    if (--pending_[bucket] == 0) ready_[bucket] = true;
    if (!syncing_) return;
    start_ready_buckets();
    comm_.progress();
  }

  void start_ready_buckets() {
    torch::NoGradGuard no_grad;
    const double scale = 1.0 / comm_.world_size();
    while (next_to_start_ < buckets_.size() && ready_[next_to_start_]) {
      auto& flat = flat_[next_to_start_];
      flat.mul_(scale);  // average before any rounding to bf16
      if (options_.grad_reduce_type == ElementType::bf16) {
        staging_[next_to_start_] = flat.to(torch::kBFloat16);
        comm_.start_all_reduce_sum(staging_[next_to_start_].data_ptr(),
                                   static_cast<std::size_t>(flat.numel()), ElementType::bf16);
      } else {
        comm_.start_all_reduce_sum(flat.data_ptr(), static_cast<std::size_t>(flat.numel()),
                                   ElementType::f32);
      }
      ++next_to_start_;
    }
  }

  StrategyOptions options_;
  Communicator& comm_;
  std::vector<torch::Tensor> parameters_;
  std::vector<Bucket> buckets_;
  std::vector<torch::Tensor> flat_, staging_;
  std::vector<std::size_t> pending_;
  std::vector<bool> ready_;
  std::size_t next_to_start_ = 0;
  bool syncing_ = false;
  GradHooks hooks_;
  long sync_rounds_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_ddp(const StrategyOptions& options) {
  return std::make_unique<Ddp>(options);
}

}  // namespace mt

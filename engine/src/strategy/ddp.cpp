// Data parallelism: every rank holds the full model; gradients are averaged over ranks by
// bucketed all-reduce. One world-size-1 run is a valid DDP run: it skips communication entirely
// (sync_rounds and all_reduce are 0), since there is nothing to average.
#include <algorithm>

#include "comm/communicator.h"
#include "strategy/buckets.h"
#include "strategy/strategy.h"

namespace mt {
namespace {

class Ddp final : public Strategy {
 public:
  explicit Ddp(const StrategyOptions& options) : options_(options), comm_(*options.comm) {}

  void prepare(torch::nn::Module& model) override {
    parameters_ = model.parameters();
    torch::NoGradGuard no_grad;
    if (comm_.world_size() > 1)
      for (auto& p : parameters_) comm_.broadcast(p.data_ptr<float>(), p.nbytes(), /*root=*/0);

    std::vector<std::size_t> sizes;
    for (const auto& p : parameters_) sizes.push_back(p.nbytes());
    buckets_ = assign_buckets(sizes, bucket_cap_bytes(options_.bucket_cap_mb));
    if (comm_.world_size() > 1)
      for (const auto& bucket : buckets_)
        flat_buffers_.push_back(torch::empty({static_cast<int64_t>(bucket.bytes / sizeof(float))},
                                             torch::kFloat));
  }

  void after_backward(int micro_index, int micro_count) override {
    const bool last = micro_index + 1 == micro_count;
    if (options_.sync_mode == SyncMode::last && !last) return;
    synchronise_gradients();
  }

  long sync_rounds() const override { return sync_rounds_; }

  StrategyReport report() const override {
    StrategyReport out;
    for (const auto& bucket : buckets_) out.bucket_bytes.push_back(static_cast<int64_t>(bucket.bytes));
    for (const auto& p : parameters_) {
      out.parameter_bytes += static_cast<int64_t>(p.nbytes());
      if (p.grad().defined()) out.gradient_bytes += static_cast<int64_t>(p.grad().nbytes());
    }
    return out;
  }

 private:
  // Accumulated gradients are averaged as a whole: averaging is linear, so syncing after every
  // micro-batch gives the same sum as syncing once after the last.
  void synchronise_gradients() {
    if (comm_.world_size() == 1) return;
    torch::NoGradGuard no_grad;
    const double scale = 1.0 / comm_.world_size();
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
      auto& flat = flat_buffers_[b];
      int64_t offset = 0;
      for (std::size_t index : buckets_[b].parameters) {
        auto& p = parameters_[index];
        if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
        flat.narrow(0, offset, p.numel()).copy_(p.grad().view(-1));
        offset += p.numel();
      }
      comm_.all_reduce_sum(flat.data_ptr<float>(), static_cast<std::size_t>(flat.numel()));
      flat.mul_(scale);
      offset = 0;
      for (std::size_t index : buckets_[b].parameters) {
        auto& p = parameters_[index];
        p.grad().view(-1).copy_(flat.narrow(0, offset, p.numel()));
        offset += p.numel();
      }
    }
    ++sync_rounds_;
  }

  StrategyOptions options_;
  Communicator& comm_;
  std::vector<torch::Tensor> parameters_;
  std::vector<Bucket> buckets_;
  std::vector<torch::Tensor> flat_buffers_;
  long sync_rounds_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_ddp(const StrategyOptions& options) {
  return std::make_unique<Ddp>(options);
}

}  // namespace mt

// Data parallelism: every rank holds the full model; gradients are averaged over ranks by
// bucketed all-reduce, overlapped with backward. Buckets take parameters in reverse order (the
// order their gradients appear), the first one small. Each parameter's .grad is a view into its
// bucket's flat buffer on the model's device, so autograd accumulates straight into what is
// reduced, with no copies. When a bucket's last gradient has been accumulated, a hook marks it
// ready and the shared BucketReducer starts its asynchronous all-reduce; the micro-batch's
// backward ends by waiting for all of them. A world-size-1 run is a valid DDP run that skips
// communication entirely.
#include <optional>

#include "core/comm/communicator.h"
#include "training/model/grad_in_place.h"
#include "training/strategy/bucket_reducer.h"
#include "training/strategy/buckets.h"
#include "training/strategy/grad_hooks.h"
#include "training/strategy/parameter_broadcast.h"
#include "training/strategy/strategy.h"

namespace mt {
namespace {

class Ddp final : public Strategy {
 public:
  explicit Ddp(const StrategyOptions& options)
      : options_(options),
        comm_(*options.comm),
        reducer_(comm_, BucketReduction::all_reduce, options.grad_reduce_type) {}

  void prepare(GptImpl& model) override {
    parameters_ = model.parameters();
    broadcast_parameters(comm_, parameters_);

    std::vector<std::size_t> sizes;
    for (const auto& p : parameters_) sizes.push_back(p.nbytes());
    buckets_ =
        assign_buckets(sizes, bucket_cap_bytes(options_.bucket_cap_mb), bucket_cap_bytes(options_.first_bucket_cap_mb));
    pending_.resize(buckets_.size());
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
      auto flat =
          torch::zeros({static_cast<int64_t>(buckets_[b].bytes / sizeof(float))}, parameters_.front().options());
      int64_t offset = 0;
      for (std::size_t index : buckets_[b].parameters) {
        auto& p = parameters_[index];
        p.mutable_grad() = flat.narrow(0, offset, p.numel()).view(p.sizes());
        offset += p.numel();
        hooks_.after_accumulate(p, [this, b] { on_gradient_ready(b); });
      }
      flat_.push_back(flat);
      reducer_.add_bucket({[this, b] { return flat_[b]; }, {}, {}});
    }
    grads_in_place_.emplace(parameters_);  // every .grad is a bucket view for the whole run
  }

  std::vector<torch::Tensor> optimizer_parameters() override { return parameters_; }
  bool sharded_optimizer() const override { return false; }

  void before_micro_batch(int micro_index, int micro_count) override {
    const bool every = options_.sync_mode == SyncMode::every;
    reducer_.start_micro_batch(comm_.world_size() > 1 && (every || micro_index + 1 == micro_count),
                               every && micro_count > 1);
    for (std::size_t b = 0; b < buckets_.size(); ++b) pending_[b] = buckets_[b].parameters.size();
  }

  void after_backward(int, int) override { reducer_.finish(); }

  void zero_grad() override {
    for (auto& flat : flat_) flat.zero_();
  }
  // The optimizer steps every parameter, and every .grad is a view of the flat buckets, which hold
  // nothing else.
  bool optimizer_may_clear_gradients() const override { return true; }

  std::vector<torch::Tensor> full_parameters() override {
    std::vector<torch::Tensor> out;
    for (const auto& p : parameters_) out.push_back(p.detach().clone());
    return out;
  }

  std::vector<torch::Tensor> full_gradients() override {  // already averaged on every rank
    std::vector<torch::Tensor> out;
    for (const auto& p : parameters_) out.push_back(p.grad().detach().clone());
    return out;
  }

  long sync_rounds() const override { return reducer_.rounds(); }
  double loss_scale() const override { return reducer_.averaging_loss_scale(); }

  // Replicas are equal, so each rank saves 1/N: its slice of every parameter laid end to end in
  // model order (the last slice padded with zeros). A restore writes into that slice; the ranks then
  // gather the slices back into whole parameters.
  std::vector<NamedTensor> model_state() override {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> flat;
    for (const auto& p : parameters_) flat.push_back(p.detach().reshape({-1}));
    const auto all = torch::cat(flat);
    const int64_t slice = slice_numel(), begin = std::min(all.numel(), comm_.rank() * slice);
    const int64_t end = std::min(all.numel(), begin + slice);
    checkpoint_slice_ = torch::zeros({slice}, all.options());
    checkpoint_slice_.narrow(0, 0, end - begin).copy_(all.narrow(0, begin, end - begin));
    return {{"model/parameters", checkpoint_slice_}};
  }
  void after_model_state_loaded() override {
    const int64_t slice = slice_numel();
    auto all = torch::empty({slice * comm_.world_size()}, checkpoint_slice_.options());
    comm_
        .all_gather(checkpoint_slice_.data_ptr<float>(), all.data_ptr<float>(), static_cast<std::size_t>(slice),
                    ElementType::f32)
        ->wait();
    torch::NoGradGuard no_grad;
    int64_t offset = 0;
    for (auto& p : parameters_) {
      p.copy_(all.narrow(0, offset, p.numel()).view(p.sizes()));
      offset += p.numel();
    }
  }
  std::vector<ParameterPlacement> parameter_placements(const std::vector<torch::Tensor>&) override {
    std::vector<ParameterPlacement> out;
    int64_t offset = 0;
    for (const auto& p : parameters_) {
      out.push_back({"model/parameters", offset, slice_numel()});
      offset += p.numel();
    }
    return out;
  }

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
  int64_t slice_numel() const {
    int64_t total = 0;
    for (const auto& p : parameters_) total += p.numel();
    return (total + comm_.world_size() - 1) / comm_.world_size();
  }

  void on_gradient_ready(std::size_t bucket) {
    if (--pending_[bucket] == 0) reducer_.mark_ready(bucket);
  }

  StrategyOptions options_;
  Communicator& comm_;
  BucketReducer reducer_;
  std::vector<torch::Tensor> parameters_;
  std::vector<Bucket> buckets_;
  std::vector<torch::Tensor> flat_;
  torch::Tensor checkpoint_slice_;  // this rank's 1/N of the parameters, as saved and restored
  std::vector<std::size_t> pending_;
  GradHooks hooks_;
  std::optional<GradsAccumulatedInPlace> grads_in_place_;
};

}  // namespace

std::unique_ptr<Strategy> make_ddp(const StrategyOptions& options) { return std::make_unique<Ddp>(options); }

}  // namespace mt

// Gradient reduction by buckets, shared by DDP, ZeRO and FSDP. During backward each bucket is
// marked ready when its last gradient has been accumulated; buckets are launched strictly in
// bucket order (the same on every rank, as collectives require), each as one asynchronous
// collective:
//   all_reduce     the bucket's gradients become their average over ranks (DDP, ZeRO-1);
//   reduce_scatter this rank's shard of the average is added to a shard accumulator (ZeRO-2,
//                  FSDP), after which the bucket's full gradients may be freed.
// Averaging happens before any rounding to bf16, and mostly costs no pass of its own: the loss is
// scaled by averaging_loss_scale() (Strategy::loss_scale), the gradients come out of backward
// divided by the ranks and the reductions sum. Only where an all-reduced bucket keeps its average
// and the next micro-batch's gradients add to it (every micro-batch synced) is each bucket divided
// at launch instead: a plain sum would count the earlier average once per rank.
// bf16 reductions travel through a staging copy.
// Completed buckets are retired on the caller's thread (never on the communication thread) as
// later buckets launch, so a bucket's full gradients are freed as soon as its reduction is done.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <vector>

#include "core/comm/communicator.h"

namespace mt {

enum class BucketReduction { all_reduce, reduce_scatter };

struct ReducedBucket {
  // The bucket's flat gradients at launch time (reduce_scatter: world_size × shard elements).
  std::function<torch::Tensor()> gradients;
  // reduce_scatter only: where this rank's averaged shard is added.
  torch::Tensor shard_accumulator;
  // Runs on the caller's thread once the bucket's reduction is complete and applied.
  std::function<void()> after;
};

class BucketReducer {
 public:
  BucketReducer(Communicator& comm, BucketReduction reduction, ElementType wire_type);

  std::size_t add_bucket(ReducedBucket bucket);
  std::size_t size() const { return buckets_.size(); }

  // Resets readiness for a micro-batch; when `syncing` is false, nothing is reduced this time.
  // `every_of_several`: the step has several micro-batches and each is reduced; all-reduced buckets
  // then keep their averages between them, and are divided at launch instead of by the loss scale.
  void start_micro_batch(bool syncing, bool every_of_several = false);
  // Bucket `index` has all its gradients: launches it and any ready buckets after it, in order.
  void mark_ready(std::size_t index);
  // End of backward: launches every bucket not launched yet (a parameter without a gradient
  // never marks its bucket ready, yet every rank must issue the same collectives), waits for
  // all of them and retires them. Counts one synchronisation round when syncing.
  void finish();

  bool syncing() const { return syncing_; }
  // What the loss must be scaled by for the reductions to average: 1 / ranks, or 1 where each
  // bucket is divided at launch.
  double averaging_loss_scale() const { return divide_at_launch_ ? 1.0 : 1.0 / comm_.world_size(); }
  long rounds() const { return rounds_; }

 private:
  struct InFlight {
    std::size_t bucket;
    WorkHandle work;
    torch::Tensor staging;   // bf16 copy sent, or received shard
    torch::Tensor received;  // reduce_scatter: the reduced shard
  };

  void launch_ready();
  void launch(std::size_t index);
  void retire(InFlight& flight);
  void retire_completed();

  Communicator& comm_;
  BucketReduction reduction_;
  ElementType wire_type_;
  std::vector<ReducedBucket> buckets_;
  std::vector<bool> ready_;
  std::size_t next_to_launch_ = 0;
  std::vector<InFlight> in_flight_;  // in launch order
  bool syncing_ = false;
  bool divide_at_launch_ = false;
  long rounds_ = 0;
};

}  // namespace mt

#include "training/strategy/bucket_reducer.h"

#include <algorithm>

namespace mt {

BucketReducer::BucketReducer(Communicator& comm, BucketReduction reduction, ElementType wire_type)
    : comm_(comm), reduction_(reduction), wire_type_(wire_type) {}

std::size_t BucketReducer::add_bucket(ReducedBucket bucket) {
  buckets_.push_back(std::move(bucket));
  ready_.push_back(false);
  return buckets_.size() - 1;
}

void BucketReducer::start_micro_batch(bool syncing, bool every_of_several) {
  syncing_ = syncing;
  divide_at_launch_ = every_of_several && reduction_ == BucketReduction::all_reduce;
  std::fill(ready_.begin(), ready_.end(), false);
  next_to_launch_ = 0;
}

void BucketReducer::mark_ready(std::size_t index) {
  ready_[index] = true;
  if (!syncing_) return;
  retire_completed();
  launch_ready();
}

void BucketReducer::finish() {
  if (!syncing_) return;
  std::fill(ready_.begin(), ready_.end(), true);
  launch_ready();
  for (auto& flight : in_flight_) {
    flight.work->wait();
    retire(flight);
  }
  in_flight_.clear();
  ++rounds_;
}

void BucketReducer::launch_ready() {
  while (next_to_launch_ < buckets_.size() && ready_[next_to_launch_]) launch(next_to_launch_++);
}

void BucketReducer::launch(std::size_t index) {
  torch::NoGradGuard no_grad;
  ReducedBucket& bucket = buckets_[index];
  torch::Tensor flat = bucket.gradients();
  if (divide_at_launch_) flat.mul_(1.0 / comm_.world_size());  // else divided by the loss scale
  InFlight flight{index, nullptr, {}, {}};
  comm_.set_next_label("bucket " + std::to_string(index));
  const bool bf16 = wire_type_ == ElementType::bf16;
  torch::Tensor send = bf16 ? flat.to(torch::kBFloat16) : flat;
  flight.staging = send;
  const auto count = static_cast<std::size_t>(send.numel());
  if (reduction_ == BucketReduction::all_reduce) {
    flight.work = comm_.all_reduce(send.data_ptr(), count, wire_type_);
  } else {
    const auto shard = count / static_cast<std::size_t>(comm_.world_size());
    flight.received = torch::empty({static_cast<int64_t>(shard)}, send.options());
    flight.work = comm_.reduce_scatter(send.data_ptr(), flight.received.data_ptr(), shard, wire_type_);
  }
  in_flight_.push_back(std::move(flight));
}

void BucketReducer::retire(InFlight& flight) {
  torch::NoGradGuard no_grad;
  ReducedBucket& bucket = buckets_[flight.bucket];
  if (reduction_ == BucketReduction::all_reduce) {
    if (wire_type_ == ElementType::bf16) bucket.gradients().copy_(flight.staging);
  } else {
    bucket.shard_accumulator.add_(flight.received.to(bucket.shard_accumulator.scalar_type()));
  }
  flight.staging = torch::Tensor();
  flight.received = torch::Tensor();
  if (bucket.after) bucket.after();
}

void BucketReducer::retire_completed() {
  // In launch order, and only a completed prefix: later buckets may finish first, but retiring
  // in order keeps the effects (frees, copies) the same on every rank.
  std::size_t done = 0;
  while (done < in_flight_.size() && in_flight_[done].work->test()) retire(in_flight_[done++]);
  in_flight_.erase(in_flight_.begin(), in_flight_.begin() + static_cast<long>(done));
}

}  // namespace mt

// The collective operations strategies and metrics need, independent of the transport.
// Kept free of torch: tensors are passed as raw contiguous buffers.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mt {

// Tensor collectives issued so far, by kind. Scalar reductions used for metrics and control
// (loss averaging, failure flags) are deliberately not counted: they are not gradient traffic.
struct CollectiveCounts {
  long all_reduce = 0;
  long all_gather = 0;
  long reduce_scatter = 0;
  long broadcast = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual void barrier() = 0;

  // Tensor collectives (counted).
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  virtual void all_reduce_sum(float* data, std::size_t count) = 0;

  // Scalar reductions for metrics and control (not counted).
  virtual double all_reduce_max(double value) = 0;
  virtual double all_reduce_min(double value) = 0;
  virtual double all_reduce_sum(double value) = 0;
  // Every rank passes a vector of the same length; rank 0 receives [rank][i], others get {}.
  virtual std::vector<std::vector<double>> gather_to_root(const std::vector<double>& local) = 0;
  // Hostname of every rank, on every rank.
  virtual std::vector<std::string> hostnames() = 0;

  const CollectiveCounts& counts() const { return counts_; }

 protected:
  CollectiveCounts counts_;
};

}  // namespace mt

// The collective operations strategies and metrics need, independent of the transport.
// Kept free of torch: tensors are passed as raw contiguous buffers.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mt {

// Tensor collectives issued so far, by kind. Scalar reductions used for metrics and control
// (loss averaging, failure flags, gradient norms) are deliberately not counted: they are not
// gradient or parameter traffic.
struct CollectiveCounts {
  long all_reduce = 0;
  long all_gather = 0;
  long reduce_scatter = 0;
  long broadcast = 0;
};

// Element types of tensor collectives. bf16 is summed in fp32 and rounded back per element.
enum class ElementType { f32, bf16 };

std::size_t element_bytes(ElementType type);

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual void barrier() = 0;

  // Tensor collectives (counted). Buffers are contiguous arrays of `count` elements.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  virtual void all_reduce_sum(float* data, std::size_t count) = 0;
  // In-place sum over ranks, started now and finished by wait_all(). Buffers must stay alive
  // and untouched until then. Every rank must start the same operations in the same order.
  virtual void start_all_reduce_sum(void* data, std::size_t count, ElementType type) = 0;
  // Lets pending non-blocking operations advance (MPI progresses them only inside MPI calls).
  virtual void progress() = 0;
  virtual void wait_all() = 0;
  // recv holds world_size × count elements; rank r's `send` lands at r × count.
  virtual void all_gather(const void* send, void* recv, std::size_t count, ElementType type) = 0;
  // Non-blocking all-gather, finished by wait_all().
  virtual void start_all_gather(const void* send, void* recv, std::size_t count,
                                ElementType type) = 0;
  // send holds world_size × count elements; recv gets the sum over ranks of block `rank`.
  virtual void reduce_scatter_sum(const void* send, void* recv, std::size_t count,
                                  ElementType type) = 0;

  // Scalar reductions for metrics and control (not counted).
  virtual double all_reduce_max(double value) = 0;
  virtual double all_reduce_min(double value) = 0;
  virtual double all_reduce_sum(double value) = 0;
  // Element-wise sum of a small vector, in place.
  virtual void all_reduce_sum(std::vector<double>& values) = 0;
  // Every rank passes a vector of the same length; rank 0 receives [rank][i], others get {}.
  virtual std::vector<std::vector<double>> gather_to_root(const std::vector<double>& local) = 0;
  // Hostname of every rank, on every rank.
  virtual std::vector<std::string> hostnames() = 0;

  const CollectiveCounts& counts() const { return counts_; }

 protected:
  CollectiveCounts counts_;
};

}  // namespace mt

// Tensor collectives, independent of the transport (MPI on the CPU, NCCL on GPUs). Every
// collective is asynchronous and returns a Work handle; buffers are raw contiguous arrays in the
// memory the backend works on (host memory for MPI, device memory for NCCL) and must stay alive
// and untouched until the handle completes. Every rank must issue the same collectives in the
// same order. The host control channel (control_channel.h) carries scalars and metadata.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/comm/collective_types.h"
#include "core/comm/work.h"

namespace mt {

// A collective algorithm a backend asks its library for instead of leaving the choice to it, and
// why: benchmark results record it, so a ratio against a peer that takes the library's default
// says what was compared.
struct RequestedAlgorithm {
  std::string name;     // "ring"
  std::string how;      // what it does: "reduce-scatter then all-gather, ..."
  std::string instead;  // what the library would pick unasked
  std::string setting;  // how it is asked for: "OMPI_MCA_coll_libnbc_iallreduce_algorithm=1"
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual const char* backend() const = 0;  // "mpi", "nccl"
  virtual bool device_memory() const = 0;   // buffers live on the GPU

  // recv = sum over ranks of send; send == recv is in place.
  virtual WorkHandle all_reduce(const void* send, void* recv, std::size_t count, ElementType type,
                                StreamRef stream = {}) = 0;
  WorkHandle all_reduce(void* data, std::size_t count, ElementType type, StreamRef stream = {}) {
    return all_reduce(data, data, count, type, stream);
  }
  // recv (world_size × count) gets rank r's send at r × count. send may be this rank's own
  // block of recv (in place).
  virtual WorkHandle all_gather(const void* send, void* recv, std::size_t count, ElementType type,
                                StreamRef stream = {}) = 0;
  // send holds world_size × count; recv gets the sum over ranks of block `rank`.
  virtual WorkHandle reduce_scatter(const void* send, void* recv, std::size_t count, ElementType type,
                                    StreamRef stream = {}) = 0;
  virtual WorkHandle broadcast(void* data, std::size_t count, ElementType type, int root, StreamRef stream = {}) = 0;
  // Equal splits: block p (count elements) of send goes to rank p; block p of recv came from p.
  virtual WorkHandle all_to_all(const void* send, void* recv, std::size_t count, ElementType type,
                                StreamRef stream = {}) = 0;
  // Variable splits: send holds send_counts[p] elements for each peer p in peer order; recv gets
  // recv_counts[p] from each p in peer order. Counts must agree pairwise across ranks.
  virtual WorkHandle all_to_all_v(const void* send, const std::vector<std::size_t>& send_counts, void* recv,
                                  const std::vector<std::size_t>& recv_counts, ElementType type,
                                  StreamRef stream = {}) = 0;

  // A communicator over the ranks that pass the same `color` (collective over this one), ordered
  // by `key`: how process groups (tensor-, pipeline-, data-parallel) are made.
  virtual std::unique_ptr<Communicator> split(int color, int key) = 0;

  // The algorithm this backend asks for `collective` ("all_reduce", as collective_name gives);
  // none when the library chooses.
  virtual std::optional<RequestedAlgorithm> requested_algorithm(std::string_view /*collective*/) const {
    return std::nullopt;
  }

  // Blocks the host until every collective issued so far has finished (a no-op where wait()
  // already blocks the host; on GPUs, a stream synchronize): for timing loops.
  virtual void synchronize() {}

  const CollectiveCounts& counts() const { return counts_; }

  // What the next collective is for (e.g. "bucket 3"), shown in its description, timeout messages
  // and profiles. Consumed by the next collective issued.
  void set_next_label(std::string label) { next_label_ = std::move(label); }

 protected:
  std::string take_label() {
    std::string label;
    label.swap(next_label_);
    return label;
  }

  // Counts the collective and returns its sequence number (0, 1, ... per communicator).
  long issue(CollectiveKind kind) {
    ++counts_[kind];
    return sequence_++;
  }

 private:
  CollectiveCounts counts_;
  long sequence_ = 0;
  std::string next_label_;
};

}  // namespace mt

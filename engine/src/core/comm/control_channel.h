// The host control channel: scalars and small metadata between ranks, blocking, never counted as
// training traffic. It exists beside the tensor communicator because NCCL cannot reduce host
// doubles, and because a failure flag must travel even when the device path is stuck.
#pragma once

#include <string>
#include <vector>

namespace mt {

class ControlChannel {
 public:
  virtual ~ControlChannel() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual int local_rank() const = 0;  // rank among the processes on this host
  virtual int local_size() const = 0;

  virtual void barrier() = 0;
  virtual double max(double value) = 0;
  virtual double min(double value) = 0;
  virtual double sum(double value) = 0;
  // Element-wise sum, in place.
  virtual void sum(std::vector<double>& values) = 0;
  // Every rank passes a vector of the same length; rank 0 receives [rank][i], others get {}.
  virtual std::vector<std::vector<double>> gather_to_root(const std::vector<double>& local) = 0;
  // Every rank's text, in rank order, on rank 0 (others get {}): small metadata such as a
  // checkpoint shard's size and digest.
  virtual std::vector<std::string> gather_text_to_root(const std::string& local) = 0;
  // Root's bytes on every rank (resized there): how an ncclUniqueId travels.
  virtual void broadcast_bytes(std::vector<char>& bytes, int root) = 0;
  // Hostname of every rank, on every rank.
  virtual std::vector<std::string> hostnames() = 0;
};

}  // namespace mt

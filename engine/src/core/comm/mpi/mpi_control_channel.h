// The control channel over MPI, on a communicator of its own (a duplicate of MPI_COMM_WORLD), so
// its blocking calls never interleave with the tensor collectives' ordering. Every call waits at
// most the timeout (the job's --collective-timeout): a rank that stops answering aborts the job
// with the operation and its sequence number instead of hanging it.
#pragma once

#include <memory>

#include "core/comm/control_channel.h"

namespace mt {

class MpiControlChannel final : public ControlChannel {
 public:
  MpiControlChannel();  // requires MPI to be initialised
  ~MpiControlChannel() override;

  // Seconds any one call may wait for the other ranks before the job is aborted; 0: no limit.
  void set_timeout(double seconds) { timeout_s_ = seconds; }

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  void barrier() override;
  double max(double value) override;
  double min(double value) override;
  double sum(double value) override;
  void sum(std::vector<double>& values) override;
  std::vector<std::vector<double>> gather_to_root(const std::vector<double>& local) override;
  std::vector<std::string> gather_text_to_root(const std::string& local) override;
  void broadcast_bytes(std::vector<char>& bytes, int root) override;
  std::vector<std::string> hostnames() override;

 private:
  struct Handles;  // the MPI communicators; defined in the .cpp to keep mpi.h out of here
  // Waits for the non-blocking call just started (handles_->request) within the timeout.
  void complete(const char* operation);
  enum class Reduction { max, min, sum };
  double reduce(double value, Reduction reduction);

  std::unique_ptr<Handles> handles_;
  double timeout_s_ = 0;
  long sequence_ = 0;  // calls made so far: names the one that timed out
  int rank_ = 0, world_size_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace mt

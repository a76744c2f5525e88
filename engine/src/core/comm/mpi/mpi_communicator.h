// Tensor collectives over MPI (host memory), on a communicator of their own. Each collective is
// started as a non-blocking MPI operation; a progress thread drives every outstanding one to
// completion (MPI moves data only inside MPI calls), so communication overlaps computation
// without the caller polling.
#pragma once

#include <memory>

#include "core/comm/communicator.h"

namespace mt {

class MpiCommunicator final : public Communicator {
 public:
  // Requires MPI to be initialised with MPI_THREAD_MULTIPLE. A collective not complete after
  // `timeout_s` seconds (0: never) aborts the job.
  explicit MpiCommunicator(double timeout_s);
  std::unique_ptr<Communicator> split(int color, int key) override;
  ~MpiCommunicator() override;

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  const char* backend() const override { return "mpi"; }
  bool device_memory() const override { return false; }
  std::optional<RequestedAlgorithm> requested_algorithm(std::string_view collective) const override;

  using Communicator::all_reduce;
  WorkHandle all_reduce(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override;
  WorkHandle all_gather(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override;
  WorkHandle reduce_scatter(const void* send, void* recv, std::size_t count, ElementType type,
                            StreamRef stream) override;
  WorkHandle broadcast(void* data, std::size_t count, ElementType type, int root, StreamRef stream) override;
  WorkHandle all_to_all(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override;
  WorkHandle all_to_all_v(const void* send, const std::vector<std::size_t>& send_counts, void* recv,
                          const std::vector<std::size_t>& recv_counts, ElementType type, StreamRef stream) override;

 private:
  struct State;  // MPI handles and the progress thread; in the .cpp to keep mpi.h out of here
  explicit MpiCommunicator(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
  int rank_ = 0, world_size_ = 1;
};

}  // namespace mt

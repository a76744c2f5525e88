// Communicator over MPI_COMM_WORLD. MpiSession owns MPI_Init/MPI_Finalize for a process.
#pragma once

#include <memory>

#include "comm/communicator.h"

namespace mt {

class MpiSession {
 public:
  MpiSession();   // MPI_Init unless already initialised
  ~MpiSession();  // MPI_Finalize if this object initialised MPI
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool owns_ = false;
};

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator();  // requires MPI to be initialised
  ~MpiCommunicator() override;

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  void barrier() override;

  void broadcast(void* data, std::size_t bytes, int root) override;
  void all_reduce_sum(float* data, std::size_t count) override;
  void start_all_reduce_sum(void* data, std::size_t count, ElementType type) override;
  void progress() override;
  void wait_all() override;
  void all_gather(const void* send, void* recv, std::size_t count, ElementType type) override;
  void start_all_gather(const void* send, void* recv, std::size_t count,
                        ElementType type) override;
  void reduce_scatter_sum(const void* send, void* recv, std::size_t count,
                          ElementType type) override;

  double all_reduce_max(double value) override;
  double all_reduce_min(double value) override;
  double all_reduce_sum(double value) override;
  void all_reduce_sum(std::vector<double>& values) override;
  std::vector<std::vector<double>> gather_to_root(const std::vector<double>& local) override;
  std::vector<std::string> hostnames() override;

 private:
  int rank_ = 0;
  int world_size_ = 1;
  struct Pending;  // outstanding MPI_Requests; defined in the .cpp to keep mpi.h out of here
  std::unique_ptr<Pending> pending_;
};

// The first line of MPI_Get_library_version (callable before MPI_Init).
std::string mpi_library_version();

// Aborts the whole job with `code` after printing `message` with this rank's identity.
[[noreturn]] void abort_job(const std::string& message, int code);

}  // namespace mt

// MPI for one process: MpiSession owns MPI_Init_thread/MPI_Finalize; abort_job stops every rank.
#pragma once

#include <string>

namespace mt {

class MpiSession {
 public:
  MpiSession();   // MPI_Init_thread(MPI_THREAD_MULTIPLE) unless already initialised
  ~MpiSession();  // MPI_Finalize if this object initialised MPI
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool owns_ = false;
};

// The first line of MPI_Get_library_version (callable before MPI_Init).
std::string mpi_library_version();

// This process's rank in MPI_COMM_WORLD, or -1 before MPI starts.
int world_rank_or_minus_one();
std::string local_hostname();

// Aborts the whole job with `code` after printing `message` with this rank's identity.
[[noreturn]] void abort_job(const std::string& message, int code);

}  // namespace mt

// MPI for one process: MpiSession owns MPI_Init_thread/MPI_Finalize. Stopping the whole job is
// core/process/job_abort.h.
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

}  // namespace mt

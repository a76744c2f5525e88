// Who this process is in its job, and how it stops the whole job: used by every layer that can
// hit a fatal error (the MPI and NCCL communicators, the CUDA device, the workload skeleton), so
// it sits below all of them and knows nothing of communicators.
#pragma once

#include <string>

namespace mt {

// This process's rank in MPI_COMM_WORLD, or -1 before MPI starts (or after it finished).
int world_rank_or_minus_one();
std::string local_hostname();

// Aborts the whole job with `code` after printing `message` with this rank's identity.
[[noreturn]] void abort_job(const std::string& message, int code);

}  // namespace mt

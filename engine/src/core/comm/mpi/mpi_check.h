// Checking MPI calls: a failed call is not recoverable for a benchmark, so the check prints the
// rank, host, call site and MPI's own error text, then aborts the whole job. Internal to comm/.
#pragma once

namespace mt {

void check_mpi(int rc, const char* call, const char* file, int line);

}  // namespace mt

#define MT_MPI_CHECK(call) ::mt::check_mpi((call), #call, __FILE__, __LINE__)

#include "core/process/job_abort.h"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace mt {

std::string local_hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

int world_rank_or_minus_one() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int rank = -1;
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

void abort_job(const std::string& message, int code) {
  std::fprintf(stderr, "mtengine: rank %d (%s): %s\n", world_rank_or_minus_one(), local_hostname().c_str(),
               message.c_str());
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace mt

// What every subcommand that runs as an MPI job is told besides its own flags: the communication
// backend, how long a collective may wait, and where rank 0 writes the result. Each workload's
// configuration embeds one; add_job_options (option_table.h) gives it its flags.
#pragma once

#include <string>

namespace mt {

struct JobOptions {
  std::string backend = "mpi";
  double collective_timeout_s = 300;  // a collective waiting longer aborts the job; 0: never
  std::string output;                 // the result JSON; empty: none is written
};

}  // namespace mt

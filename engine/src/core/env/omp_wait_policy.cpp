#include "core/env/omp_wait_policy.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace mt {
namespace {

// A positive count at the start of `value` ("4", "4,2" for nested levels, Slurm's "2(x3)"), or 0.
int positive_count(const char* value) {
  if (!value || !*value) return 0;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  return (*end == '\0' || *end == ',' || *end == '(') && n > 0 && n < (1 << 20) ? static_cast<int>(n) : 0;
}

int positive_env(const char* name) { return positive_count(std::getenv(name)); }

// The value of the last `--threads N` or `--threads=N` on the command line, or 0.
int threads_flag(int argc, const char* const* argv) {
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = positive_count(argv[++i]);
    } else if (arg.rfind("--threads=", 0) == 0) {
      threads = positive_count(argv[i] + 10);
    }
  }
  return threads;
}

}  // namespace

std::optional<std::string> omp_wait_policy_for(const ThreadLayout& layout) {
  const bool process_oversubscribed = layout.threads_per_rank > layout.cpus_for_process;
  const bool node_oversubscribed =
      static_cast<long>(layout.ranks_on_node) * layout.threads_per_rank > static_cast<long>(layout.cpus_on_node);
  if (process_oversubscribed || node_oversubscribed) return std::string("PASSIVE");
  return std::nullopt;
}

ThreadLayout current_thread_layout(int argc, const char* const* argv) {
  ThreadLayout layout;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) layout.cpus_for_process = CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  layout.cpus_on_node = online > 0 ? static_cast<int>(online) : layout.cpus_for_process;
  // OMP_NUM_THREADS may list one count per nesting level: the first is this pool's.
  int threads = threads_flag(argc, argv);
  if (threads == 0) threads = positive_env("OMP_NUM_THREADS");
  layout.threads_per_rank = threads > 0 ? threads : layout.cpus_for_process;
  for (const char* name :
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "PMIX_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const int ranks = positive_env(name); ranks > 0) {
      layout.ranks_on_node = ranks;
      break;
    }
  }
  return layout;
}

}  // namespace mt

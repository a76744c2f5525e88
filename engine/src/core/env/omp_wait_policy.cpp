#include "core/env/omp_wait_policy.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/env/resources.h"

namespace mt {
namespace {

// The value of the last `--threads N` or `--threads=N` on the command line, or 0 (the flag's own
// meaning: from the environment).
int threads_flag(int argc, const char* const* argv) {
  long threads = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::strtol(argv[++i], nullptr, 10);
    } else if (arg.rfind("--threads=", 0) == 0) {
      threads = std::strtol(argv[i] + 10, nullptr, 10);
    }
  }
  return threads > 0 && threads < (1 << 20) ? static_cast<int>(threads) : 0;
}

}  // namespace

bool wait_passively(const ThreadLayout& layout) {
  const bool process_oversubscribed = layout.threads_per_rank > layout.cpus_for_process;
  const bool node_oversubscribed =
      static_cast<long>(layout.ranks_on_node) * layout.threads_per_rank > static_cast<long>(layout.cpus_on_node);
  return process_oversubscribed || node_oversubscribed;
}

ThreadLayout current_thread_layout(int argc, const char* const* argv) {
  ThreadLayout layout;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) layout.cpus_for_process = CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  layout.cpus_on_node = online > 0 ? static_cast<int>(online) : layout.cpus_for_process;
  // The threads the subcommand will run (train, moe and tp take --threads; 0 or none: the default).
  const int flag = threads_flag(argc, argv);
  layout.threads_per_rank = flag > 0 ? flag : default_threads();
  layout.ranks_on_node = ranks_on_this_node();
  return layout;
}

}  // namespace mt

// How the OpenMP workers of LibTorch's pool (libgomp) wait between parallel regions. Left to
// libgomp (spin a while, then sleep), an idle worker picks up the next region at once; told
// PASSIVE, it sleeps at once and takes about 0.1 ms to wake, for every one of the hundreds of
// small regions a training step runs (a bias gradient's column sum: 14-80 µs spinning, 116-304
// sleeping, 2 threads). On a 2-vCPU AMD EPYC (Zen 4), 1 rank × 2 threads, taking turns: the 23.2M
// model's step 444-491 ms against 496-733, the quick model's 108-140 against 132-178. Spinning
// costs only where the node's ranks × threads outnumber its cores: a spinning worker then holds a
// core another rank's thread needs, and libgomp sees only its own process. So PASSIVE is set
// there, and only there, unless the user chose a policy.
#pragma once

namespace mt {

struct ThreadLayout {
  int threads_per_rank = 1;  // --threads, else default_threads() (resources.h)
  int ranks_on_node = 1;     // ranks_on_this_node()
  int cpus_for_process = 1;  // sched_getaffinity
  int cpus_on_node = 1;      // online CPUs
};

// Whether OpenMP workers should wait passively: where the layout oversubscribes the node's cores
// or this process's own (else libgomp's default).
bool wait_passively(const ThreadLayout& layout);

// This process's layout, from its command line (a positive --threads N), environment and affinity.
ThreadLayout current_thread_layout(int argc, const char* const* argv);

}  // namespace mt

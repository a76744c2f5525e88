#pragma once
// How long a cache line takes to go from one of this machine's CPUs to another and back: two
// threads pinned to two CPUs hand a counter to and fro. On a 2-vCPU AMD EPYC (Zen 4) VM it reads
// about 100 ns most of the time and about 500 ns for seconds at a stretch, with no steal time and no
// other process running; while it does, a bare MPI loop's 1 KiB all-reduce takes 1.2-1.3 µs instead
// of 0.5 (40 launches, each between two readings: the 4 slow launches were exactly those next to a
// 500 ns reading). The host moved or shared the cores under the VM, and every message between ranks
// pays for it. Read before and after an attempt, it tells such an attempt from a quiet one
// (docs/measurement.md, "Conditions").
#include <optional>
#include <vector>

namespace mt {

// The CPUs this process may run on (sched_getaffinity), in order.
std::vector<int> allowed_cpus();

// The round trip in ns between the first of `cpus` and each of up to three others spread over
// the rest (the median of several batches per pair), the largest over those pairs: a job's ranks
// talk across all of them. Nullopt with fewer than two CPUs, where a thread cannot be pinned, or
// where a pair took longer than `budget_ms` (a CPU another process holds: the machine is busy,
// which the CPU rules see).
std::optional<double> core_round_trip_ns(const std::vector<int>& cpus, double budget_ms = 200);

}  // namespace mt

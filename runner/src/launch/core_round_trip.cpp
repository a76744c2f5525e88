#include "launch/core_round_trip.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;

// Each batch is timed as a whole, and a pair's reading is its median batch: a scheduler tick in
// one batch does not move it.
constexpr int kBatches = 15;
constexpr int kRoundTripsPerBatch = 2000;

bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

// The counter and its echo on lines of their own, so that only the handover moves lines.
struct alignas(64) Line {
  std::atomic<long> value{0};
};

// The median batch of round trips between `from` and `to`, in ns per round trip.
std::optional<double> pair_round_trip_ns(int from, int to, Clock::time_point deadline) {
  Line ping, pong;
  std::atomic<bool> stop{false}, echo_pinned{false}, echo_ready{false};
  std::thread echo([&] {
    echo_pinned = pin_to(to);
    echo_ready = true;
    long seen = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const long v = ping.value.load(std::memory_order_acquire);
      if (v != seen) pong.value.store(seen = v, std::memory_order_release);
    }
  });
  std::vector<double> batches;
  const bool pinned = pin_to(from);
  while (!echo_ready.load()) std::this_thread::yield();
  if (pinned && echo_pinned.load()) {
    long v = 0;
    for (int b = 0; b < kBatches && Clock::now() < deadline; ++b) {
      const auto start = Clock::now();
      for (int i = 0; i < kRoundTripsPerBatch; ++i) {
        ping.value.store(++v, std::memory_order_release);
        while (pong.value.load(std::memory_order_acquire) != v) {}
      }
      batches.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kRoundTripsPerBatch);
    }
  }
  stop = true;
  echo.join();
  if (batches.size() < kBatches) return std::nullopt;  // not pinned, or out of time
  std::nth_element(batches.begin(), batches.begin() + kBatches / 2, batches.end());
  return batches[kBatches / 2];
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

std::optional<double> core_round_trip_ns(const std::vector<int>& cpus, double budget_ms) {
  if (cpus.size() < 2) return std::nullopt;
  // The calling thread is pinned while it measures and given its own CPUs back after.
  cpu_set_t own;
  CPU_ZERO(&own);
  const bool kept = pthread_getaffinity_np(pthread_self(), sizeof(own), &own) == 0;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(budget_ms));
  std::optional<double> largest;
  const size_t others = std::min<size_t>(3, cpus.size() - 1);
  for (size_t i = 1; i <= others; ++i) {
    // Spread over the rest: with 64 CPUs, 1 → 21, 42 and 63 apart, across sockets and caches alike.
    const int to = cpus[i * (cpus.size() - 1) / others];
    const auto reading = pair_round_trip_ns(cpus.front(), to, deadline);
    if (!reading) {
      largest.reset();
      break;
    }
    largest = std::max(largest.value_or(0.0), *reading);
  }
  if (kept) pthread_setaffinity_np(pthread_self(), sizeof(own), &own);
  return largest;
}

}  // namespace mt

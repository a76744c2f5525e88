#include "core/comm/mpi/mpi_progress.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "core/comm/mpi/mpi_check.h"
#include "core/process/job_abort.h"

namespace mt {
namespace {

// After this many empty polls the thread sleeps between polls instead of yielding: a waiting
// collective then costs almost no CPU, which on a small machine belongs to the compute threads.
constexpr int kYieldingPolls = 64;
constexpr auto kLongestSleep = std::chrono::microseconds(100);
// A waiter polls flat out for this many polls, then yields between polls (ranks that share a core
// take turns), and after this long sleeps between them: a collective that long loses at most 0.5 %
// to the sleep, and a stuck peer does not cost a core until the timeout.
constexpr int kSpinningPolls = 256;
constexpr auto kYieldingWait = std::chrono::milliseconds(10);
constexpr auto kWaitingSleep = std::chrono::microseconds(50);

// Send-buffer sizes up to which a collective runs as Open MPI's blocking call, inside the call that
// issues it. Measured on 2 ranks of a 2-vCPU Xeon VM (Open MPI 4.1, shared memory), µs, blocking against
// non-blocking: all-reduce 1.0 / 2.8 at 1 KiB and 3.2 / 4.7 at 4 KiB, but 9.1 / 8.2 at 16 KiB and
// 190 / 115 at 1 MiB, where the ring the engine asks for (mpi_algorithms.cpp) pays; the others
// 0.7-0.9 / 1.3-2.4 at 1 KiB, 46 / 98 (all-gather), 56 / 75 (broadcast), 48 / 91 (all-to-all) at
// 1 MiB, and within 15 % either way from 4 MiB. The price is overlap: a 2 MiB all-gather (about
// 100 µs there) no longer runs behind compute, and the caller waits in it for the slowest rank.
// All-to-all runs blocking at every size: in its variable form each rank knows only its own
// sizes, which may lie on either side of any limit, while every rank must make the same choice
// (a lopsided MoE dispatch hung until the timeout). The non-blocking call was no faster at any
// size measured (2 ranks of a 2-vCPU AMD EPYC Zen 4, medians of 9 interleaved runs, non-blocking
// / blocking: 4 MiB 417 / 365 µs, 16 MiB 3.54 / 3.39 ms, 64 MiB 13.7 / 13.6 ms), and the
// engine's callers (MoE dispatch and combine) wait for it at once.
std::size_t blocking_limit_bytes(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_reduce: return std::size_t{8} << 10;
    case CollectiveKind::all_to_all: return std::numeric_limits<std::size_t>::max();
    default: return std::size_t{2} << 20;
  }
}

// Ends the job for a collective that outlasted the timeout, naming it (`what`: its description).
[[noreturn]] void abort_on_timeout(double timeout_s, const std::string& what) {
  abort_job(fmt::format("collective timeout: waited {:g} s for {}; a peer is stuck, slow or "
                        "gone (raise --collective-timeout if this is expected)",
                        timeout_s, what),
            1);
}

}  // namespace

std::string MpiWork::describe() const {
  const auto& d = description_;
  return fmt::format("{} #{} ({} {}{}) on rank {}", collective_name(d.kind), d.sequence, d.count,
                     element_type_name(d.type), d.label.empty() ? "" : ", " + d.label, d.rank);
}

void MpiWork::reuse(MpiWorkDescription description) {
  description_ = std::move(description);
  requests_.clear();
  kept_.clear();
  ran_blocking_ = false;
  own_algorithm_ = nullptr;
  testing_.store(false, std::memory_order_relaxed);
  done_.store(false, std::memory_order_relaxed);
}

void MpiWork::wait() {
  if (!done_.load(std::memory_order_acquire)) progress_.wait(*this);
}

void MpiWork::mark_done() {
  completed_at_ = std::chrono::steady_clock::now();
  done_.store(true, std::memory_order_release);
}

bool MpiWork::test_requests() {
  int flag = 0;
  MT_MPI_CHECK(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE));
  if (flag) mark_done();
  return flag != 0;
}

MpiProgress::MpiProgress(double timeout_s) : timeout_s_(timeout_s), thread_([this] { run(); }) {}

MpiProgress::~MpiProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool MpiProgress::runs_blocking(CollectiveKind kind, std::size_t bytes) { return bytes <= blocking_limit_bytes(kind); }

std::uint64_t MpiProgress::begin_inline(const MpiWork& work) {
  inline_work_.store(&work, std::memory_order_relaxed);
  const std::uint64_t running = inline_calls_.load(std::memory_order_relaxed) + 1;  // only callers write it
  inline_calls_.store(running, std::memory_order_release);
  return running;
}

void MpiProgress::end_inline(std::uint64_t ticket) {
  // Both sides store, then load, sequentially consistent: either the thread sees the call ended, or
  // this caller sees the thread reading its work and waits for it.
  inline_calls_.store(ticket + 1, std::memory_order_seq_cst);
  while (watchdog_reading_.load(std::memory_order_seq_cst)) sched_yield();
}

void MpiProgress::watch_inline() {
  const std::uint64_t calls = inline_calls_.load(std::memory_order_acquire);
  const auto now = std::chrono::steady_clock::now();
  if (calls % 2 == 0 || calls != watched_calls_) {  // none running, or a new one: watched from now
    watched_calls_ = calls;
    watched_since_ = now;
    return;
  }
  if (now - watched_since_ <= std::chrono::duration<double>(timeout_s_)) return;
  watchdog_reading_.store(true, std::memory_order_seq_cst);
  if (inline_calls_.load(std::memory_order_seq_cst) == calls)
    abort_on_timeout(timeout_s_, inline_work_.load(std::memory_order_relaxed)->describe());
  watchdog_reading_.store(false, std::memory_order_seq_cst);
}

void MpiProgress::hand_over(std::shared_ptr<MpiWork> work, std::vector<MPI_Request> requests) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    work->requests_ = std::move(requests);
    outstanding_.push_back(std::move(work));
  }
  wake_.notify_one();
}

void MpiProgress::forget(MpiWork& work) {
  std::lock_guard<std::mutex> lock(mutex_);
  outstanding_.erase(std::remove_if(outstanding_.begin(), outstanding_.end(),
                                    [&](const auto& w) { return w.get() == &work || w->done_.load(); }),
                     outstanding_.end());
}

void MpiProgress::wait(MpiWork& work) {
  forget(work);
  while (!work.try_claim()) sched_yield();  // the thread is testing it in a poll that began before
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  for (int polls = 1; !work.done_.load(std::memory_order_acquire) && !work.test_requests(); ++polls) {
    if (polls < kSpinningPolls) continue;
    const auto waited = Clock::now() - start;
    if (timeout_s_ > 0 && waited > std::chrono::duration<double>(timeout_s_))
      abort_on_timeout(timeout_s_, work.describe());
    if (waited < kYieldingWait) sched_yield();
    else std::this_thread::sleep_for(kWaitingSleep);
  }
  work.release();
}

bool MpiProgress::poll_once() {
  std::vector<std::shared_ptr<MpiWork>> snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot = outstanding_;
  }
  bool any_completed = false;
  for (auto& work : snapshot) {
    if (!work->try_claim()) continue;  // a waiter polls it
    any_completed |= work->done_.load(std::memory_order_acquire) || work->test_requests();
    work->release();
  }
  if (!any_completed) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  outstanding_.erase(std::remove_if(outstanding_.begin(), outstanding_.end(),
                                    [](const auto& w) { return w->done_.load(std::memory_order_acquire); }),
                     outstanding_.end());
  return true;
}

void MpiProgress::run() {
  // With a timeout, the idle thread also wakes every tenth of it (at most a second) to watch a
  // collective run blocking, which it therefore ends at most two such periods late.
  const auto watch_period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::clamp(timeout_s_ / 10, 0.001, 1.0)));
  int idle_polls = 0;
  for (;;) {
    if (timeout_s_ > 0) watch_inline();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto ready = [&] { return stop_ || !outstanding_.empty(); };
      if (timeout_s_ > 0) wake_.wait_for(lock, watch_period, ready);
      else wake_.wait(lock, ready);
      if (stop_) return;
      if (outstanding_.empty()) continue;
    }
    if (poll_once()) {
      idle_polls = 0;
      continue;
    }
    if (++idle_polls < kYieldingPolls) {
      sched_yield();
    } else {
      const auto sleep = std::chrono::microseconds(std::min<long>(idle_polls - kYieldingPolls + 1, 100));
      std::this_thread::sleep_for(std::min<std::chrono::microseconds>(sleep, kLongestSleep));
    }
  }
}

}  // namespace mt

// The thread that drives non-blocking MPI requests to completion, and the Work handles it
// completes. Internal to the MPI communicator; needs MPI_THREAD_MULTIPLE.
//
// Work in flight progresses on the thread, so that a collective overlaps the caller's compute
// (DDP's buckets during backward). A caller that waits takes its work back and polls it itself:
// handing completion over through a condition variable cost a small all-reduce 8-10 µs on two
// ranks against the bare MPI loop's 0.3-1.2.
//
// A small collective runs as the library's blocking call inside the call that issues it, which for
// small messages is several times faster than the non-blocking one (see blocking_limit_bytes in
// the .cpp); overlapping a collective that short buys little. The choice depends on the operation
// and its size only, so every rank makes the same one: MPI never matches a blocking collective
// with a non-blocking one. All-to-all, whose sizes may differ by rank, always runs blocking.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/collective_types.h"
#include "core/comm/work.h"

namespace mt {

class MpiProgress;

// What a collective is, for messages; formatted only when asked (a small collective takes about a
// microsecond, formatting its description a third of that).
struct MpiWorkDescription {
  CollectiveKind kind;
  long sequence;
  std::size_t count;
  ElementType type;
  std::string label;
  int rank;
};

class MpiWork final : public Work {
 public:
  MpiWork(MpiProgress& progress, MpiWorkDescription description)
      : progress_(progress), description_(std::move(description)) {}

  bool test() override { return done_.load(std::memory_order_acquire); }
  void wait() override;
  std::string describe() const override;
  bool ran_blocking() const override { return ran_blocking_; }
  const char* own_algorithm() const override { return own_algorithm_; }
  void set_own_algorithm(const char* name) { own_algorithm_ = name; }  // before it is handed over
  // Known for work the thread or a waiter completed; one that ran blocking completed as the call
  // that issued it returned, which the caller knows without a clock read here.
  std::optional<std::chrono::steady_clock::time_point> completed_at() const override {
    if (!done_.load(std::memory_order_acquire) || ran_blocking_) return std::nullopt;
    return completed_at_;
  }
  CollectiveKind kind() const { return description_.kind; }
  // Keeps `object` alive as long as this work (e.g. argument arrays MPI reads until completion).
  void keep_alive(std::shared_ptr<void> object) { kept_.push_back(std::move(object)); }
  // Makes a completed work that only its communicator holds the work of a new collective, as if
  // made afresh.
  void reuse(MpiWorkDescription description);

 private:
  friend class MpiProgress;
  // Whoever holds `testing_` may test the requests: the progress thread for one poll, or a waiter
  // from when it claims the work until it completes.
  bool try_claim() { return !testing_.exchange(true, std::memory_order_acquire); }
  void release() { testing_.store(false, std::memory_order_release); }
  // Tests the requests once (the caller holds the claim); marks the work done when they are.
  bool test_requests();
  void mark_done();

  MpiProgress& progress_;
  MpiWorkDescription description_;
  std::vector<MPI_Request> requests_;
  std::atomic<bool> testing_{false};
  std::atomic<bool> done_{false};
  bool ran_blocking_ = false;  // written before done_ is set
  const char* own_algorithm_ = nullptr;
  std::chrono::steady_clock::time_point completed_at_;  // written before done_ is set
  std::vector<std::shared_ptr<void>> kept_;
};

class MpiProgress {
 public:
  explicit MpiProgress(double timeout_s);
  double timeout_s() const { return timeout_s_; }
  ~MpiProgress();  // stops the thread; abandons requests still outstanding (the job is ending)

  // Whether a collective of `kind` with `bytes` in this rank's send buffer runs blocking: the same
  // answer on every rank.
  static bool runs_blocking(CollectiveKind kind, std::size_t bytes);
  // Runs `call`, the collective's blocking form, on this thread under the timeout; `work` is
  // complete after. No lock, allocation or clock read: at 1 KiB the call itself takes half a µs.
  template <typename Call>
  void run_blocking(MpiWork& work, Call&& call) {
    const std::uint64_t ticket = begin_inline(work);
    call();
    end_inline(ticket);
    work.ran_blocking_ = true;
    work.done_.store(true, std::memory_order_release);
  }
  // Hands a started collective's requests to the thread, which tests them until they complete.
  void hand_over(std::shared_ptr<MpiWork> work, std::vector<MPI_Request> requests);
  // Returns once `work` has completed, polling it on the calling thread; aborts the job after the
  // timeout, naming the operation.
  void wait(MpiWork& work);

 private:
  void run();
  bool poll_once();            // tests every outstanding work once; true if any completed
  void forget(MpiWork& work);  // takes `work` off the thread's list
  std::uint64_t begin_inline(const MpiWork& work);
  void end_inline(std::uint64_t ticket);
  void watch_inline();  // the thread: aborts the job when one blocking call outlasts the timeout

  double timeout_s_;
  std::mutex mutex_;
  std::condition_variable wake_;  // new work, or stop
  std::vector<std::shared_ptr<MpiWork>> outstanding_;
  // A blocking call cannot time out by itself, so the thread watches it. The caller counts each
  // call's start and end (odd while one runs; one caller at a time, as MPI orders a communicator's
  // collectives) and names its work; the thread aborts the job when
  // it sees the same call running for longer than the timeout. Before it reads the work for the
  // message it raises `watchdog_reading_`, and a caller whose call ended meanwhile does not return
  // (and free the work) until it is lowered.
  std::atomic<std::uint64_t> inline_calls_{0};
  std::atomic<const MpiWork*> inline_work_{nullptr};
  std::atomic<bool> watchdog_reading_{false};
  std::uint64_t watched_calls_ = 0;  // the thread's own: the call it saw running, and since when
  std::chrono::steady_clock::time_point watched_since_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mt

// The thread that drives non-blocking MPI requests to completion, and the Work handles it
// completes. Internal to the MPI communicator; needs MPI_THREAD_MULTIPLE.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/work.h"

namespace mt {

class MpiProgress;

class MpiWork final : public Work {
 public:
  MpiWork(MpiProgress& progress, std::string description) : progress_(progress), description_(std::move(description)) {}

  bool test() override { return done_.load(std::memory_order_acquire); }
  void wait() override;
  std::string describe() const override { return description_; }
  std::optional<std::chrono::steady_clock::time_point> completed_at() const override {
    if (!done_.load(std::memory_order_acquire)) return std::nullopt;
    return completed_at_;
  }
  // Keeps `object` alive as long as this work (e.g. argument arrays MPI reads until completion).
  void keep_alive(std::shared_ptr<void> object) { kept_.push_back(std::move(object)); }

 private:
  friend class MpiProgress;
  MpiProgress& progress_;
  std::string description_;
  std::vector<MPI_Request> requests_;  // tested only by the progress thread once submitted
  std::atomic<bool> done_{false};
  std::chrono::steady_clock::time_point completed_at_;  // written before done_ is set
  std::vector<std::shared_ptr<void>> kept_;
};

class MpiProgress {
 public:
  explicit MpiProgress(double timeout_s);
  double timeout_s() const { return timeout_s_; }
  ~MpiProgress();  // stops the thread; abandons requests still outstanding (the job is ending)

  // Hands the work's started requests to the progress thread.
  std::shared_ptr<MpiWork> submit(std::shared_ptr<MpiWork> work, std::vector<MPI_Request> requests);
  // Blocks until `work` completes; aborts the job after the timeout, naming the operation.
  void wait(MpiWork& work);

 private:
  void run();
  bool poll_once();  // tests every outstanding work once; true if any completed

  double timeout_s_;
  std::mutex mutex_;
  std::condition_variable wake_;       // new work, or stop
  std::condition_variable completed_;  // some work completed
  std::vector<std::shared_ptr<MpiWork>> outstanding_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mt

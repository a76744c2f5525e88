#include "core/comm/mpi/mpi_progress.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <chrono>

#include "core/comm/mpi/mpi_check.h"
#include "core/process/job_abort.h"

namespace mt {
namespace {

// After this many empty polls the thread sleeps between polls instead of yielding: a waiting
// collective then costs almost no CPU, which on a small machine belongs to the compute threads.
constexpr int kYieldingPolls = 64;
constexpr auto kLongestSleep = std::chrono::microseconds(100);

}  // namespace

void MpiWork::wait() {
  if (!test()) progress_.wait(*this);
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

std::shared_ptr<MpiWork> MpiProgress::submit(std::shared_ptr<MpiWork> work, std::vector<MPI_Request> requests) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    work->requests_ = std::move(requests);
    outstanding_.push_back(work);
  }
  wake_.notify_one();
  return work;
}

void MpiProgress::wait(MpiWork& work) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto done = [&] { return work.done_.load(std::memory_order_acquire); };
  if (timeout_s_ <= 0) {
    completed_.wait(lock, done);
    return;
  }
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s_));
  if (!completed_.wait_until(lock, deadline, done)) {
    lock.unlock();
    abort_job(fmt::format("collective timeout: waited {:g} s for {}; a peer is stuck, slow or "
                          "gone (raise --collective-timeout if this is expected)",
                          timeout_s_, work.describe()),
              1);
  }
}

bool MpiProgress::poll_once() {
  std::vector<std::shared_ptr<MpiWork>> snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot = outstanding_;
  }
  std::vector<MpiWork*> finished;
  for (auto& work : snapshot) {
    int flag = 0;
    MT_MPI_CHECK(
        MPI_Testall(static_cast<int>(work->requests_.size()), work->requests_.data(), &flag, MPI_STATUSES_IGNORE));
    if (flag) finished.push_back(work.get());
  }
  if (finished.empty()) return false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    for (MpiWork* work : finished) {
      work->completed_at_ = now;
      work->done_.store(true, std::memory_order_release);
    }
    outstanding_.erase(
        std::remove_if(outstanding_.begin(), outstanding_.end(), [](const auto& w) { return w->done_.load(); }),
        outstanding_.end());
  }
  completed_.notify_all();
  return true;
}

void MpiProgress::run() {
  int idle_polls = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !outstanding_.empty(); });
      if (stop_) return;
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

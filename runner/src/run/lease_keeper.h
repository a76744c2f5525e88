#pragma once
// Keeps this runner's campaign lease alive while the campaign runs: a thread with a connection of
// its own renews it every tenth of its lifetime, so runners on other hosts see it as held however
// long a trial takes. Should the lease be taken over anyway (this process was stopped for longer
// than the lifetime), lost() turns true and the campaign stops launching.
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "store/lease.h"

namespace mt {

class LeaseKeeper {
 public:
  LeaseKeeper(std::filesystem::path db, std::string campaign_id, RunnerId holder);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  const std::atomic<bool>& lost() const { return lost_; }

 private:
  void renew_until_stopped();

  std::filesystem::path db_;
  std::string campaign_id_;
  RunnerId holder_;
  std::atomic<bool> lost_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mt

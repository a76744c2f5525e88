#include "run/lease_keeper.h"

#include <chrono>
#include <ctime>

namespace mt {

LeaseKeeper::LeaseKeeper(std::filesystem::path db, std::string campaign_id, RunnerId holder)
    : db_(std::move(db)),
      campaign_id_(std::move(campaign_id)),
      holder_(std::move(holder)),
      thread_([this] { renew_until_stopped(); }) {}

LeaseKeeper::~LeaseKeeper() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void LeaseKeeper::renew_until_stopped() {
  const auto interval = std::chrono::seconds(CampaignLease::kLifetimeSeconds / 10);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
    try {
      Database db(db_, Database::Mode::ReadWrite);
      if (!renew_lease(db, campaign_id_, holder_, std::time(nullptr))) {
        lost_ = true;
        return;
      }
    } catch (const std::exception&) {  // busy or briefly unreadable: the next round tries again
    }
  }
}

}  // namespace mt

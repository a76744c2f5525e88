#pragma once
// Campaign leases: one mtrun runs a campaign at a time. The lease names its holder (host, PID,
// process start time); it binds while the holder lives — on this host, while that PID runs with
// that start time; from another host, until it expires unless renewed. A lease whose holder is
// gone is taken over, and the attempts that holder left `running` become `interrupted`.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "store/sqlite_db.h"

namespace mt {

struct RunnerId {
  std::string host;
  std::int64_t pid = 0;
  std::string start;  // the process's start time in clock ticks since boot (/proc/PID/stat)

  static RunnerId self();
  bool operator==(const RunnerId& o) const { return host == o.host && pid == o.pid && start == o.start; }
};

// This machine's host name, as leases and attempts record it.
std::string this_host();

// Start time of process `pid` on this host, or "" when it does not run.
std::string process_start(std::int64_t pid);

struct Lease {
  std::string campaign_id;
  RunnerId holder;
  std::string acquired_at;
  std::int64_t expires_at = 0;  // Unix time

  // Still binding at `now` (Unix time), judged from `host`.
  bool live(const std::string& host, std::int64_t now) const;
};

// The campaign's lease, if any (none in a database older than leases).
std::optional<Lease> read_lease(Database& db, const std::string& campaign_id);

// Whether an attempt recorded as running by `runner_host`/`runner_pid` still has a live runner.
bool attempt_runner_alive(Database& db, const std::string& campaign_id, const std::string& runner_host,
                          std::int64_t runner_pid, std::int64_t now);

// Why an attempt recorded as running is not: "mtrun (pid 12 on node7) is gone; the next `mtrun run` or
// `mtrun rerun --failed` runs this trial again", as status, the summary and reports say it.
std::string gone_runner_reason(const std::string& runner_host, std::int64_t runner_pid);

// Held for the lifetime of the object; released by the destructor.
class CampaignLease {
 public:
  static constexpr int kLifetimeSeconds = 300;  // renewed every kLifetimeSeconds / 10 by the holder

  // Claims `campaign_id` for `me` in an immediate transaction. When another live runner holds it,
  // throws RunnerError (failure) naming the holder. Running attempts of the campaign left by a
  // gone holder become interrupted (see interrupted()).
  CampaignLease(Database& db, std::string campaign_id, RunnerId me, std::int64_t now);
  ~CampaignLease();
  CampaignLease(const CampaignLease&) = delete;
  CampaignLease& operator=(const CampaignLease&) = delete;

  // Attempts found running at the claim and marked interrupted.
  int interrupted() const { return interrupted_; }

  const std::string& campaign_id() const { return campaign_id_; }
  const RunnerId& holder() const { return me_; }

 private:
  void refuse_if_held(std::int64_t now);

  Database& db_;
  std::string campaign_id_;
  RunnerId me_;
  int interrupted_ = 0;
};

// Extends `me`'s lease of the campaign to now + lifetime. False when it is no longer `me`'s (it
// expired and another runner took it over).
bool renew_lease(Database& db, const std::string& campaign_id, const RunnerId& me, std::int64_t now);

}  // namespace mt

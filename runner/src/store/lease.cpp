#include "store/lease.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "runner_error.h"
#include "store/store.h"

namespace mt {
namespace {

// True if `pid` on this host is an mtrun: all a database from before leases allows to check.
bool is_mtrun(std::int64_t pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  return std::getline(comm, name) && name == "mtrun";
}

}  // namespace

std::string this_host() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string process_start(std::int64_t pid) {
  if (pid <= 0) return "";
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return "";
  const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return "";
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {  // field 22: starttime
    if (i == 22) return field;
  }
  return "";
}

RunnerId RunnerId::self() {
  const auto pid = std::int64_t(::getpid());
  return {this_host(), pid, process_start(pid)};
}

bool Lease::live(const std::string& host, std::int64_t now) const {
  if (holder.host == host) return !holder.start.empty() && process_start(holder.pid) == holder.start;
  return now <= expires_at;
}

std::optional<Lease> read_lease(Database& db, const std::string& campaign_id) {
  if (!db.has_table("leases")) return std::nullopt;
  auto s = db.prepare(
      "SELECT holder_host, holder_pid, holder_start, acquired_at, expires_at FROM leases "
      "WHERE campaign_id = ?");
  s.bind(1, campaign_id);
  if (!s.step()) return std::nullopt;
  return Lease{campaign_id, {s.text(0), s.integer(1), s.text(2)}, s.text(3), s.integer(4)};
}

std::string gone_runner_reason(const std::string& runner_host, std::int64_t runner_pid) {
  return fmt::format(
      "mtrun (pid {} on {}) is gone; the next `mtrun run` or `mtrun rerun --failed` runs this trial again", runner_pid,
      runner_host);
}

bool attempt_runner_alive(Database& db, const std::string& campaign_id, const std::string& runner_host,
                          std::int64_t runner_pid, std::int64_t now) {
  if (!db.has_table("leases")) return runner_host != this_host() || is_mtrun(runner_pid);
  auto lease = read_lease(db, campaign_id);
  return lease && lease->holder.host == runner_host && lease->holder.pid == runner_pid && lease->live(this_host(), now);
}

CampaignLease::CampaignLease(Database& db, std::string campaign_id, RunnerId me, std::int64_t now)
    : db_(db), campaign_id_(std::move(campaign_id)), me_(std::move(me)) {
  // First without the write lock, which the holder may keep for a while (registering a large plan):
  // a refusal should not wait for it. Then again inside the transaction that takes the lease.
  refuse_if_held(now);
  Transaction tx(db_);
  refuse_if_held(now);
  db_.prepare(
         "INSERT OR REPLACE INTO leases (campaign_id, holder_host, holder_pid, holder_start, acquired_at, "
         "expires_at) VALUES (?, ?, ?, ?, ?, ?)")
      .bind(1, campaign_id_)
      .bind(2, me_.host)
      .bind(3, me_.pid)
      .bind(4, me_.start)
      .bind(5, utc_now())
      .bind(6, now + kLifetimeSeconds)
      .run();
  // Nobody else can be running this campaign's trials now: what is still `running` was left behind.
  db_.prepare(
         "UPDATE attempts SET state = 'interrupted', finished_at = ?, error_reason = 'mtrun (pid ' || "
         "runner_pid || ' on ' || runner_host || ') stopped while this trial was running' "
         "WHERE state = 'running' AND trial_id IN (SELECT id FROM trials WHERE campaign_id = ?)")
      .bind(1, utc_now_ms())
      .bind(2, campaign_id_)
      .run();
  interrupted_ = db_.changes();
  tx.commit();
}

void CampaignLease::refuse_if_held(std::int64_t now) {
  auto held = read_lease(db_, campaign_id_);
  if (held && !(held->holder == me_) && held->live(me_.host, now)) {
    throw RunnerError(kExitFailure,
                      fmt::format("campaign {} is already being run by mtrun (pid {} on {}, since {}); one runner "
                                  "runs a campaign at a time: wait for it to finish, or stop it",
                                  campaign_id_, held->holder.pid, held->holder.host, held->acquired_at));
  }
}

CampaignLease::~CampaignLease() {
  try {
    db_.prepare("DELETE FROM leases WHERE campaign_id = ? AND holder_host = ? AND holder_pid = ? AND holder_start = ?")
        .bind(1, campaign_id_)
        .bind(2, me_.host)
        .bind(3, me_.pid)
        .bind(4, me_.start)
        .run();
  } catch (...) {  // left behind, it is recovered as soon as this process is gone
  }
}

bool renew_lease(Database& db, const std::string& campaign_id, const RunnerId& me, std::int64_t now) {
  db.prepare(
        "UPDATE leases SET expires_at = ? WHERE campaign_id = ? AND holder_host = ? AND holder_pid = ? AND "
        "holder_start = ?")
      .bind(1, now + CampaignLease::kLifetimeSeconds)
      .bind(2, campaign_id)
      .bind(3, me.host)
      .bind(4, me.pid)
      .bind(5, me.start)
      .run();
  return db.changes() == 1;
}

}  // namespace mt

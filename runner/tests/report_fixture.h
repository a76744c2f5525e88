#pragma once
// Small results databases for report tests, written through the Store API as `mtrun run` writes
// them (provenance rows with plain SQL, as the capture code would).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "store/store.h"

namespace mt::testing {

struct FixtureTrial {
  std::string campaign = "c1";
  std::string study = "study";
  std::string workload = "train";
  std::map<std::string, std::string> params;  // every resolved parameter; ranks defaults to 1
  std::vector<std::string> axes;
  std::map<std::string, std::string> environment;  // variables the trial sets (its env.NAME values)
  int repeat = 0;
  AttemptState state = AttemptState::Succeeded;
  nlohmann::json result = nlohmann::json::object();  // metrics are flattened from it and rows kept, as ingest does
  std::optional<int> error_rank;
  std::optional<int> error_step;
  std::string error_reason;
  std::string command;             // as recorded; empty: "mpirun -np RANKS mtengine WORKLOAD"
  std::vector<AttemptFile> files;  // kept with the attempt (a profiled attempt's traces)
  BeforeLaunch before;             // what mtrun did before the launch (--settle, --wait-quiet)
};

struct FixtureProvenance {
  std::string source_commit = "1111111111111111111111111111111111111111";
  bool tree_dirty = false;
  std::string diff_hash;
  std::string build_revision = "1111111111111111111111111111111111111111";
  std::string image_id = "sha256:aaaa";  // empty: bare metal
  std::string engine_binary_hash;        // bare metal: the engine's hash when mtengine ran
  std::string software_stack = R"({"libtorch":"1.13.1","mpi":"Open MPI 4.1.4","compiler":"GCC 12.2.0"})";
  bool complete = true;
  std::string missing_fields = "[]";
};

// A training result as mtengine writes it (the fields reports read), from a 16-core node where each
// rank runs 2 threads, 30 measured steps after 2 warmup steps.
nlohmann::json train_result(const std::string& strategy, int ranks, double tokens_per_sec, double step_ms,
                            double peak_mb, const std::string& sync = "auto", const std::string& resolved = "last");

// The environment such a result reports.
nlohmann::json machine_environment();

// A training trial of `study` with the result train_result() writes; `sync` adds the gradient sync
// mode as an axis.
FixtureTrial train_trial(const std::string& study, const std::string& strategy, int ranks, int repeat, double tokens,
                         double step_ms, double peak_mb, const std::string& sync = "");

// A peer framework run as a `command` study: a training result with throughput and step time only.
FixtureTrial peer_trial(const std::string& study, int ranks, int repeat, double tokens, double step_ms);

class ReportFixture;
// The report of the fixture's latest campaign.
RenderedReport render_latest(const ReportFixture& fixture, bool allow_mixed = false, const std::string& plot_dir = "");

// `mtrun compare A B` over the fixture's database.
std::string render_comparison_of(const ReportFixture& fixture, const std::string& a, const std::string& b);

// What every reader of `db` makes of its campaign "damaged" pooled with its campaign "intact" (whose
// data alone is `intact`): the loaded data, the report with its plots (drawn into memory; other
// revisions reported beside), the answers, and the comparison with the intact campaign. Empty when
// all of them read it, else what went wrong.
std::string read_with_every_reader(Database& db, const ReportData& intact);

bool contains(const std::string& text, const std::string& part);

// `actual` against tests/golden/NAME, byte for byte (a doctest check). Set MT_UPDATE_GOLDEN=1 to
// rewrite the golden file from the current output instead (then review the diff).
void check_golden(const std::string& name, const std::string& actual);

// Campaign c1: an engine study 20 % faster than a peer study (run as a `command` workload that reports
// throughput and step time only), both DDP at 1 and 2 ranks with three repeats.
void engine_and_peer_campaign(ReportFixture& fixture);

// DDP at 1 and 2 ranks, four repeats each, added round by round to `campaign` (a campaign of
// `fixture` already): each round's step time `growth` × the round more than the first's (0: level),
// for the drift over a campaign (campaign_drift.h). Pin the timestamps after adding them all.
void rounds_with_growth(ReportFixture& fixture, const std::string& campaign, double growth);

// Records that `attempt` ran on a disturbed machine (another process used 80 % of a core), as the
// runner records a machine's conditions.
void mark_disturbed(ReportFixture& fixture, std::int64_t attempt);

class ReportFixture {
 public:
  explicit ReportFixture(const std::string& name);
  Store& store() { return store_; }
  const std::filesystem::path& path() const { return path_; }

  void campaign(const std::string& id, const std::string& experiment = "exp",
                const std::string& created_at = "2024-05-01T10:00:00Z");
  // Adds the trial and one finished attempt; returns the attempt id.
  std::int64_t trial(const FixtureTrial& trial);
  // The same, in campaign `campaign`.
  std::int64_t trial(FixtureTrial trial, const std::string& campaign);
  void provenance(std::int64_t attempt_id, const FixtureProvenance& p);
  // Attempt timestamps are the wall clock when written; pin them so output can be compared byte for byte.
  void pin_timestamps();

 private:
  std::filesystem::path path_;
  Store store_;
  int ordinal_ = 0;
};

}  // namespace mt::testing

#pragma once
// Collective measurements as result rows carry them (mtengine comm and the peers that write its
// rows: one row per operation, message size, placement and all-to-all split), gathered over the
// repeats of each group: per study, rank count, operation, variant and size, the latency, algbw and
// busbw of every repeat. Which study is the engine and which a peer, the peers' goals, the ratios
// between them and the cliffs of each curve are read from here.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "stats.h"

namespace mt {

// One study's repeats of one measurement.
struct CommPoint {
  std::vector<double> latency_us, algbw_gbps, busbw_gbps;
  std::optional<double> worst_wrong;  // most wrong output elements over the repeats
  std::string unsupported;            // why a peer could not measure this form; empty when it did
  std::vector<const ReportTrial*> trials;
};

// An algorithm an engine study asked its library for (its results' `requested_algorithms`).
struct CommAlgorithm {
  std::string name;     // "ring"
  std::string how;      // what it does
  std::string instead;  // what the library would pick unasked
};

// A column of the comparison: one study (with its other axes) across rank counts.
struct CommStudy {
  std::string label;           // the group's label: study and axes other than ranks
  bool engine = false;         // mtengine itself (an engine workload), not a peer program
  std::string implementation;  // the result's `implementation` ("bare_mpi", "gloo"); "mtengine" for the engine
  std::string version;         // what its numbers depend on: "Open MPI v4.1.4", "PyTorch 2.15.0"
  std::map<std::string, CommAlgorithm> requested;  // per operation; empty where the library chose
  // The largest freed block the program kept in its heap for reuse, the least over the study's
  // trials (environment.freed_memory_kept_bytes; a trial that did not say counts 0).
  std::optional<int64_t> freed_memory_kept_bytes;
  int64_t freed_memory_kept() const { return freed_memory_kept_bytes.value_or(0); }
  // The MPI thread level its results record ("single", "multiple"; the first seen), else "".
  std::string mpi_thread_level;
  // Heap address space advised for transparent huge pages, the least over the study's trials
  // (environment.heap_huge_pages_bytes; a trial that did not say counts 0).
  std::optional<int64_t> heap_huge_pages_bytes;
  int64_t heap_huge_pages() const { return heap_huge_pages_bytes.value_or(0); }
  // Every trial ran on huge pages: its heap advised for them, or glibc told to advise its blocks
  // (environment.malloc_huge_pages).
  std::optional<bool> all_on_huge_pages;
  bool on_huge_pages() const { return all_on_huge_pages.value_or(false); }
};

// A curve: one operation in one variant at one rank count.
struct CommSeriesKey {
  int operation_order = 0;  // the order operations first appear in: the order they ran in
  std::string operation;
  int ranks = 1;
  std::string variant;  // "in_place", "out_of_place", "out_of_place uneven", …
  bool operator<(const CommSeriesKey& o) const;
};

// Size -> study index -> the study's repeats at that size.
using CommCurve = std::map<double, std::map<size_t, CommPoint>>;

struct CommData {
  std::vector<CommStudy> studies;  // engine studies first, then peers, each in order of appearance
  std::map<CommSeriesKey, CommCurve> series;
  std::map<int, bool> oversubscribed;  // per rank count: did any study's job share cores
  bool oversubscribes(int ranks) const {
    auto it = oversubscribed.find(ranks);
    return it != oversubscribed.end() && it->second;
  }
  // Per rank count: the memory copy rate one thread of each engine job measured at its start
  // (environment.memory_copy_gbps_per_thread, GB/s read plus written); peers do not probe.
  std::map<int, std::vector<double>> copy_gbps_per_thread;
  // Per study: the repeats of each of its groups (rank counts), distinct values: "3", or "3, 2/3"
  // when some group has fewer successful repeats than it ran.
  std::map<size_t, std::string> n_text;
};

// Whether a group's results carry rows (else it is a one-measurement-per-trial group).
bool has_result_rows(const Group& group);

CommData collect_comm_rows(const std::vector<const Group*>& groups);

// The goal an engine study has against a peer, as a minimum busbw ratio (engine ÷ peer), by the
// peer's implementation: bare MPI 0.95 (at most 5 % overhead), Gloo 5; none for others.
std::optional<double> peer_goal(const std::string& implementation);
// The goal below kRatioMinBytes, where a call costs its fixed overhead, as a maximum latency ratio
// (engine ÷ peer): bare MPI 1.5 (the engine's queue, progress thread and checks add at most half
// again what the library itself takes); none for others.
std::optional<double> peer_latency_goal(const std::string& implementation);
// Ratios and goals apply from this message size on.
inline constexpr double kRatioMinBytes = 1 << 20;
// A size whose mean busbw is below (1 − kCliffDrop) × that of the next smaller size is a cliff.
inline constexpr double kCliffDrop = 0.30;

struct CommRatio {
  double ratio = 0;              // mean of the engine's repeats ÷ the peer's
  bool repeated = false;         // both sides measured it in two or more repeats
  std::optional<Interval> ci95;  // of the ratio of means, Fieller, when repeated and bounded
};
// Engine ÷ peer busbw at one size; nullopt unless both measured it.
std::optional<CommRatio> busbw_ratio(const CommPoint& engine, const CommPoint& peer);
// Engine ÷ peer latency at one size; nullopt unless both measured it.
std::optional<CommRatio> latency_ratio(const CommPoint& engine, const CommPoint& peer);

// Where a ratio lies against a goal: its whole 95 % interval on the goal's side of it (met), all of
// it on the other side (missed), or the interval straddling it (undecided; more repeats narrow it,
// where a spread of the repeats themselves would not). Repeated without a bounded interval (the
// peer's mean not clearly away from zero) is undecided; a side with one repeat has no interval, and
// the ratio itself decides. A busbw goal is a floor (at or above it meets it), a latency goal a
// ceiling (at or below it).
enum class GoalMark { Met, Missed, Undecided };
GoalMark goal_mark(const CommRatio& ratio, double goal);
GoalMark ceiling_mark(const CommRatio& ratio, double ceiling);
// "✓", "✗", "≈".
const char* goal_mark_text(GoalMark mark);

// The engine study `engine` against the peer `peer` on one curve: the busbw ratio (with its spread)
// at every size from kRatioMinBytes that both measured, the latency ratio below it, and the goals the
// peer's implementation sets for each. A curve whose ranks oversubscribed the cores is not judged:
// there the bare loop spins while the engine yields, so the ratio measures the scheduler.
struct CommGoalCheck {
  CommSeriesKey series;
  size_t engine = 0, peer = 0;
  std::vector<CommRatio> ratios;       // busbw, from kRatioMinBytes
  std::vector<CommRatio> latency;      // below kRatioMinBytes
  std::optional<double> goal;          // busbw floor
  std::optional<double> latency_goal;  // latency ceiling
  bool oversubscribed = false;
  bool judged() const { return goal && !oversubscribed && !ratios.empty(); }
  size_t sizes_below_goal() const;  // clearly below (the whole interval); 0 when not judged
  size_t sizes_undecided() const;   // the interval straddles the goal; 0 when not judged
  bool met() const { return judged() && sizes_below_goal() == 0 && sizes_undecided() == 0; }
  double lowest() const;   // of the busbw ratios; only where there are any
  double highest() const;  // likewise
  bool latency_judged() const { return latency_goal && !oversubscribed && !latency.empty(); }
  // Latency sizes by their mark against latency_goal; 0 when not latency_judged().
  size_t latency_sizes(GoalMark mark) const;
  // The latency verdict of the whole curve: missed where any size missed, else undecided where any
  // straddled, else met; nullopt when not latency_judged().
  std::optional<GoalMark> latency_verdict() const;
  std::vector<double> latency_ratios() const;  // the means, size by size
};
// Engine studies against the peers, as index pairs (engine first).
std::vector<std::pair<size_t, size_t>> engine_peer_pairs(const CommData& data);
// Every curve and pair with at least one ratio (busbw or latency), in series order.
std::vector<CommGoalCheck> goal_checks(const CommData& data);

struct CommCliff {
  CommSeriesKey series;
  size_t study = 0;
  double bytes = 0, previous_bytes = 0;
  double busbw = 0, previous_busbw = 0;  // means
};
std::vector<CommCliff> find_cliffs(const CommData& data);

// "0.52", "15", "0.00049": a ratio with two decimals, none from 10, two significant digits below 0.1
// (so that a ratio of 0.0004 does not read as 0).
std::string ratio_text(double ratio);
// "0.52×", "15×", or a range of them "0.52–3.18×": ratios as summaries and goal tables show them.
std::string ratio_range_text(const std::vector<double>& ratios);

// "4 KiB", "64 MiB" for exact binary multiples, else "1048580 B".
std::string size_text(double bytes);

}  // namespace mt

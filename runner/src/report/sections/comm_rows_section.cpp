#include "report/sections/comm_rows_section.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/sections/comm_ceiling_section.h"
#include "report/model/comm_rows.h"
#include "report/render/markdown_table.h"

namespace mt {
namespace {

constexpr int kBandwidthDecimals = 3;
constexpr int kLatencyDecimals = 1;
constexpr const char* kNotRecordedVersion = "version not recorded";

std::string ranks_cell(const CommData& data, int ranks) {
  return data.oversubscribes(ranks) ? fmt::format("{} {}", ranks, kOversubscribedMark) : std::to_string(ranks);
}

std::string wrong_mark(const CommPoint& p) {
  if (!p.worst_wrong || *p.worst_wrong == 0) return "";
  return fmt::format(" ✗{} wrong", fixed(*p.worst_wrong, 0));
}

std::string versioned(const CommStudy& s) {
  return s.version.empty() ? code(s.label) : fmt::format("{} ({})", code(s.label), s.version);
}

std::string goal_text(const std::optional<double>& goal) { return goal ? "≥ " + fixed(*goal, 2) + "×" : "-"; }

const CommPoint* point_of(const std::map<size_t, CommPoint>& points, size_t study) {
  auto it = points.find(study);
  return it == points.end() ? nullptr : &it->second;
}

std::string studies_line(const CommData& data) {
  std::string out;
  for (size_t s = 0; s < data.studies.size(); ++s) {
    const CommStudy& study = data.studies[s];
    std::string what = study.engine
                           ? "the engine"
                           : "peer " + (study.implementation.empty() ? std::string("?") : study.implementation);
    out += fmt::format("{}{} ({}, {}, n = {} per rank count)", out.empty() ? "" : "; ", code(study.label), what,
                       study.version.empty() ? kNotRecordedVersion : study.version, data.n_text.at(s));
  }
  return "Studies: " + out + ".\n\n";
}

std::string verdict_text(const CommGoalCheck& c) {
  if (c.ratios.empty()) return "-";  // no size from kRatioMinBytes
  if (!c.goal) return "no goal";
  if (c.oversubscribed) return "not judged: " + std::string(kOversubscribedMark);
  const size_t below = c.sizes_below_goal(), undecided = c.sizes_undecided();
  if (below == 0 && undecided == 0) return "met ✓";
  if (below > 0) return fmt::format("missed ✗ at {} of {} sizes", below, c.ratios.size());
  return fmt::format("undecided ≈ at {} of {} sizes", undecided, c.ratios.size());
}

// The latency ratios below kRatioMinBytes with the curve's verdict against the peer's latency goal:
// "0.52–1.20× ≤ 1.50× met ✓", "0.37–3.80× ≤ 1.50× undecided ≈ at 1 of 5 sizes"; the ratios alone
// where there is no goal or the curve is not judged.
std::string latency_cell(const CommGoalCheck& c) {
  const std::string ratios = ratio_range_text(c.latency_ratios());
  const auto verdict = c.latency_verdict();
  if (!verdict) return ratios;
  const std::string against = fmt::format("{} ≤ {}×", ratios, fixed(*c.latency_goal, 2));
  if (*verdict == GoalMark::Met) return against + " met ✓";
  return fmt::format("{} {} {} at {} of {} sizes", against, *verdict == GoalMark::Missed ? "missed" : "undecided",
                     goal_mark_text(*verdict), c.latency_sizes(*verdict), c.latency.size());
}

// Why a busbw ratio well above 1 against a peer on the same library need not mean the engine outruns
// it: the engine asked the library for another algorithm than the peer got (its results say which).
// Empty when it asked for none.
std::string algorithm_note(const std::string& operation, const CommStudy& engine) {
  auto it = engine.requested.find(operation);
  if (it == engine.requested.end()) return "";
  const CommAlgorithm& a = it->second;
  std::string out = fmt::format(
      "For {}, a busbw ratio well above 1 against a peer on the same library does not mean the engine outruns "
      "the library it calls: its results record that it asks for the {} algorithm",
      operation, a.name);
  if (!a.how.empty()) out += " (" + a.how + ")";
  if (!a.instead.empty()) out += "; " + a.instead;
  return out + "; the peer gets the library's own choice.";
}

// Why a busbw ratio above 1 can also be the engine's memory policy: freed scratch buffers stay in
// its heap (its results say up to which size), while the peer runs with glibc's defaults. Empty
// unless the engine's results record the policy and the peer's do not (a peer that records it too,
// as the Gloo peer does, is measured on the same terms).
std::string freed_memory_note(const CommStudy& engine, const CommStudy& peer) {
  if (engine.freed_memory_kept() <= 0 || peer.freed_memory_kept() > 0) return "";
  return fmt::format(
      "The engine keeps freed memory blocks up to {} in its heap for reuse (its results' "
      "`environment.freed_memory_kept_bytes`); a peer whose results do not record that runs with glibc's defaults. "
      "Where the MPI library allocates a scratch buffer as large as the message in every call (Open MPI's in-place "
      "all-reduce and its reduce-scatter), those defaults hand the buffer back to the kernel when it is freed (a "
      "mapped block from 32 MiB, or the top of the heap) and the next call faults its pages in afresh: there a "
      "ratio above 1 measures that policy as much as the collective.",
      size_text(static_cast<double>(engine.freed_memory_kept())));
}

// Why a busbw ratio well above 1 can be the engine's pages: its heap, where its buffers and Open MPI's
// scratch live, comes on transparent huge pages, and the shared-memory transport's copy of a large
// message pins and copies memory page by page. Empty unless the engine's results record it and the
// peer's do not.
std::string huge_pages_note(const CommStudy& engine, const CommStudy& peer) {
  if (engine.heap_huge_pages() <= 0 || peer.on_huge_pages()) return "";
  return fmt::format(
      "The engine's heap comes on transparent huge pages (2 MiB): {:.0f} MiB at its top is advised for them before "
      "MPI and LibTorch allocate (its results' `environment.heap_huge_pages_bytes`); a peer whose results record "
      "neither that nor `malloc_huge_pages` runs on 4 KiB pages. Open MPI's shared-memory transport moves a large "
      "message with one process_vm_readv, which pins and copies the peer's memory page by page, so from about "
      "1 MiB a ratio above 1 measures the engine's pages as much as its collective.",
      static_cast<double>(engine.heap_huge_pages()) / (1 << 20));
}

// What the MPI thread level costs a ratio: the engine runs MPI_THREAD_MULTIPLE, and a bare loop on
// MPI_Init does not pay Open MPI's locking inside every call. Empty unless the results record both.
std::string thread_level_note(const CommData& data) {
  auto any = [&](bool engine, const char* level) {
    return std::any_of(data.studies.begin(), data.studies.end(),
                       [&](const CommStudy& s) { return s.engine == engine && s.mpi_thread_level == level; });
  };
  if (!any(true, "multiple") || !any(false, "single")) return "";
  std::string same_mode;
  for (const auto& s : data.studies)
    if (!s.engine && s.mpi_thread_level == "multiple") same_mode += (same_mode.empty() ? "" : ", ") + code(s.label);
  return "The engine initialises MPI with MPI_THREAD_MULTIPLE (its progress thread and the caller both call MPI), "
         "under which Open MPI locks inside every call; a peer that records `mpi_thread_level` single does not pay "
         "that, which shows at small sizes, where a call takes a microsecond or less." +
         (same_mode.empty() ? std::string()
                            : " Against " + same_mode +
                                  ", the same loop in the engine's thread level, the ratio is "
                                  "what the engine itself adds.");
}

void add_unique(std::vector<std::string>& notes, const std::string& note) {
  if (!note.empty() && std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
}

std::string render_goals(const CommData& data) {
  const auto checks = goal_checks(data);
  if (checks.empty()) return "";
  MarkdownTable table({{"operation"},
                       {"variant"},
                       {"ranks", Align::Right},
                       {"engine ÷ peer (versions)"},
                       {"sizes", Align::Right},
                       {"busbw ratio min", Align::Right},
                       {"busbw ratio max", Align::Right},
                       {"goal", Align::Right},
                       {"verdict"},
                       {"latency ratio < " + size_text(kRatioMinBytes) + ", goal, verdict", Align::Right}});
  int met = 0, judged = 0, latency_met = 0, latency_judged = 0;
  std::vector<std::string> explained;  // notes on engine settings behind ratios well above 1
  for (const auto& c : checks) {
    met += c.met();
    judged += c.judged();
    latency_met += c.latency_verdict() == GoalMark::Met;
    latency_judged += c.latency_judged();
    if (c.judged() && *c.goal < 1 && c.highest() > 1.2) {
      add_unique(explained, algorithm_note(c.series.operation, data.studies[c.engine]));
      add_unique(explained, freed_memory_note(data.studies[c.engine], data.studies[c.peer]));
      add_unique(explained, huge_pages_note(data.studies[c.engine], data.studies[c.peer]));
    }
    table.add_row({c.series.operation, c.series.variant, ranks_cell(data, c.series.ranks),
                   versioned(data.studies[c.engine]) + " ÷ " + versioned(data.studies[c.peer]),
                   std::to_string(c.ratios.size()), c.ratios.empty() ? "-" : fixed(c.lowest(), 2),
                   c.ratios.empty() ? "-" : fixed(c.highest(), 2), c.ratios.empty() ? "-" : goal_text(c.goal),
                   verdict_text(c), latency_cell(c)});
  }
  std::string out = fmt::format(
      "### Goals\n\nThe engine against each peer: busbw ratio (mean ÷ mean over the repeats) at every message size "
      "from {} that both measured. Goals: ≥ 0.95× bare MPI (at most 5 % overhead over the MPI library itself) and "
      "≥ 5× Gloo, at every such size; a size meets it (✓) only when the ratio's whole 95 % confidence interval "
      "(Fieller, over the repeats; in parentheses beside each ratio in the tables below) lies at or above the goal, "
      "misses it (✗) when all of it lies below, and is undecided (≈) when the interval straddles it: more repeats "
      "would narrow it. Rank counts that oversubscribed the cores are not judged: there the bare loop spins while "
      "the engine yields the core, so the ratio measures the scheduler. Met in {} of {} judged comparisons. Below "
      "{}, where a call costs its fixed overhead, not bandwidth, the last column gives the engine's latency ÷ the "
      "peer's (lower is better) and its goal against bare MPI, ≤ 1.5× at every such size, judged alike with the "
      "interval at or below it: met in {} of {} judged comparisons.\n\n",
      size_text(kRatioMinBytes), met, judged, size_text(kRatioMinBytes), latency_met, latency_judged);
  add_unique(explained, thread_level_note(data));
  for (const auto& note : explained) out += note + "\n\n";
  return out + table.render() + "\n";
}

std::string busbw_cell(const CommPoint* p, const std::map<size_t, double>& cliff_drop, size_t study) {
  if (!p) return "-";
  if (!p->unsupported.empty()) return "unsupported";
  std::string out = mean_std_cell(summarize(p->busbw_gbps), kBandwidthDecimals) + wrong_mark(*p);
  if (auto it = cliff_drop.find(study); it != cliff_drop.end()) out += " ⚠cliff " + signed_percent(-it->second, 0);
  return out;
}

// The busbw ratio from kRatioMinBytes, the latency ratio below it ("latency 0.74 (0.33–1.17)"), each
// marked against its goal unless the rank count oversubscribed the cores (then it is not judged).
std::string ratio_cell(double bytes, const CommPoint* ours, const CommPoint* theirs, const CommStudy& peer,
                       bool oversubscribed) {
  if (!ours || !theirs) return "-";
  const bool latency = bytes < kRatioMinBytes;
  auto r = latency ? latency_ratio(*ours, *theirs) : busbw_ratio(*ours, *theirs);
  if (!r) return "-";
  // Busbw ratios as they always read; latency ratios, which against Gloo fall far below 0.01, keep
  // two significant digits there.
  auto number = [latency](double v) { return latency ? ratio_text(std::max(0.0, v)) : fixed(v, 2); };
  std::string out = (latency ? "latency " : "") + number(r->ratio);
  if (r->ci95) out += " (" + number(r->ci95->low) + "–" + number(r->ci95->high) + ")";
  if (oversubscribed) return out;
  if (const auto goal = latency ? peer_latency_goal(peer.implementation) : peer_goal(peer.implementation)) {
    out += std::string(" ") + goal_mark_text(latency ? ceiling_mark(*r, *goal) : goal_mark(*r, *goal));
  }
  return out;
}

// Per curve and size, the studies whose busbw fell off a cliff there, with the drop.
using CliffIndex = std::map<std::tuple<CommSeriesKey, double>, std::map<size_t, double>>;

CliffIndex index_cliffs(const std::vector<CommCliff>& cliffs) {
  CliffIndex index;
  for (const auto& c : cliffs) index[{c.series, c.bytes}][c.study] = 1 - c.busbw / c.previous_busbw;
  return index;
}

std::string render_operation(const CommData& data, const std::string& op, const CliffIndex& cliffs) {
  std::vector<Column> columns = {{"ranks", Align::Right}, {"variant"}, {"size", Align::Right}};
  for (const auto& s : data.studies) columns.push_back({code(s.label) + " busbw GB/s", Align::Right});
  auto pairs = engine_peer_pairs(data);
  for (const auto& [e, p] : pairs) {
    columns.push_back({code(data.studies[e].label) + " ÷ " + versioned(data.studies[p]), Align::Right});
  }
  MarkdownTable table(columns);
  MarkdownTable details({{"study"},
                         {"ranks", Align::Right},
                         {"variant"},
                         {"size", Align::Right},
                         {"latency µs", Align::Right},
                         {"algbw GB/s", Align::Right},
                         {"busbw GB/s", Align::Right},
                         {"wrong values", Align::Right},
                         {"n", Align::Right}});
  static const std::map<size_t, double> kNoCliffs;
  for (const auto& [key, curve] : data.series) {
    if (key.operation != op) continue;
    for (const auto& [bytes, points] : curve) {
      auto found = cliffs.find({key, bytes});
      const auto& drops = found == cliffs.end() ? kNoCliffs : found->second;
      std::vector<std::string> row = {ranks_cell(data, key.ranks), key.variant, size_text(bytes)};
      for (size_t s = 0; s < data.studies.size(); ++s) row.push_back(busbw_cell(point_of(points, s), drops, s));
      for (const auto& [e, p] : pairs) {
        row.push_back(ratio_cell(bytes, point_of(points, e), point_of(points, p), data.studies[p],
                                 data.oversubscribes(key.ranks)));
      }
      table.add_row(std::move(row));
      for (const auto& [s, point] : points) {
        if (!point.unsupported.empty()) continue;
        details.add_row({code(data.studies[s].label), ranks_cell(data, key.ranks), key.variant, size_text(bytes),
                         mean_std_cell(summarize(point.latency_us), kLatencyDecimals),
                         mean_std_cell(summarize(point.algbw_gbps), kBandwidthDecimals),
                         mean_std_cell(summarize(point.busbw_gbps), kBandwidthDecimals),
                         point.worst_wrong ? fixed(*point.worst_wrong, 0) + (*point.worst_wrong > 0 ? " ✗" : "") : "-",
                         std::to_string(point.busbw_gbps.size())});
      }
    }
  }
  std::string out = fmt::format("### {}\n\n", op) + table.render() + "\n";
  if (!details.empty()) {
    out += fmt::format(
               "<details><summary>{}: latency (max over ranks of the mean per call), algbw, busbw and wrong "
               "values of every measurement</summary>\n\n",
               op) +
           details.render() + "\n</details>\n\n";
  }
  return out;
}

std::string render_cliffs(const CommData& data, const std::vector<CommCliff>& cliffs) {
  std::string out = fmt::format(
      "### Cliffs\n\nA size whose mean busbw is more than {} below that of the next smaller size measured, per "
      "study, operation, variant and rank count: shown as measured, never smoothed over.\n\n",
      percent(kCliffDrop, 0));
  if (cliffs.empty()) return out + "None.\n\n";
  MarkdownTable table({{"study"},
                       {"operation"},
                       {"variant"},
                       {"ranks", Align::Right},
                       {"from", Align::Right},
                       {"to", Align::Right},
                       {"busbw GB/s", Align::Right},
                       {"drop", Align::Right}});
  for (const auto& c : cliffs) {
    table.add_row({code(data.studies[c.study].label), c.series.operation, c.series.variant,
                   ranks_cell(data, c.series.ranks), size_text(c.previous_bytes), size_text(c.bytes),
                   fixed(c.previous_busbw, kBandwidthDecimals) + " → " + fixed(c.busbw, kBandwidthDecimals),
                   signed_percent(c.busbw / c.previous_busbw - 1, 0)});
  }
  return out + table.render() + "\n";
}

// What a peer could not measure, once per study, operation, variant and reason.
std::string render_unsupported(const CommData& data) {
  std::map<std::tuple<size_t, std::string, std::string, std::string>, std::set<int>> seen;
  for (const auto& [key, curve] : data.series) {
    for (const auto& [bytes, points] : curve) {
      for (const auto& [s, point] : points) {
        if (!point.unsupported.empty()) seen[{s, key.operation, key.variant, point.unsupported}].insert(key.ranks);
      }
    }
  }
  std::string out;
  for (const auto& [what, ranks] : seen) {
    const auto& [s, op, variant, reason] = what;
    std::string list;
    for (int r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
    out += fmt::format("- {} cannot measure {} {} ({} ranks): {}.\n", code(data.studies[s].label), op, variant, list,
                       reason);
  }
  return out.empty() ? "" : "Unsupported, reported by the peer rather than left out:\n\n" + out + "\n";
}

}  // namespace

std::string render_comm_rows(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance,
                             const std::string& figures) {
  const CommData data = collect_comm_rows(groups);
  const auto cliffs = find_cliffs(data);
  std::set<double> sizes;
  std::set<std::string> operations;
  bool any_oversubscribed = false;
  for (const auto& [key, curve] : data.series) {
    operations.insert(key.operation);
    // The sweep's sizes: an uneven all-to-all moves a few bytes more than the size it stands for.
    if (key.variant.find("uneven") != std::string::npos) continue;
    for (const auto& [bytes, points] : curve) sizes.insert(bytes);
  }
  for (const auto& [ranks, shared] : data.oversubscribed) any_oversubscribed = any_oversubscribed || shared;
  std::string out = fmt::format(
      "Collective benchmarks from result rows: {} operation{}, {} message size{} from {} to {}, each row the mean ± "
      "std of a measurement over its study's repeats (each repeat its own job). busbw is as each program computed "
      "it: algbw × the nccl-tests factor of the operation at n ranks (`mtengine describe` lists the engine's). "
      "Latency is the slowest rank's mean time per call.\n\n",
      operations.size(), operations.size() == 1 ? "" : "s", sizes.size(), sizes.size() == 1 ? "" : "s",
      sizes.empty() ? "-" : size_text(*sizes.begin()), sizes.empty() ? "-" : size_text(*sizes.rbegin()));
  if (provenance.mixed()) {
    out +=
        "**Mixed provenance (`--allow-mixed`): rows come from different builds; see Environment and "
        "provenance.**\n\n";
  }
  out += studies_line(data);
  if (any_oversubscribed) out += std::string(kOversubscribedLegend) + "\n\n";
  out += render_goals(data);
  out += render_memory_ceiling(data);
  out += figures;
  std::vector<std::pair<int, std::string>> ordered;
  for (const auto& [key, curve] : data.series) {
    if (ordered.empty() || ordered.back().second != key.operation)
      ordered.push_back({key.operation_order, key.operation});
  }
  const CliffIndex cliff_index = index_cliffs(cliffs);
  for (const auto& [order, op] : ordered) out += render_operation(data, op, cliff_index);
  out += render_cliffs(data, cliffs);
  out += render_unsupported(data);
  out += fmt::format(
      "{}\n\n- Ratios are the engine's mean busbw ÷ the peer's, with their 95 % confidence interval (Fieller, over "
      "the repeats) in parentheses, from {} on; ✓ meets the goal against that peer (the whole interval at or above "
      "it), ✗ misses it (all of it below), ≈ undecided. Below that size the engine's mean latency ÷ the peer's "
      "(lower is better), against the latency goal: ✓ the whole interval at or below it, ✗ all of it above.\n- "
      "⚠cliff: busbw more than {} below the next "
      "smaller size of the same curve.\n- Wrong values (✗) are output elements that failed the check; a run with "
      "any fails, so its timing is not used.\n\n",
      kCellLegend, size_text(kRatioMinBytes), percent(kCliffDrop, 0));
  return out;
}

}  // namespace mt

// The communication section from result rows: mtengine comm against a bare MPI peer and a Gloo
// peer, side by side, with ratios, goals, cliffs, oversubscription and unsupported forms; and the
// one-measurement-per-trial path beside it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "report/sections/comm_ceiling_section.h"
#include "report/render/comm_plots.h"
#include "report/model/comm_rows.h"
#include "report/model/groups.h"
#include "report/report.h"
#include "report/model/results_source.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

namespace {

constexpr double kMiB = 1 << 20;

// busbw GB/s per size (256 KiB, 1 MiB, 4 MiB) of each implementation at 2 ranks; 4 ranks run at half.
// The bare MPI loop falls off a cliff at 4 MiB; the engine misses the 0.95 goal at 1 MiB.
const std::map<std::string, std::vector<double>> kBusbw = {
    {"mtengine", {1.0, 1.8, 4.0}}, {"bare_mpi", {1.0, 2.0, 0.5}}, {"gloo", {0.2, 0.3, 0.4}}};

double factor(const std::string& op, int ranks) {
  return op == "all_reduce" ? 2.0 * (ranks - 1) / ranks : double(ranks - 1) / ranks;
}

nlohmann::json row(const std::string& implementation, const std::string& op, bool in_place, const std::string& split,
                   double bytes) {
  nlohmann::json r = {{"operation", op}, {"bytes", bytes},       {"count", bytes / 4},
                      {"dtype", "f32"},  {"in_place", in_place}, {"split", split}};
  if (implementation == "gloo" && op == "all_reduce" && !in_place) {
    r["unsupported"] = true;
    r["reason"] = "torch.distributed.all_reduce works in place only";
  }
  return r;
}

nlohmann::json comm_result(const std::string& implementation, int ranks, int repeat) {
  nlohmann::json rows = nlohmann::json::array();
  const double sizes[] = {256 * 1024, kMiB, 4 * kMiB};
  const double scale = (ranks == 2 ? 1.0 : 0.5) * (1 + 0.01 * (repeat - 1));
  for (int i = 0; i < 3; ++i) {
    for (bool in_place : {true, false}) {
      nlohmann::json r = row(implementation, "all_reduce", in_place, "", sizes[i]);
      if (r.contains("unsupported")) {
        rows.push_back(r);
        continue;
      }
      const double busbw = kBusbw.at(implementation)[size_t(i)] * scale, algbw = busbw / factor("all_reduce", ranks);
      r["busbw_gbps"] = busbw;
      r["algbw_gbps"] = algbw;
      r["latency_us"] = sizes[i] / (algbw * 1e9) * 1e6;
      r["wrong_values"] = 0;
      rows.push_back(r);
    }
  }
  nlohmann::json uneven = row(implementation, "all_to_all", false, "uneven", kMiB + 4);
  const double busbw = kBusbw.at(implementation)[1] * scale;
  uneven["busbw_gbps"] = busbw;
  uneven["algbw_gbps"] = busbw / factor("all_to_all", ranks);
  uneven["latency_us"] = (kMiB + 4) / (busbw / factor("all_to_all", ranks) * 1e9) * 1e6;
  uneven["wrong_values"] = 0;
  rows.push_back(uneven);
  nlohmann::json hosts = nlohmann::json::array();
  for (int r = 0; r < ranks; ++r) hosts.push_back("node1");
  nlohmann::json env = {{"cpu_cores", 2}, {"threads_per_rank", 1}};
  if (implementation == "gloo") env["torch"] = "2.15.0";
  else env["mpi"] = implementation == "mtengine" ? "Open MPI v4.1.4, package: Debian OpenMPI" : "Open MPI v4.1.4";
  if (implementation == "mtengine") env["memory_copy_gbps_per_thread"] = 10.0 - repeat;  // median 9: ceiling 4.5
  nlohmann::json result = {{"schema_version", 1}, {"benchmark", "comm"}, {"status", "ok"},
                           {"world_size", ranks}, {"warmup", 2},         {"iters", 5},
                           {"rows", rows},        {"hosts", hosts},      {"environment", env}};
  if (implementation != "mtengine") result["implementation"] = implementation;
  else
    result["requested_algorithms"] = {
        {"all_reduce", {{"name", "ring"}, {"how", "around a ring"}, {"instead", "unasked, the library takes a tree"}}}};
  return result;
}

FixtureTrial comm_trial(const std::string& implementation, int ranks, int repeat) {
  FixtureTrial t;
  t.study = implementation;
  t.workload = implementation == "mtengine" ? "comm" : "command";
  t.params = {{"ranks", std::to_string(ranks)}, {"min_bytes", "262144"}};
  t.axes = {"ranks"};
  t.repeat = repeat;
  t.result = comm_result(implementation, ranks, repeat);
  return t;
}

void comm_campaign(ReportFixture& f) {
  f.campaign("c1", "comm");
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {2, 4}) {
      for (const char* implementation : {"mtengine", "bare_mpi", "gloo"}) f.trial(comm_trial(implementation, ranks, r));
    }
  }
  f.pin_timestamps();
}

// Campaign c1: the engine and the bare loop on 2 ranks, three repeats, with only the rows below 1 MiB
// of comm_result or only those from 1 MiB.
void engine_and_bare_loop_campaign(ReportFixture& f, bool below_1_mib) {
  f.campaign("c1", "comm");
  for (int r = 0; r < 3; ++r) {
    for (const char* implementation : {"mtengine", "bare_mpi"}) {
      FixtureTrial t = comm_trial(implementation, 2, r);
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& row : t.result["rows"])
        if ((row["bytes"].get<double>() < kMiB) == below_1_mib) rows.push_back(row);
      t.result["rows"] = rows;
      f.trial(t);
    }
  }
  f.pin_timestamps();
}

// A ratio as a goal judges it: its value, its 95 % interval, and whether both sides repeated.
CommRatio ratio(double value, std::optional<Interval> ci, bool repeated = true) {
  CommRatio r;
  r.ratio = value;
  r.repeated = repeated;
  r.ci95 = ci;
  return r;
}

}  // namespace

TEST_CASE("report: golden communication section from result rows") {
  ReportFixture f("comm_golden.sqlite");
  comm_campaign(f);
  check_golden("report_comm.md", render_latest(f).markdown);
}

TEST_CASE("report: peers side by side, ratios at 1 MiB and up, verdicts against the goals") {
  ReportFixture f("comm_goals.sqlite");
  comm_campaign(f);
  const std::string md = render_latest(f).markdown;
  // 1.8 ÷ 2.0 misses 0.95 at 1 MiB; 4.0 ÷ 0.5 meets it at 4 MiB; Gloo is left 6× and 10× behind.
  CHECK(contains(md,
                 "| all_reduce | in_place | 2 | `mtengine` (Open MPI v4.1.4) ÷ `bare_mpi` (Open MPI v4.1.4) | 2 | "
                 "0.90 | 8.00 | ≥ 0.95× | missed ✗ at 1 of 2 sizes | 1.00× ≤ 1.50× met ✓ |"));
  CHECK(contains(md,
                 "| all_reduce | in_place | 2 | `mtengine` (Open MPI v4.1.4) ÷ `gloo` (PyTorch 2.15.0) | 2 | "
                 "6.00 | 10.00 | ≥ 5.00× | met ✓ | 0.20× |"));
  // Below 1 MiB the ratio is the engine's latency ÷ the peer's, marked against bare MPI's latency goal
  // (Gloo sets none); from 1 MiB the busbw ratio, each with its 95 % interval from both sides' repeats.
  CHECK(
      contains(md,
               "| 2 | in_place | 256 KiB | 1.000 ± 0.010 | 1.000 ± 0.010 | 0.200 ± 0.002 | latency 1.00 (0.98–1.02) ✓ "
               "| latency 0.20 (0.20–0.20) |"));
  CHECK(contains(md,
                 "| 2 | in_place | 1 MiB | 1.800 ± 0.018 | 2.000 ± 0.020 | 0.300 ± 0.003 | 0.90 (0.88–0.92) ✗ | "
                 "6.00 (5.87–6.14) ✓ |"));
  CHECK(contains(md, "Met in "));
}

TEST_CASE("report: a ratio well above 1 is explained by the algorithm the engine's results say it asked for") {
  ReportFixture f("comm_algorithm.sqlite");
  comm_campaign(f);
  // 4.0 ÷ 0.5 at 4 MiB on 2 ranks: the engine's results name the ring, so the goals say why.
  CHECK(contains(render_latest(f).markdown,
                 "For all_reduce, a busbw ratio well above 1 against a peer on the same library does not mean the "
                 "engine outruns the library it calls: its results record that it asks for the ring algorithm "
                 "(around a ring); unasked, the library takes a tree; the peer gets the library's own choice.\n"));

  // Results that asked for nothing (the library chose): the ratio stands without that note.
  ReportFixture plain("comm_no_algorithm.sqlite");
  plain.campaign("c1", "comm");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial engine = comm_trial("mtengine", 2, r);
    engine.result.erase("requested_algorithms");
    plain.trial(engine);
    plain.trial(comm_trial("bare_mpi", 2, r));
  }
  const std::string md = render_latest(plain).markdown;
  CHECK(contains(md, "### Goals"));
  CHECK_FALSE(contains(md, "does not mean the engine outruns"));
}

TEST_CASE("report: a ratio well above 1 is explained by the freed memory the engine's results say it kept") {
  // Every engine trial kept freed blocks up to 1 GiB: the goals say what that does to the ratio.
  auto campaign = [](ReportFixture& f, std::vector<double> kept) {
    f.campaign("c1", "comm");
    for (int r = 0; r < 3; ++r) {
      FixtureTrial engine = comm_trial("mtengine", 2, r);
      engine.result["environment"]["freed_memory_kept_bytes"] = kept[size_t(r)];
      f.trial(engine);
      f.trial(comm_trial("bare_mpi", 2, r));
    }
  };
  ReportFixture kept("comm_freed_memory.sqlite");
  campaign(kept, {1 << 30, 1 << 30, 1 << 30});
  const std::string md = render_latest(kept).markdown;
  CHECK(contains(md,
                 "The engine keeps freed memory blocks up to 1 GiB in its heap for reuse (its results' "
                 "`environment.freed_memory_kept_bytes`); a peer whose results do not record that runs with "
                 "glibc's defaults."));
  CHECK(contains(md, "there a ratio above 1 measures that policy as much as the collective.\n"));

  // One trial left glibc's thresholds to the user (0): the study as a whole does not claim the policy.
  ReportFixture mixed("comm_freed_memory_mixed.sqlite");
  campaign(mixed, {1 << 30, 0, 1 << 30});
  CHECK_FALSE(contains(render_latest(mixed).markdown, "keeps freed memory blocks"));

  // A peer that kept freed memory as the engine does: the ratio needs no such note.
  ReportFixture both("comm_freed_memory_both.sqlite");
  both.campaign("c1", "comm");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial engine = comm_trial("mtengine", 2, r), bare = comm_trial("bare_mpi", 2, r);
    engine.result["environment"]["freed_memory_kept_bytes"] = 1 << 30;
    bare.result["environment"]["freed_memory_kept_bytes"] = 1 << 30;
    both.trial(engine);
    both.trial(bare);
  }
  CHECK_FALSE(contains(render_latest(both).markdown, "keeps freed memory blocks"));
}

TEST_CASE("report: the MPI thread levels the results record explain small-message ratios") {
  auto campaign = [](ReportFixture& f, bool with_same_mode_peer) {
    f.campaign("c1", "comm");
    for (int r = 0; r < 3; ++r) {
      FixtureTrial engine = comm_trial("mtengine", 2, r), bare = comm_trial("bare_mpi", 2, r);
      engine.result["mpi_thread_level"] = "multiple";
      bare.result["mpi_thread_level"] = "single";
      f.trial(engine);
      f.trial(bare);
      if (!with_same_mode_peer) continue;
      FixtureTrial same_mode = comm_trial("bare_mpi", 2, r);
      same_mode.study = "bare_mpi_multiple";
      same_mode.result["mpi_thread_level"] = "multiple";
      f.trial(same_mode);
    }
  };
  const std::string note =
      "The engine initialises MPI with MPI_THREAD_MULTIPLE (its progress thread and the caller both call MPI), "
      "under which Open MPI locks inside every call; a peer that records `mpi_thread_level` single does not pay "
      "that, which shows at small sizes, where a call takes a microsecond or less.";
  ReportFixture single("comm_thread_single.sqlite");
  campaign(single, false);
  const std::string md = render_latest(single).markdown;
  CHECK(contains(md, note + "\n"));
  ReportFixture both("comm_thread_both.sqlite");
  campaign(both, true);
  CHECK(contains(render_latest(both).markdown,
                 note + " Against `bare_mpi_multiple`, the same loop in the engine's thread level, the ratio is what "
                        "the engine itself adds.\n"));
  // Results without thread levels (the golden campaign's) carry no such note.
  ReportFixture plain("comm_thread_none.sqlite");
  comm_campaign(plain);
  CHECK_FALSE(contains(render_latest(plain).markdown, "MPI_THREAD_MULTIPLE"));
}

TEST_CASE("report: each curve's busbw at its largest size as a share of the memory-copy ceiling") {
  ReportFixture f("comm_ceiling.sqlite");
  comm_campaign(f);
  const std::string md = render_latest(f).markdown;
  REQUIRE(contains(md, "### Against the memory-copy ceiling\n"));
  // The engine's probes read 10, 9 and 8 GB/s per thread: the ceiling is half their median. At 4 MiB the
  // engine's 4.0 GB/s is 89 % of it, bare MPI's 0.5 11 %, Gloo's 0.4 9 %.
  CHECK(contains(md, "| all_reduce | in_place | 2 | 4 MiB | 4.50 | 4.00 (89 %) | 0.50 (11 %) | 0.40 (9 %) |"));
  CHECK(contains(md, "| all_reduce | out_of_place | 2 | 4 MiB | 4.50 | 4.00 (89 %) | 0.50 (11 %) | - |"));
  CHECK(contains(md, "| all_to_all | out_of_place uneven | 2 | 1048580 B | 4.50 |"));
  // 4 ranks on 2 cores share a core's copy rate: no ceiling applies.
  const std::string ceiling = md.substr(md.find("### Against the memory-copy ceiling"));
  CHECK_FALSE(contains(ceiling.substr(0, ceiling.find("\n### ", 5)), "| 4 |"));
  CHECK(busbw_ceiling_gbps(9.0) == doctest::Approx(4.5));

  // Without the engine's probe (results from before it) there is no ceiling to show.
  ReportFixture old("comm_no_ceiling.sqlite");
  old.campaign("c1", "comm");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial engine = comm_trial("mtengine", 2, r);
    engine.result["environment"].erase("memory_copy_gbps_per_thread");
    old.trial(engine);
  }
  CHECK_FALSE(contains(render_latest(old).markdown, "memory-copy ceiling"));
}

TEST_CASE("report: the summary gives each peer's goal per rank count, the cliffs and what qualifies them") {
  ReportFixture f("comm_summary.sqlite");
  comm_campaign(f);
  const std::string md = render_latest(f).markdown;
  const std::string summary = md.substr(0, md.find("## Communication"));
  CHECK(contains(summary, "**Collectives** (see [Communication](#communication))"));
  CHECK(contains(summary, "4 cliffs in all curves"));
  // Against bare MPI every curve misses 0.95 at 1 MiB; against Gloo both measurable curves meet 5×.
  // The oversubscribed rank count's ratios are given apart from the judged ones.
  CHECK(contains(summary,
                 "- `mtengine` ÷ `bare_mpi` (Open MPI v4.1.4): busbw ratio 0.90–8.00 (4 ranks ⚠oversubscribed: "
                 "0.90–8.00), goal ≥ 0.95× met on 0 of 3 curves, missed on 3, undecided on 0 (2 ranks: met 0, missed "
                 "3, undecided 0; 4 ranks ⚠oversubscribed: not judged); below 1 MiB, the engine's latency is 1.00× "
                 "the peer's (4 ranks ⚠oversubscribed: 1.00×), goal ≤ 1.50× met on 2 of 2 curves, missed on 0, "
                 "undecided on 0 (2 ranks: met 2, missed 0, undecided 0; 4 ranks ⚠oversubscribed: not judged).\n"));
  CHECK(contains(summary,
                 "- `mtengine` ÷ `gloo` (PyTorch 2.15.0): busbw ratio 6.00–10.00 (4 ranks ⚠oversubscribed: "
                 "6.00–10.00), goal ≥ 5.00× met on 2 of 2 curves, missed on 0, undecided on 0 (2 ranks: met 2, missed "
                 "0, undecided 0; 4 ranks ⚠oversubscribed: not judged); below 1 MiB, the engine's latency is 0.20× "
                 "the peer's (4 ranks ⚠oversubscribed: 0.20×).\n"));
  CHECK(
      contains(summary, "- ⚠oversubscribed: collectives at 4 ranks ran more ranks × threads than the node has cores"));
  CHECK(contains(summary, "- Collective measurements with fewer than 5 successful repeats (n = 3)"));

  // Where the engine's jobs at 4 ranks ran twice as slow, the judged ranges stay those of 2 ranks.
  ReportFixture slow("comm_summary_slow.sqlite");
  slow.campaign("c1", "comm");
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {2, 4}) {
      for (const char* implementation : {"mtengine", "bare_mpi"}) {
        FixtureTrial t = comm_trial(implementation, ranks, r);
        if (ranks == 4 && t.study == "mtengine") {
          for (auto& row : t.result["rows"]) {
            if (row.contains("unsupported")) continue;
            row["busbw_gbps"] = row["busbw_gbps"].get<double>() / 2;
            row["algbw_gbps"] = row["algbw_gbps"].get<double>() / 2;
            row["latency_us"] = row["latency_us"].get<double>() * 2;
          }
        }
        slow.trial(t);
      }
    }
  }
  const std::string slow_md = render_latest(slow).markdown;
  CHECK(contains(slow_md,
                 "- `mtengine` ÷ `bare_mpi` (Open MPI v4.1.4): busbw ratio 0.90–8.00 (4 ranks ⚠oversubscribed: "
                 "0.45–4.00), goal ≥ 0.95×"));
  CHECK(contains(slow_md, "below 1 MiB, the engine's latency is 1.00× the peer's (4 ranks ⚠oversubscribed: 2.00×)"));
}

TEST_CASE("report: a campaign on oversubscribed rank counts only says so instead of judging") {
  ReportFixture f("comm_oversubscribed_only.sqlite");
  f.campaign("c1", "comm");
  for (int r = 0; r < 3; ++r) {
    for (const char* implementation : {"mtengine", "bare_mpi"}) f.trial(comm_trial(implementation, 4, r));
  }
  f.pin_timestamps();
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md,
                 "- `mtengine` ÷ `bare_mpi` (Open MPI v4.1.4): busbw ratio measured on oversubscribed rank counts only "
                 "(4 ranks ⚠oversubscribed: 0.90–8.00), goal ≥ 0.95× not judged (4 ranks ⚠oversubscribed); below 1 "
                 "MiB, the engine's latency ÷ the peer's was measured on oversubscribed rank counts only (4 ranks "
                 "⚠oversubscribed: 1.00×), goal ≤ 1.50× not judged (4 ranks ⚠oversubscribed).\n"));
  CHECK_FALSE(contains(md, "of 0 curves"));
}

TEST_CASE("report: a ratio well above 1 is explained by the huge pages the engine's results say its heap is on") {
  auto campaign = [](ReportFixture& f, bool peer_on_huge_pages) {
    f.campaign("c1", "comm");
    for (int r = 0; r < 3; ++r) {
      FixtureTrial engine = comm_trial("mtengine", 2, r);
      engine.result["environment"]["heap_huge_pages_bytes"] = 1069678592;
      f.trial(engine);
      FixtureTrial peer = comm_trial("bare_mpi", 2, r);
      if (peer_on_huge_pages) peer.result["environment"]["malloc_huge_pages"] = true;  // glibc told to advise
      f.trial(peer);
    }
  };
  ReportFixture plain_peer("comm_huge_pages.sqlite");
  campaign(plain_peer, false);
  const std::string md = render_latest(plain_peer).markdown;
  CHECK(contains(md,
                 "The engine's heap comes on transparent huge pages (2 MiB): 1020 MiB at its top is advised for them"));
  CHECK(contains(md, "a ratio above 1 measures the engine's pages as much as its collective.\n"));
  // A peer on huge pages too is measured on the same terms: no note.
  ReportFixture same_terms("comm_huge_pages_both.sqlite");
  campaign(same_terms, true);
  CHECK_FALSE(contains(render_latest(same_terms).markdown, "transparent huge pages"));
}

TEST_CASE("report: a curve whose ratio's interval straddles the goal is counted undecided, not missed") {
  // The engine's busbw swings ±40 % between 3 repeats: at 1 MiB its ratio to the bare loop, 0.90, has a
  // 95 % interval reaching past 0.95 (at 4 MiB, 8.02, one reaching below it), so no curve is clearly
  // below the goal, and none clearly clears it.
  ReportFixture f("comm_undecided.sqlite");
  f.campaign("c1", "comm");
  const double swing[] = {0.6, 1.0, 1.4};
  for (int r = 0; r < 3; ++r) {
    FixtureTrial engine = comm_trial("mtengine", 2, r);
    for (auto& row : engine.result["rows"]) {
      if (!row.contains("busbw_gbps")) continue;
      row["busbw_gbps"] = row["busbw_gbps"].get<double>() * swing[r];
      row["algbw_gbps"] = row["algbw_gbps"].get<double>() * swing[r];
      row["latency_us"] = row["latency_us"].get<double>() / swing[r];
    }
    f.trial(engine);
    f.trial(comm_trial("bare_mpi", 2, r));
  }
  const std::string md = render_latest(f).markdown;
  const std::string summary = md.substr(0, md.find("## Communication"));
  CHECK(contains(summary,
                 "goal ≥ 0.95× met on 0 of 3 curves, missed on 0, undecided on 3 (2 ranks: met 0, "
                 "missed 0, undecided 3)"));
  CHECK(contains(md,
                 "| all_reduce | in_place | 2 | `mtengine` (Open MPI v4.1.4) ÷ `bare_mpi` (Open MPI v4.1.4) | 2 | "
                 "0.90 | 8.02 | ≥ 0.95× | undecided ≈ at 2 of 2 sizes |"));
}

TEST_CASE("report: cliffs, oversubscribed rank counts and unsupported forms are shown") {
  ReportFixture f("comm_marks.sqlite");
  comm_campaign(f);
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md, "0.500 ± 0.005 ⚠cliff -75 %"));
  CHECK(contains(md, "| `bare_mpi` | all_reduce | in_place | 2 | 1 MiB | 4 MiB | 2.000 → 0.500 | -75 % |"));
  CHECK(contains(md, "| 4 ⚠oversubscribed | in_place | 1 MiB |"));
  CHECK_FALSE(contains(md, "| 2 ⚠oversubscribed |"));
  CHECK(contains(md, "| 4 ⚠oversubscribed | out_of_place | 1 MiB | 0.900 ± 0.009 | 1.000 ± 0.010 | unsupported |"));
  CHECK(contains(md,
                 "- `gloo` cannot measure all_reduce out_of_place (2, 4 ranks): torch.distributed.all_reduce "
                 "works in place only.\n"));
  CHECK(contains(md, "| 2 | out_of_place uneven | 1048580 B |"));
}

TEST_CASE(
    "report: a comm study without peers gets its tables but no goals; results without rows are shown as metrics") {
  ReportFixture f("comm_alone.sqlite");
  f.campaign("c1", "comm");
  for (int r = 0; r < 3; ++r) f.trial(comm_trial("mtengine", 2, r));
  FixtureTrial one;
  one.study = "single";
  one.workload = "comm";
  one.params = {{"ranks", "2"}, {"operation", "broadcast"}, {"bytes", "4096"}};
  one.axes = {"operation"};
  one.result = {{"benchmark", "comm"}, {"status", "ok"},    {"operation", "broadcast"}, {"bytes", 4096},
                {"latency_us", 10.0},  {"algbw_gbps", 0.4}, {"wrong_values", 0}};
  f.trial(one);
  const std::string md = render_latest(f).markdown;
  CHECK_FALSE(contains(md, "### Goals"));
  CHECK(contains(md, "### all_reduce\n"));
  const auto at = md.find("## Communication without result rows\n");
  REQUIRE(at != std::string::npos);
  const std::string plain = md.substr(at);
  CHECK(contains(plain, "single operation=broadcast"));
  CHECK(contains(plain, "algbw_gbps"));
  CHECK_FALSE(contains(plain, "busbw"));  // nothing derived that the result did not say
}

TEST_CASE("comm rows: ratio spread, cliffs and sizes") {
  CommPoint engine, peer;
  engine.busbw_gbps = {2.0, 2.0};
  peer.busbw_gbps = {1.0, 1.0};
  auto r = busbw_ratio(engine, peer);
  REQUIRE(r);
  CHECK(r->ratio == doctest::Approx(2.0));
  REQUIRE(r->ci95);  // no spread on either side: the interval is the ratio itself
  CHECK(r->ci95->low == doctest::Approx(2.0));
  CHECK(r->ci95->high == doctest::Approx(2.0));
  // More repeats of the same spread narrow the interval (a spread of the repeats would not).
  engine.busbw_gbps = {1.8, 2.2, 1.8, 2.2};
  peer.busbw_gbps = {0.9, 1.1, 0.9, 1.1};
  const Interval four = *busbw_ratio(engine, peer)->ci95;
  engine.busbw_gbps.insert(engine.busbw_gbps.end(), {1.8, 2.2, 1.8, 2.2, 1.8, 2.2, 1.8, 2.2});
  peer.busbw_gbps.insert(peer.busbw_gbps.end(), {0.9, 1.1, 0.9, 1.1, 0.9, 1.1, 0.9, 1.1});
  const Interval twelve = *busbw_ratio(engine, peer)->ci95;
  CHECK(four.low < 2.0);
  CHECK(four.high > 2.0);
  CHECK(twelve.high - twelve.low < (four.high - four.low) / 2);
  peer.busbw_gbps = {1.0};
  CHECK_FALSE(busbw_ratio(engine, peer)->ci95);  // one repeat: no interval to speak of
  CHECK_FALSE(busbw_ratio(engine, peer)->repeated);
  CHECK_FALSE(busbw_ratio(engine, CommPoint{}));

  CommData data;
  CommStudy engine_study;
  engine_study.label = "s";
  engine_study.engine = true;
  engine_study.implementation = "mtengine";
  data.studies = {engine_study};
  CommSeriesKey key{0, "all_reduce", 2, "in_place"};
  const double busbw[] = {1.0, 0.71, 0.49, 0.6};  // -29 %: no cliff; -31 %: a cliff; then up again
  for (int i = 0; i < 4; ++i) data.series[key][1024.0 * (1 << (2 * i))][0].busbw_gbps = {busbw[i]};
  auto cliffs = find_cliffs(data);
  REQUIRE(cliffs.size() == 1);
  CHECK(cliffs[0].bytes == 16384);
  CHECK(cliffs[0].previous_bytes == 4096);

  CHECK(size_text(1024) == "1 KiB");
  CHECK(size_text(64 * kMiB) == "64 MiB");
  CHECK(size_text(kMiB + 4) == "1048580 B");
  CHECK(size_text(1000) == "1000 B");
  CHECK(peer_goal("bare_mpi") == 0.95);
  CHECK(peer_goal("gloo") == 5.0);
  CHECK_FALSE(peer_goal("nccl-tests"));
}

TEST_CASE("report: a size meets a goal only when the ratio's whole interval clears it") {
  CHECK(goal_mark(ratio(1.50, Interval{1.40, 1.60}), 0.95) == GoalMark::Met);
  CHECK(goal_mark(ratio(0.95, Interval{0.95, 0.95}), 0.95) == GoalMark::Met);
  CHECK(goal_mark(ratio(0.95, Interval{0.52, 1.38}), 0.95) == GoalMark::Undecided);
  CHECK(goal_mark(ratio(1.10, Interval{0.90, 1.30}), 0.95) == GoalMark::Undecided);
  CHECK(goal_mark(ratio(0.50, Interval{0.40, 0.60}), 0.95) == GoalMark::Missed);
  // Repeated, but the peer's mean is not clearly away from zero: nothing is settled.
  CHECK(goal_mark(ratio(2.00, std::nullopt), 0.95) == GoalMark::Undecided);
  // One repeat on a side: no interval, and the ratio itself decides.
  CHECK(goal_mark(ratio(0.95, std::nullopt, false), 0.95) == GoalMark::Met);
  CHECK(goal_mark(ratio(0.90, std::nullopt, false), 0.95) == GoalMark::Missed);
  CHECK(std::string(goal_mark_text(GoalMark::Undecided)) == "≈");
}

TEST_CASE("report: below 1 MiB a size meets the latency goal only when the ratio's whole interval is at or under it") {
  CHECK(ceiling_mark(ratio(1.00, Interval{0.90, 1.10}), 1.5) == GoalMark::Met);
  CHECK(ceiling_mark(ratio(1.50, Interval{1.50, 1.50}), 1.5) == GoalMark::Met);
  CHECK(ceiling_mark(ratio(1.40, Interval{1.10, 1.70}), 1.5) == GoalMark::Undecided);
  CHECK(ceiling_mark(ratio(3.00, Interval{2.50, 3.50}), 1.5) == GoalMark::Missed);
  CHECK(ceiling_mark(ratio(1.00, std::nullopt), 1.5) == GoalMark::Undecided);
  CHECK(ceiling_mark(ratio(1.50, std::nullopt, false), 1.5) == GoalMark::Met);
  CHECK(ceiling_mark(ratio(1.60, std::nullopt, false), 1.5) == GoalMark::Missed);
  CHECK(peer_latency_goal("bare_mpi") == 1.5);
  CHECK_FALSE(peer_latency_goal("gloo"));

  // One curve against bare MPI, each size with three repeats a side: 1 KiB as fast as the loop, 4 KiB
  // three times slower, 16 KiB 1.8× on average but one slow call in three; busbw at 1 MiB equal.
  CommData data;
  CommStudy engine, peer;
  engine.label = "e";
  engine.engine = true;
  engine.implementation = "mtengine";
  peer.label = "p";
  peer.implementation = "bare_mpi";
  data.studies = {engine, peer};
  for (int ranks : {2, 4}) {
    CommCurve& curve = data.series[CommSeriesKey{0, "all_reduce", ranks, "in_place"}];
    curve[1024][0].latency_us = {1.0, 1.1, 0.9};
    curve[4096][0].latency_us = {3.0, 3.1, 2.9};
    curve[16384][0].latency_us = {1.0, 3.0, 1.4};
    for (double bytes : {1024.0, 4096.0, 16384.0}) curve[bytes][1].latency_us = {1.0, 1.01, 0.99};
    curve[kMiB][0].busbw_gbps = curve[kMiB][1].busbw_gbps = {1.0, 1.01, 0.99};
  }
  data.oversubscribed[4] = true;
  const auto checks = goal_checks(data);
  REQUIRE(checks.size() == 2);
  const CommGoalCheck& two = checks[0];
  REQUIRE(two.series.ranks == 2);
  REQUIRE(two.latency.size() == 3);
  CHECK(two.latency_sizes(GoalMark::Met) == 1);
  CHECK(two.latency_sizes(GoalMark::Missed) == 1);
  CHECK(two.latency_sizes(GoalMark::Undecided) == 1);
  CHECK(two.latency_verdict() == GoalMark::Missed);
  CHECK(two.latency_ratios()[1] == doctest::Approx(3.0));
  // Oversubscribed: the ratios are kept, no verdict.
  CHECK(checks[1].latency.size() == 3);
  CHECK_FALSE(checks[1].latency_judged());
  CHECK_FALSE(checks[1].latency_verdict());
  // The slow size alone would leave the curve undecided.
  CommGoalCheck undecided = two;
  undecided.latency.erase(undecided.latency.begin() + 1);
  CHECK(undecided.latency_verdict() == GoalMark::Undecided);
  undecided.latency.pop_back();
  CHECK(undecided.latency_verdict() == GoalMark::Met);
}

TEST_CASE("report: a campaign of messages below 1 MiB only is judged on its latency alone") {
  ReportFixture f("comm_small_only.sqlite");
  engine_and_bare_loop_campaign(f, /*below_1_mib=*/true);
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md,
                 "- `mtengine` ÷ `bare_mpi` (Open MPI v4.1.4): below 1 MiB, the engine's latency is 1.00× the peer's, "
                 "goal ≤ 1.50× met on 2 of 2 curves, missed on 0, undecided on 0 (2 ranks: met 2, missed 0, undecided "
                 "0).\n"));
  CHECK(
      contains(md,
               "| all_reduce | in_place | 2 | `mtengine` (Open MPI v4.1.4) ÷ `bare_mpi` (Open MPI v4.1.4) | 0 | - | - "
               "| - | - | 1.00× ≤ 1.50× met ✓ |"));
  CHECK_FALSE(contains(md, "(Open MPI v4.1.4): busbw ratio"));  // no busbw range in the summary

  // And one of 1 MiB and more only says nothing of latency.
  ReportFixture large("comm_large_only.sqlite");
  engine_and_bare_loop_campaign(large, /*below_1_mib=*/false);
  const std::string large_md = render_latest(large).markdown;
  CHECK(contains(large_md, "- `mtengine` ÷ `bare_mpi` (Open MPI v4.1.4): busbw ratio 0.90–8.00, goal ≥ 0.95×"));
  CHECK_FALSE(contains(large_md, "below 1 MiB, the engine's latency"));
}

TEST_CASE("report: oversubscribed rank counts are not judged; small sizes get a latency ratio; plots per variant") {
  ReportFixture f("comm_judged.sqlite");
  comm_campaign(f);
  const RenderedReport report = render_latest(f, false, "comm");
  const std::string& md = report.markdown;
  CHECK(contains(md,
                 "| all_reduce | in_place | 4 ⚠oversubscribed | `mtengine` (Open MPI v4.1.4) ÷ `bare_mpi` (Open MPI "
                 "v4.1.4) | 2 | 0.90 | 8.00 | ≥ 0.95× | not judged: ⚠oversubscribed | 1.00× |"));
  // At 4 ranks the ratio cells carry no verdict mark.
  const size_t row = md.find("| 4 ⚠oversubscribed | in_place | 1 MiB |");
  REQUIRE(row != std::string::npos);
  CHECK(contains(md.substr(row, md.find('\n', row) - row + 1), "| 0.90 (0.88–0.92) | 6.00 (5.87–6.14) |\n"));
  const auto plot = std::find_if(report.plots.begin(), report.plots.end(),
                                 [](const Plot& p) { return p.file == "comm_all_reduce_in_place_busbw.svg"; });
  REQUIRE(plot != report.plots.end());
  CHECK(plot->chart.log_y);
  CHECK(plot->chart.categories == std::vector<std::string>{"256 KiB", "1 MiB", "4 MiB"});
  std::vector<std::string> names;
  for (const auto& s : plot->chart.series) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"mtengine ×2", "mtengine ×4 ⚠oversubscribed", "bare_mpi ×2",
                                          "bare_mpi ×4 ⚠oversubscribed", "gloo ×2", "gloo ×4 ⚠oversubscribed"});
  CHECK(plot->chart.series[1].dotted);
  // Every variant has its charts: the all-reduce was measured in place and out of place.
  CHECK(
      contains(md, "![all_reduce (in_place): bus bandwidth vs message size](comm/comm_all_reduce_in_place_busbw.svg)"));
  CHECK(contains(md, "![all_reduce (in_place): latency vs message size](comm/comm_all_reduce_in_place_latency.svg)"));
  CHECK(contains(md,
                 "![all_reduce (out_of_place): bus bandwidth vs message size](comm/"
                 "comm_all_reduce_out_of_place_busbw.svg)"));
  const auto out_of_place = std::find_if(report.plots.begin(), report.plots.end(), [](const Plot& p) {
    return p.file == "comm_all_reduce_out_of_place_latency.svg";
  });
  REQUIRE(out_of_place != report.plots.end());
  CHECK(out_of_place->chart.title.find("(out_of_place)") != std::string::npos);
  // An uneven all-to-all's few extra bytes do not hide the size it stands for.
  CHECK(comm_size_label(1028) == "≈1 KiB");
  CHECK(comm_size_label(1136) == "≈1 KiB");
  CHECK(comm_size_label(1536) == "1536 B");
  CHECK(comm_size_label(4 * kMiB) == "4 MiB");
  CHECK(comm_size_label(1000) == "1000 B");
}

TEST_CASE("report: ratio ranges keep two significant digits below 0.1, so a tiny ratio never reads as 0") {
  CHECK(ratio_range_text({0.00037, 0.05}) == "0.00037–0.05×");
  CHECK(ratio_range_text({0.84, 13.2}) == "0.84–13×");
  CHECK(ratio_range_text({1.0, 1.0}) == "1.00×");
  CHECK(ratio_range_text({}) == "-");
  CHECK(ratio_text(0.00049) == "0.00049");
  CHECK(ratio_text(1.0) == "1.00");
  CHECK(ratio_text(13.2) == "13");
}

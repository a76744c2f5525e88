// Attempts run on a disturbed machine: named in the summary, left out of means unless kept, and a
// configuration with nothing else is listed instead of averaged; differing calibrations are said.
#include <doctest/doctest.h>

#include "report/report.h"
#include "report_fixture.h"
#include "store/conditions_rows.h"

using namespace mt;
using namespace mt::testing;

namespace {

void judge(ReportFixture& f, std::int64_t attempt, bool disturbed, double calibration = 0,
           std::optional<int> ranks_here = std::nullopt) {
  MachineConditions c;
  c.job_ranks_here = ranks_here;
  c.wall_s = 1;
  c.cpus = 2;
  c.foreign_cpu_pct = disturbed ? 80 : 2;
  if (calibration > 0) c.calibration_gflops = calibration;
  Verdict v;
  v.disturbed = disturbed;
  if (disturbed) v.reasons = {"other processes used 80 % of a core"};
  record_conditions(f.store().db(), attempt, c, v);
}

// ddp ×1: repeats 1000, 1010 quiet and 500 disturbed; ddp ×2: both repeats disturbed.
void campaign_with_disturbances(ReportFixture& f) {
  f.campaign("c1");
  const double tokens[] = {1000, 1010, 500};
  for (int r = 0; r < 3; ++r) judge(f, f.trial(train_trial("s", "ddp", 1, r, tokens[r], 40, 500)), r == 2);
  for (int r = 0; r < 2; ++r) judge(f, f.trial(train_trial("s", "ddp", 2, r, 1900, 40, 500)), true);
}

}  // namespace

TEST_CASE("disturbed attempts are named with their reasons and left out of the means unless kept") {
  ReportFixture f("conditions.sqlite");
  campaign_with_disturbances(f);
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md,
                 "- 3 attempts ran on a disturbed machine: `s ddp ×1 rep 2` (other processes used 80 % of a core), "
                 "`s ddp ×2 rep 0` (other processes used 80 % of a core), `s ddp ×2 rep 1` (other processes used "
                 "80 % of a core). They are left out of the means (`mtrun report --keep-disturbed` keeps them, `mtrun "
                 "rerun --disturbed` measures them again).\n"));
  CHECK(contains(md,
                 "- `s ddp ×2`: every one of its 2 successful attempts ran on a disturbed machine; it is not "
                 "averaged and appears in no table.\n"));
  CHECK(contains(md, "1005 ± 7"));      // the quiet repeats alone
  CHECK_FALSE(contains(md, "837 ± "));  // not the mean with the disturbed one
  // n counts the attempt left out, and the legend says why (not only failures make n a fraction).
  CHECK(contains(md, "n shows succeeded/total when some failed, or ran on a disturbed machine and are left out)"));

  auto db = open_results(f.path());
  ReportOptions keep;
  keep.keep_disturbed = true;
  const std::string kept = render_report(load_report_data(*db, {latest_campaign(*db)}), keep).markdown;
  CHECK(contains(kept, "They are averaged in with the rest (kept on request)."));
  CHECK(contains(kept, "837 ± "));
  CHECK_FALSE(contains(kept, "it is not averaged"));
  CHECK(contains(kept, "n shows succeeded/total when some failed)"));
}

TEST_CASE("a database without recorded conditions reports no disturbance and no order") {
  ReportFixture f("no_conditions.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 2; ++r) f.trial(train_trial("s", "ddp", 1, r, 1000 + r, 40, 500));
  const std::string md = render_latest(f).markdown;
  CHECK_FALSE(contains(md, "disturbed"));
  CHECK_FALSE(contains(md, "order"));
  CHECK_FALSE(contains(md, "--settle"));
  CHECK_FALSE(contains(md, "--wait-quiet"));
  CHECK_FALSE(contains(md, "ran no rank"));
}

TEST_CASE("a report says which measured attempts ran on other hosts than mtrun's, whose load was not judged") {
  ReportFixture f("elsewhere.sqlite");
  f.campaign("c1");
  judge(f, f.trial(train_trial("s", "ddp", 2, 0, 1000, 40, 500)), false, 0, 0);
  judge(f, f.trial(train_trial("s", "ddp", 2, 1, 1001, 40, 500)), false, 0, 0);
  judge(f, f.trial(train_trial("s", "ddp", 2, 2, 1002, 40, 500)), false, 0, 1);
  FixtureTrial failed = train_trial("s", "ddp", 2, 3, 1003, 40, 500);
  failed.state = AttemptState::Failed;  // gives no number: not counted
  judge(f, f.trial(failed), false, 0, 0);
  CHECK(contains(render_latest(f).markdown,
                 "2 of the 3 measured attempts ran no rank on the host mtrun ran on. The load mtrun records with an "
                 "attempt is its own host's (other processes' CPU, steal, CPU pressure), so for these it was not "
                 "judged: their verdicts rest on what the ranks measured themselves (their hosts' load where the "
                 "engine reports it, SGEMM calibration, memory bandwidth, all-reduce latency, per-step times).\n"));
}

namespace {

FixtureTrial waited_trial(int repeat, std::optional<double> settle_s, std::optional<double> quiet_wait_s,
                          const std::string& found = "quiet", const std::string& where = "") {
  FixtureTrial t = train_trial("s", "ddp", 1, repeat, 1000 + repeat, 40, 500);
  t.before.settle_s = settle_s;
  t.before.quiet_wait_s = quiet_wait_s;
  if (quiet_wait_s) t.before.quiet_found = found;
  if (quiet_wait_s) t.before.quiet_where = where;
  return t;
}

}  // namespace

TEST_CASE("a report says how the measured attempts were settled and how quiet the machine was found before them") {
  ReportFixture f("settled.sqlite");
  f.campaign("c1");
  f.trial(waited_trial(0, 10.01, 1.02));
  f.trial(waited_trial(1, 10.04, 1.03));
  f.trial(waited_trial(2, 10.02, 4.1));
  FixtureTrial failed = waited_trial(3, 10.0, 1.0);
  failed.state = AttemptState::Failed;  // gives no number: not counted
  f.trial(failed);
  CHECK(contains(render_latest(f).markdown,
                 "Before each of the 3 measured attempts mtrun waited 10 s with nothing running (`run --settle`). "
                 "Then it looked for a quiet machine (`run --wait-quiet`): quiet at the first look (2), quiet after "
                 "4.1 s (1).\n"));
}

TEST_CASE("a report says when the settling and the looks were the experiment's own, as asked in its conditions") {
  ReportFixture f("settled_as_asked.sqlite");
  f.store().add_campaign_if_new(
      {"c1", "exp", "/exp/exp.yaml", "1111111111111111111111111111111111111111", "plan-c1", "{}", 0,
       "2024-05-01T10:00:00Z"},
      {"interleaved", std::nullopt, R"({"conditions": {"settle_s": 10, "wait_quiet_s": 30}, "repeat": {}})"});
  f.trial(waited_trial(0, 10.01, 1.02));
  f.trial(waited_trial(1, 10.04, 1.03));
  CHECK(contains(render_latest(f).markdown,
                 "Before each of the 2 measured attempts mtrun waited 10 s with nothing running (the experiment's "
                 "`settle_s`). Then it looked for a quiet machine (the experiment's `wait_quiet_s`): quiet at the "
                 "first look (2).\n"));
  // A flag that asked for something else than the experiment is named as the source.
  ReportFixture g("settled_by_flag.sqlite");
  g.store().add_campaign_if_new({"c1", "exp", "/exp/exp.yaml", "1111111111111111111111111111111111111111", "plan-c1",
                                 "{}", 0, "2024-05-01T10:00:00Z"},
                                {"interleaved", std::nullopt, R"({"conditions": {"settle_s": 10}, "repeat": {}})"});
  g.trial(waited_trial(0, 3.01, 1.02));
  CHECK(contains(render_latest(g).markdown,
                 "Before the one measured attempt mtrun waited 3 s with nothing running (`run --settle`). "
                 "Then it looked for a quiet machine (`run --wait-quiet`)"));
}

TEST_CASE("a report says where the looks for a quiet machine were taken, where every look recorded it") {
  ReportFixture f("looked_on_nodes.sqlite");
  f.campaign("c1");
  f.trial(waited_trial(0, std::nullopt, 1.02, "quiet", "allocation_nodes"));
  f.trial(waited_trial(1, std::nullopt, 1.03, "quiet", "allocation_nodes"));
  f.trial(waited_trial(2, std::nullopt, std::nullopt));  // no look: says nothing of where
  CHECK(contains(render_latest(f).markdown,
                 "Before 2 of the 3 measured attempts mtrun looked for a quiet machine on the allocation's nodes "
                 "(`run --wait-quiet`): quiet at the first look (2).\n"));

  ReportFixture mixed("looked_here_and_there.sqlite");
  mixed.campaign("c1");
  mixed.trial(waited_trial(0, std::nullopt, 1.02, "quiet", "runner_host"));
  mixed.trial(waited_trial(1, std::nullopt, 1.03, "quiet", "hostfile_hosts"));
  CHECK(contains(render_latest(mixed).markdown,
                 "looked for a quiet machine on mtrun's host or the hostfile's hosts (`run --wait-quiet`)"));

  // One look of an older mtrun that did not record where: where is claimed for none.
  ReportFixture older("looked_partly_unrecorded.sqlite");
  older.campaign("c1");
  older.trial(waited_trial(0, std::nullopt, 1.02, "quiet", "runner_host"));
  older.trial(waited_trial(1, std::nullopt, 1.03, "quiet", ""));
  CHECK(contains(render_latest(older).markdown, "looked for a quiet machine (`run --wait-quiet`)"));
}

TEST_CASE("a report of a campaign settled only in part says which share was, and a look that found it busy") {
  ReportFixture f("settled_in_part.sqlite");
  f.campaign("c1");
  f.trial(waited_trial(0, 5.0, std::nullopt));
  f.trial(waited_trial(1, std::nullopt, 30.4, "busy"));
  f.trial(waited_trial(2, 2.5, 12.0));
  f.trial(waited_trial(3, std::nullopt, std::nullopt));
  f.trial(waited_trial(4, std::nullopt, 1.1, ""));  // /proc/stat unreadable: nothing known
  CHECK(contains(render_latest(f).markdown,
                 "Before 2 of the 5 measured attempts mtrun waited 2.5–5 s with nothing running (`run --settle`); the "
                 "others without settling. Before 3 of the 5 it looked for a quiet machine (`run --wait-quiet`): quiet "
                 "after 12 s (1), still busy when the wait ran out after 30.4 s (1), not measurable here (1).\n"));
}

TEST_CASE("compare says when the campaigns' calibrations differ beyond their noise") {
  ReportFixture f("calibration.sqlite");
  f.campaign("a", "exp", "2024-05-01T10:00:00Z");
  f.campaign("b", "exp", "2024-05-02T10:00:00Z");
  const double a[] = {40.0, 40.4, 39.8}, b[] = {30.1, 30.0, 29.8}, c[] = {40.2, 39.9, 40.1};
  for (int r = 0; r < 3; ++r) {
    judge(f, f.trial(train_trial("s", "ddp", 1, r, 1000, 40, 500), "a"), false, a[r]);
    judge(f, f.trial(train_trial("s", "ddp", 1, r, 1000, 40, 500), "b"), false, b[r]);
  }
  CHECK(contains(render_comparison_of(f, "a", "b"),
                 "**Calibrations differ beyond their noise: A 40.1 ± 0.3 vs B 30.0 ± 0.2 GFLOP/s per thread (-25 %, "
                 "Welch p < 0.001). The machines ran at different speeds; ratios between them include that.**"));
  f.campaign("c", "exp", "2024-05-03T10:00:00Z");
  for (int r = 0; r < 3; ++r) judge(f, f.trial(train_trial("s", "ddp", 1, r, 1000, 40, 500), "c"), false, c[r]);
  CHECK_FALSE(contains(render_comparison_of(f, "a", "c"), "Calibrations differ"));
}

TEST_CASE("compare says when one campaign's measured attempts were settled and the other's were not") {
  ReportFixture f("settling_compare.sqlite");
  f.campaign("a", "exp", "2024-05-01T10:00:00Z");
  f.campaign("b", "exp", "2024-05-02T10:00:00Z");
  f.campaign("c", "exp", "2024-05-03T10:00:00Z");
  for (int r = 0; r < 3; ++r) {
    f.trial(waited_trial(r, std::nullopt, std::nullopt), "a");
    f.trial(waited_trial(r, 10.02, std::nullopt), "b");
    f.trial(waited_trial(r, 10.01, 1.0), "c");  // a look as well: not what this compares
  }
  FixtureTrial failed = waited_trial(3, std::nullopt, std::nullopt);
  failed.state = AttemptState::Failed;  // measured nothing: not counted
  f.trial(failed, "b");
  CHECK(contains(render_comparison_of(f, "a", "b"),
                 "**Settling before launch differs: A none of its 3 measured attempts recorded as settled, B each of "
                 "its 3 measured attempts settled 10 s (`run --settle`). On a VM a trial started right after another "
                 "can lose CPU time to what that one left behind (docs/measurement.md, \"Settling between trials\"); "
                 "ratios between them may include that.**"));
  CHECK_FALSE(contains(render_comparison_of(f, "b", "c"), "Settling before launch differs"));
  CHECK_FALSE(contains(render_comparison_of(f, "a", "a"), "Settling before launch differs"));
}

// The table `mtrun run` ends with: mean ± std per configuration of what its trials measured.
#include <doctest/doctest.h>

#include "run/summary.h"

using namespace mt;

namespace {

TrialRow row(const std::string& workload, const std::string& config, int repeat, const std::string& state) {
  TrialRow r;
  r.workload = workload;
  r.study = "s";
  r.config = config;
  r.group_key = "s " + config;
  r.repeat_index = repeat;
  r.state = state;
  return r;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("summary: training trials show tokens/s and step ms, even where every trial failed") {
  std::vector<TrialRow> rows;
  for (int r = 0; r < 2; ++r) {
    TrialRow t = row("train", "ranks=1", r, "succeeded");
    t.tokens_per_sec = 1000 + 10 * r;
    t.step_time_ms = 20 + r;
    rows.push_back(t);
  }
  const std::string table = render_summary(rows);
  CHECK(first_line(table).find("tokens/s (mean ± std)") != std::string::npos);
  CHECK(has(table, "1005 ± 7"));
  CHECK(has(table, "20.5 ± 0.7"));
  const std::string failed = render_summary({row("train", "ranks=2", 0, "failed")});
  CHECK(has(first_line(failed), "tokens/s (mean ± std)"));
  CHECK(has(failed, "0/1"));
}

TEST_CASE("summary: the metrics the questions ask about get columns; nothing measured, no column") {
  std::vector<TrialRow> rows;
  for (int r = 0; r < 3; ++r) {
    TrialRow t = row("command", "speed=1", r, "succeeded");
    t.asked_metrics = {{"value", 100.0 + r}, {"peak_memory_mb", 512.0}};
    rows.push_back(t);
  }
  rows.push_back(row("command", "speed=2", 0, "failed"));
  const std::string table = render_summary(rows);
  const std::string head = first_line(table);
  CHECK_FALSE(has(head, "tokens/s"));
  CHECK(head.find("value (mean ± std)") < head.find("peak MiB (mean ± std)"));
  CHECK(has(table, "101.0 ± 1.0"));  // about four significant digits
  CHECK(has(table, "512.0 ± 0.0"));
  CHECK(has(table, "0/1"));
  // A collective benchmark records rows, not a headline number: only what ran.
  const std::string comm = render_summary({row("comm", "ranks=2", 0, "succeeded")});
  CHECK(first_line(comm).find("mean ± std") == std::string::npos);
  CHECK(has(first_line(comm), "configuration"));
}

TEST_CASE("summary: where to look next names the views that hold the campaign's rows") {
  CHECK(where_to_look({row("train", "ranks=1", 0, "succeeded")}) ==
        "mtrun status; mtrun report; mtrun query \"select * from training\"");
  CHECK(where_to_look({row("comm", "ranks=2", 0, "succeeded"), row("train", "ranks=1", 0, "failed")}) ==
        "mtrun status; mtrun report; mtrun query \"select * from training\"; mtrun query \"select * from comm_rows\"");
  CHECK(where_to_look({row("command", "speed=1", 0, "succeeded")}) == "mtrun status; mtrun report");
}

TEST_CASE("trial table: each trial's value of the metrics the summary shows") {
  TrialRow done = row("command", "speed=1", 0, "succeeded");
  done.identity = "aaaaaaaaaaaaaaaa";
  done.asked_metrics = {{"value", 101.5}};
  TrialRow failed = row("command", "speed=2", 0, "failed");
  failed.identity = "bbbbbbbbbbbbbbbb";
  const std::string table = render_trial_table({done, failed});
  const std::string head = first_line(table);
  CHECK_FALSE(has(head, "tokens/s"));
  CHECK(head.find("exit") < head.find("value"));
  CHECK(has(table, "101.5"));
  TrialRow trained = row("train", "ranks=1", 0, "succeeded");
  trained.tokens_per_sec = 1234.4;
  CHECK(has(first_line(render_trial_table({trained})), "tokens/s"));
  CHECK(has(render_trial_table({trained}), "1234"));
  // The machine's verdict, where one was recorded.
  CHECK_FALSE(has(first_line(render_trial_table({trained})), "machine"));
  trained.verdict = "disturbed";
  const std::string judged = render_trial_table({trained, failed});
  CHECK(first_line(judged).find("exit") < first_line(judged).find("machine"));
  CHECK(has(judged, "disturbed"));
}

TEST_CASE("summary: attempts on a disturbed machine are counted apart and left out of means, unless kept") {
  std::vector<TrialRow> rows;
  for (int r = 0; r < 3; ++r) {
    TrialRow t = row("train", "ranks=1", r, "succeeded");
    t.tokens_per_sec = r == 2 ? 500 : 1000 + 10 * r;
    t.step_time_ms = 20;
    t.verdict = r == 2 ? "disturbed" : "quiet";
    rows.push_back(t);
  }
  const std::string left_out = render_summary(rows);
  CHECK(has(left_out, "2/3 (1 disturbed)"));
  CHECK(has(left_out, "1005 ± 7"));
  const std::string kept = render_summary(rows, /*keep_disturbed=*/true);
  CHECK_FALSE(has(kept, "disturbed"));
  CHECK(has(kept, "837 ± 292"));
}

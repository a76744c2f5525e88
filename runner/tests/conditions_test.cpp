#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>

#include "commands/campaign_command.h"
#include "experiment/experiment_loader.h"
#include "experiment_text.h"
#include "launch/core_round_trip.h"
#include "launch/machine_conditions.h"
#include "launch/proc_readings.h"
#include "core_use.h"
#include "run/attempt_verdict.h"
#include "run/conditions_watch.h"
#include "run/quiet_machine.h"
#include "store/conditions_rows.h"
#include "store/lease.h"
#include "store_fixture.h"

using namespace mt;
using mt::testing::load_errors;

namespace {

const char* kStatBefore =
    "cpu  1000 10 500 8000 40 5 5 20 0 0\n"
    "cpu0 500 5 250 4000 20 2 3 10 0 0\n"
    "cpu1 500 5 250 4000 20 3 2 10 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 50000\n"
    "btime 1700000000\n";
// 2 CPUs over 2 s = 400 ticks at 100 Hz: busy grew by 150 (user 100, system 40, irq 5, softirq 5),
// steal by 20, idle by 220, iowait by 10.
const char* kStatAfter =
    "cpu  1100 10 540 8220 50 10 10 40 0 0\n"
    "cpu0 550 5 270 4110 25 5 5 20 0 0\n"
    "cpu1 550 5 270 4110 25 5 5 20 0 0\n"
    "ctxt 51000\n";

MachineSnapshot snapshot(double t, const char* stat, double self, double children, double cpu_pressure_us) {
  MachineSnapshot s;
  s.t = t;
  s.stat = parse_proc_stat(stat);
  s.self_cpu_s = self;
  s.children_cpu_s = children;
  s.cpu_pressure_us = cpu_pressure_us;
  return s;
}

}  // namespace

TEST_CASE("a process's stat line gives its parent and CPU ticks, whatever its name") {
  const auto stat = parse_pid_stat(
      "4242 (mt (rank) 1) S 4100 4242 4100 0 -1 4194560 1200 0 0 0 250 50 30 20 20 0 3 0 99999 1000 10 "
      "18446744073709551615");
  REQUIRE(stat);
  CHECK(stat->ppid == 4100);
  CHECK(stat->cpu_ticks == 250u + 50 + 30 + 20);
  CHECK(stat->start_ticks == 99999u);
  CHECK(stat->env_start == 0u);  // a line that stops before them (kernels before 3.5)
  const auto full = parse_pid_stat(
      "4462 (cat) R 4459 4459 1384 0 -1 4194304 100 0 0 0 7 3 0 0 20 0 1 0 25106 3133440 409 "
      "18446744073709551615 94637618573312 94637618593193 140733129145984 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 "
      "94637618609200 94637618610816 94638497095680 140733129153156 140733129153176 140733129153176 "
      "140733129154539 0");
  REQUIRE(full);
  CHECK(full->cpu_ticks == 10u);
  CHECK(full->start_ticks == 25106u);
  CHECK(full->env_start == 140733129153176u);
  CHECK(full->env_end == 140733129154539u);
  CHECK_FALSE(parse_pid_stat("4242 (cut short) S 4100 1"));
  CHECK_FALSE(parse_pid_stat("garbage"));
}

TEST_CASE("the /proc parsers read canned kernel text") {
  auto stat = parse_proc_stat(kStatBefore);
  REQUIRE(stat);
  CHECK(stat->cpus == 2);
  CHECK(stat->cpu.busy() == 1000 + 10 + 500 + 5 + 5);
  CHECK(stat->cpu.total() == stat->cpu.busy() + 8000 + 40 + 20);
  CHECK(stat->context_switches == 50000u);
  CHECK_FALSE(parse_proc_stat("intr 1 2 3\n"));
  CHECK(parse_load1("0.52 0.58 0.59 2/345 6789\n") == doctest::Approx(0.52));
  CHECK(parse_pressure_some_us("some avg10=1.50 avg60=0.20 avg300=0.05 total=123456\n"
                               "full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n") == doctest::Approx(123456));
  CHECK(parse_mem_available_mib("MemTotal: 8000000 kB\nMemFree: 100 kB\nMemAvailable:    2097152 kB\n") ==
        doctest::Approx(2048));
  CHECK(parse_cpuinfo_mhz("processor : 0\ncpu MHz\t\t: 2000.000\nprocessor : 1\ncpu MHz\t\t: 3000.000\n") ==
        doctest::Approx(2500));
  CHECK_FALSE(parse_cpuinfo_mhz("processor : 0\n"));
}

TEST_CASE("foreign CPU is the machine's busy time less the job's and mtrun's own") {
  // 1.5 s busy over the window; the job used 1.0 s, mtrun 0.1 s: 0.4 s foreign over 2 s = 20 % of a core.
  auto c = conditions_between(snapshot(10, kStatBefore, 1.0, 5.0, 1e6), snapshot(12, kStatAfter, 1.1, 6.0, 1.5e6),
                              {{0.5, 1.0, 2000, 900}, {1.0, 3.5, 1800, 700}}, 100);
  REQUIRE(c);
  CHECK(c->wall_s == doctest::Approx(2));
  CHECK(c->cpus == 2);
  CHECK(c->busy_cpu_s == doctest::Approx(1.5));
  CHECK(c->job_cpu_s == doctest::Approx(1.0));
  CHECK(c->runner_cpu_s == doctest::Approx(0.1));
  CHECK(c->foreign_cpu_pct == doctest::Approx(20));
  CHECK(*c->steal_pct == doctest::Approx(20.0 / 400 * 100));
  CHECK(*c->context_switches == doctest::Approx(1000));
  CHECK(*c->cpu_pressure_pct == doctest::Approx(25));
  CHECK(*c->load1_max == doctest::Approx(3.5));
  CHECK(*c->cpu_mhz_min == doctest::Approx(1800));
  CHECK(*c->mem_available_mib_min == doctest::Approx(700));
  // A job that used more than /proc/stat counted (tick rounding) leaves no foreign time, not negative.
  auto rounded = conditions_between(snapshot(10, kStatBefore, 0, 0, 0), snapshot(12, kStatAfter, 0, 1.6, 0), {}, 100);
  CHECK(rounded->foreign_cpu_pct == 0);
  CHECK_FALSE(conditions_between(MachineSnapshot{}, snapshot(12, kStatAfter, 0, 0, 0), {}, 100));
  // Trials in flight beside this one (parallel:) are mtrun's own work. This trial's job used 1.0 s;
  // another trial, alive at both ends, 0.3 s (2.0 -> 2.3 live); a third, 0.5 s at the start, was
  // reaped at 0.7 s (children +1.7 = 1.0 + 0.7): 0.2 s in the window. 1.5 s of jobs and 0.1 s of
  // mtrun against 1.5 s busy: nothing foreign, where without them 0.5 s would have been.
  MachineSnapshot before = snapshot(10, kStatBefore, 1.0, 5.0, 0), after = snapshot(12, kStatAfter, 1.1, 6.7, 0);
  before.descendants_cpu_s = 2.0 + 0.5;
  after.descendants_cpu_s = 2.3;
  auto beside = conditions_between(before, after, {}, 100);
  CHECK(beside->job_cpu_s == doctest::Approx(1.5));
  CHECK(beside->foreign_cpu_pct == 0);
}

TEST_CASE("ranks a scheduler started on this machine count as the job's, from their own CPU times") {
  // srun's ranks are slurmstepd's children: mtrun's descendants used 0.05 s, the ranks 1.2 s, of
  // 1.5 s busy over 2 s. Counted from mtrun's descendants alone, 1.35 s would read as foreign.
  auto c = conditions_between(snapshot(10, kStatBefore, 1.0, 5.0, 0), snapshot(12, kStatAfter, 1.1, 5.05, 0), {}, 100);
  REQUIRE(c);
  CHECK(c->foreign_cpu_pct == doctest::Approx(67.5));
  const std::string result = R"({"hosts": ["here", "there", "here"], "rank_cpu_s": [0.5, 9.0, 0.7]})";
  const auto here = ranks_on_host(result, "here");
  REQUIRE(here);
  CHECK(here->ranks == 2);
  REQUIRE(here->cpu_s);
  CHECK(*here->cpu_s == doctest::Approx(1.2));
  count_ranks_started_elsewhere(*c, *here->cpu_s);
  CHECK(c->job_cpu_s == doctest::Approx(1.2));
  CHECK(c->foreign_cpu_pct == doctest::Approx(10));
  // Where mtrun's count is the larger (mpirun's ranks are its descendants, mpirun's own time too),
  // it stays.
  count_ranks_started_elsewhere(*c, 0.4);
  CHECK(c->job_cpu_s == doctest::Approx(1.2));

  const auto elsewhere = ranks_on_host(result, "elsewhere");
  CHECK(elsewhere->ranks == 0);
  CHECK(*elsewhere->cpu_s == 0);
  // Ranks counted, but no CPU time, where the result does not give one for every rank.
  for (const char* partial :
       {R"({"hosts": ["here"]})", R"({"hosts": ["here", "here"], "rank_cpu_s": [1]})",
        R"({"hosts": ["here"], "rank_cpu_s": [-1]})", R"({"hosts": ["here"], "rank_cpu_s": ["1"]})"}) {
    CAPTURE(partial);
    const auto counted = ranks_on_host(partial, "here");
    REQUIRE(counted);
    CHECK(counted->ranks >= 1);
    CHECK_FALSE(counted->cpu_s);
  }
  CHECK_FALSE(ranks_on_host("not json", "here"));
  CHECK_FALSE(ranks_on_host(R"({"rank_cpu_s": [1]})", "here"));
  CHECK_FALSE(ranks_on_host(R"({"hosts": [1]})", "here"));
}

TEST_CASE("the verdict names every threshold crossed, in words") {
  ConditionsThresholds t;
  MachineConditions c;
  c.wall_s = 2;
  c.foreign_cpu_pct = 38.4;
  c.steal_pct = 1;
  VerdictInputs in;
  in.conditions = &c;
  in.calibration_gflops = 30;
  in.campaign_median_calibration = 40;
  Verdict v = judge_attempt(in, t);
  CHECK(v.disturbed);
  REQUIRE(v.reasons.size() == 2);
  CHECK(v.reasons[0] == "other processes used 38 % of a core");
  CHECK(v.reasons[1] == "calibration 25 % below this campaign's median");
  CHECK(std::string(v.name()) == "disturbed");

  c.foreign_cpu_pct = 19;
  c.steal_pct = 7;
  in.calibration_gflops = 35;  // 12.5 % below: within 15 %
  v = judge_attempt(in, t);
  REQUIRE(v.reasons.size() == 1);
  CHECK(v.reasons[0] == "the hypervisor took 7 % of the CPUs' time (steal)");
  // Steal is counted in ticks too: over 2 s, one percentage point of each CPU's time is rounding.
  c.steal_pct = 5.9;
  CHECK_FALSE(judge_attempt(in, t).disturbed);

  c.steal_pct = 0;
  v = judge_attempt(in, t);
  CHECK_FALSE(v.disturbed);
  CHECK(std::string(v.name()) == "quiet");

  t.max_foreign_cpu_pct = 10;  // thresholds are the experiment's
  CHECK(judge_attempt(in, t).disturbed);
  c.wall_s = 1;
  CHECK(judge_idle_machine(c, t).reasons.at(0) == "other processes used 19 % of a core over 1.0 s");
}

TEST_CASE("over a short attempt, /proc/stat's tick rounding is not taken for other processes") {
  ConditionsThresholds t;
  MachineConditions c;
  c.cpus = 2;
  c.wall_s = 0.015;  // an `echo` trial: two ticks per CPU are 267 % of a core here
  c.foreign_cpu_pct = 150;
  VerdictInputs in;
  in.conditions = &c;
  CHECK_FALSE(judge_attempt(in, t).disturbed);
  c.wall_s = 1;  // the same share over a second is real: the margin is 4 %
  CHECK(judge_attempt(in, t).disturbed);
  c.wall_s = 0.5;
  c.foreign_cpu_pct = 200 + 8 + t.max_foreign_cpu_pct;  // hogs on both cores, past the margin
  CHECK(judge_attempt(in, t).disturbed);

  // CPU pressure includes the job's own start-up: judged from one second on.
  c.foreign_cpu_pct = 0;
  c.cpu_pressure_pct = 20;
  c.wall_s = 0.015;
  CHECK_FALSE(judge_attempt(in, t).disturbed);
  c.wall_s = 2;
  CHECK(judge_attempt(in, t).disturbed);
  // A job that kept both CPUs busy waits on its own threads: its pressure is not judged.
  c.job_cpu_s = 2 * 1.9;
  CHECK_FALSE(judge_attempt(in, t).disturbed);
  c.job_cpu_s = 2 * 0.9;  // one CPU's worth left idle: whoever waited, waited for someone else
  CHECK(judge_attempt(in, t).disturbed);
}

TEST_CASE("per-step times that jump to a second level are bimodal, steady ones are not") {
  StepTimes jump;
  for (int s = 0; s < 20; ++s) {
    jump.step.push_back(s + 3);
    jump.ms.push_back(s < 9 ? 155 + s % 3 : 516 + s % 2);
  }
  CHECK(bimodal_steps(jump, 1.5) == "per-step times bimodal: 156 → 517 ms at step 12");
  CHECK(bimodal_steps(jump, 1.5, 5) == "per-step times bimodal: 156 → 517 ms at step 12");
  CHECK_FALSE(bimodal_steps(jump, 4.0));
  // Millisecond steps a scheduler tick doubles: two levels by ratio, too close to be a disturbance.
  StepTimes ticks;
  for (int s = 0; s < 30; ++s) {
    ticks.step.push_back(s + 5);
    ticks.ms.push_back(s % 5 == 0 ? 9.6 : 5.1);
  }
  CHECK(bimodal_steps(ticks, 1.5) == "per-step times bimodal: 5 → 10 ms at step 5");
  CHECK_FALSE(bimodal_steps(ticks, 1.5, 5));
  StepTimes steady;
  for (int s = 0; s < 20; ++s) {
    steady.step.push_back(s);
    steady.ms.push_back(100 + (s * 7) % 11);
  }
  CHECK_FALSE(bimodal_steps(steady, 1.5));
  // One slow step is an outlier, not a second level.
  steady.ms[5] = 400;
  CHECK_FALSE(bimodal_steps(steady, 1.5));
}

TEST_CASE("the engine's memory bandwidth and latency probes count against the campaign's medians") {
  ConditionsThresholds t;
  VerdictInputs in;
  in.memory_gbps = 6.0;
  in.campaign_median_memory_gbps = 9.0;  // 33 % below: over 20 %
  in.latency_us = 2.0;
  in.campaign_median_latency_us = 1.6;  // 25 % above: within 50 %
  Verdict v = judge_attempt(in, t);
  REQUIRE(v.reasons.size() == 1);
  CHECK(v.reasons[0] == "memory copy bandwidth 33 % below this campaign's median (6.0 against 9.0 GB/s per thread)");
  in.memory_gbps = 7.5;  // 17 % below
  in.latency_us = 4.0;   // 150 % above
  v = judge_attempt(in, t);
  REQUIRE(v.reasons.size() == 1);
  CHECK(v.reasons[0] == "all-reduce latency floor 150 % above this campaign's median (4.0 against 1.6 µs)");
  in.oversubscribed = true;  // ranks taking turns on the CPUs: the latency floor measures the scheduler
  CHECK_FALSE(judge_attempt(in, t).disturbed);
  in.oversubscribed = false;
  t.max_latency_rise_pct = 200;  // the experiment's threshold
  CHECK_FALSE(judge_attempt(in, t).disturbed);
  in.campaign_median_latency_us.reset();  // a probe without a campaign to compare with says nothing
  in.latency_us = 100;
  CHECK_FALSE(judge_attempt(in, t).disturbed);
}

TEST_CASE("mtrun's core round trip around a job counts against the campaign's usual one") {
  ConditionsThresholds t;
  VerdictInputs in;
  in.core_round_trip_ns = 512;
  in.campaign_median_core_round_trip_ns = 103;  // the cores far apart: 397 % above, over 200 %
  Verdict v = judge_attempt(in, t);
  REQUIRE(v.reasons.size() == 1);
  CHECK(v.reasons[0] == "core-to-core round trip 397 % above this campaign's usual (512 against 103 ns)");
  in.core_round_trip_ns = 110;
  in.campaign_median_core_round_trip_ns = 53;  // a usual settled at the cores' half-value moments
  CHECK_FALSE(judge_attempt(in, t).disturbed);
  in.core_round_trip_ns = 512;
  in.campaign_median_core_round_trip_ns = 103;
  t.max_core_round_trip_rise_pct = 500;  // the experiment's threshold
  CHECK_FALSE(judge_attempt(in, t).disturbed);
  t = ConditionsThresholds{};
  in.campaign_median_core_round_trip_ns.reset();
  CHECK_FALSE(judge_attempt(in, t).disturbed);
}

TEST_CASE("the core round trips of a campaign's attempts are stored and judged against their usual figure") {
  TempStore t("mt_conditions_round_trip", 5);
  const ConditionsThresholds thresholds;
  auto assess = [&](int ordinal, std::optional<double> before, std::optional<double> after, int cpus = 2) {
    Trial trial;
    trial.study = "s";
    trial.workload = "command";
    trial.identity = trial.group_key = "id" + std::to_string(ordinal);
    const std::int64_t row = t.store.add_trial_if_new("c", trial, ordinal);
    const std::int64_t attempt = t.store.begin_attempt(row, 1, "cmd", "/run", "/run/log.txt", std::nullopt);
    MachineConditions c;
    c.wall_s = 2;
    c.cpus = cpus;
    c.core_round_trip_ns_before = before;
    c.core_round_trip_ns_after = after;
    AttemptOutcome o;
    o.state = AttemptState::Succeeded;
    return assess_attempt(t.store.db(), "c", attempt, c, o, thresholds);
  };
  // A campaign that starts with the cores far apart: the first attempt is its own usual.
  CHECK_FALSE(assess(0, 520, 500).disturbed);
  CHECK(assess(1, 95, std::nullopt).reasons.empty());  // one reading: it is both
  // Each attempt's smaller reading makes the usual: 105 is the median of 500, 95 and 105.
  const Verdict far = assess(2, 105, 530);
  REQUIRE(far.reasons.size() == 1);
  CHECK(far.reasons[0] == "core-to-core round trip 405 % above this campaign's usual (530 against 105 ns)");
  CHECK_FALSE(assess(3, std::nullopt, std::nullopt).disturbed);  // not read: not counted
  CHECK_FALSE(assess(4, 110, 120).disturbed);
  // Against the attempts on as many CPUs only: alone on 64, this one is its own usual.
  CHECK_FALSE(assess(5, 900, 900, 64).disturbed);
  CHECK(campaign_usual_core_round_trips(t.store.db(), "c", 2) == std::vector<double>{500, 95, 105, 110});
  CHECK(campaign_usual_core_round_trip(t.store.db(), "c", 2) == 107.5);  // what a look waits for
  CHECK_FALSE(campaign_usual_core_round_trip(t.store.db(), "c", 64));    // one attempt: no usual yet
  CHECK(t.query("SELECT group_concat(coalesce(core_round_trip_ns_before, '-') || '/' || "
                "coalesce(core_round_trip_ns_after, '-'), ' ') FROM conditions") ==
        "520.0/500.0 95.0/- 105.0/530.0 -/- 110.0/120.0 900.0/900.0");
}

TEST_CASE("the core round trip is read between CPUs this process may use, and leaves its CPUs as they were") {
  const std::vector<int> cpus = allowed_cpus();
  REQUIRE_FALSE(cpus.empty());
  CHECK_FALSE(core_round_trip_ns({cpus.front()}));  // one CPU: no pair
  if (cpus.size() >= 2) {
    const auto ns = core_round_trip_ns(cpus, /*budget_ms=*/2000);
    REQUIRE(ns);
    CHECK(*ns > 0);
    CHECK(*ns < 1e6);  // a round trip well under a millisecond, even on a busy machine
  }
  // A CPU this process may not run on cannot be timed.
  int outside = 0;
  while (std::find(cpus.begin(), cpus.end(), outside) != cpus.end()) ++outside;
  CHECK_FALSE(core_round_trip_ns({cpus.front(), outside}));
  CHECK(allowed_cpus() == cpus);
}

TEST_CASE("a look before a trial reads busy while the cores are far apart from the campaign's usual") {
  if (allowed_cpus().size() < 2) return;  // one CPU: no round trip to time
  // The cores are timed only after a look that reads quiet: no load this machine may show stops it.
  ConditionsThresholds t;
  t.max_foreign_cpu_pct = t.max_cpu_pressure_pct = 1e9;
  t.max_steal_pct = 100;
  // Against a usual far below any real round trip the cores read far apart, where the probe can time
  // them at all (past its budget on a machine whose every core is taken, it reads nothing).
  const QuietCheck far = check_quiet(t, 0, nullptr, {}, /*usual_round_trip_ns=*/0.01);
  REQUIRE(far.measured);
  if (busy_reasons(far).empty() && !core_round_trip_ns(allowed_cpus())) {
    MESSAGE("the cores could not be timed now (every core busy): the far-apart look is not checked");
    return;
  }
  CHECK(far.busy());
  CHECK(busy_reasons(far).find("cores far apart: round trip ") != std::string::npos);
  CHECK(busy_reasons(far).find(" ns against this campaign's usual 0") != std::string::npos);
  // Against one far above, or none, they never do.
  for (const std::optional<double> usual : {std::optional<double>(1e9), std::optional<double>()}) {
    const QuietCheck near = check_quiet(t, 0, nullptr, {}, usual);
    CHECK(busy_reasons(near).find("cores far apart") == std::string::npos);
  }
}

TEST_CASE("a probe's campaign values are those of attempts laid out alike by the same program") {
  TempStore t("mt_conditions_probe", 7);
  std::vector<std::int64_t> attempts;
  struct Layout {
    const char* study;
    const char* workload;
    int ranks;
    double threads;
  };
  const Layout layouts[] = {{"s", "train", 2, 1},      {"s", "train", 2, 1},    {"s", "train", 4, 1},
                            {"s", "train", 2, 2},      {"other", "comm", 2, 1}, {"peer", "command", 2, 1},
                            {"peer2", "command", 2, 1}};
  for (const auto& [study, workload, ranks, threads] : layouts) {
    Trial trial;
    trial.study = study;
    trial.workload = workload;
    trial.ranks = ranks;
    trial.identity = trial.group_key = "id" + std::to_string(attempts.size());
    const std::int64_t row = t.store.add_trial_if_new("c", trial, int(attempts.size()));
    attempts.push_back(t.store.begin_attempt(row, 1, "cmd", "/run", "/run/log.txt", std::nullopt));
    AttemptOutcome o;
    o.state = AttemptState::Succeeded;
    o.metrics = {{kCalibrationMetric, 100.0 + double(attempts.size())}, {"threads_per_rank", threads}};
    t.store.finish_attempt(attempts.back(), o, std::nullopt);
  }
  auto values = [&](std::size_t k, const char* metric) {
    return campaign_metric_laid_out_alike(t.store.db(), "c", attempts[k], metric);
  };
  // Every engine workload probes with the engine's code; each command study with its own.
  CHECK(values(0, kCalibrationMetric) == std::vector<double>{101, 102, 105});
  CHECK(values(2, kCalibrationMetric) == std::vector<double>{103});
  CHECK(values(3, kCalibrationMetric) == std::vector<double>{104});  // 2 ranks, but 2 threads each
  CHECK(values(4, kCalibrationMetric) == std::vector<double>{101, 102, 105});
  CHECK(values(5, kCalibrationMetric) == std::vector<double>{106});
  CHECK(values(6, kCalibrationMetric) == std::vector<double>{107});
  CHECK(values(0, kMemoryBandwidthMetric).empty());
}

TEST_CASE("conditions and verdicts are stored per attempt and read back through the view") {
  TempStore t("mt_conditions_store", 1);
  Trial trial;
  trial.study = "s";
  trial.workload = "command";
  trial.identity = "id1";
  trial.group_key = "g1";
  const std::int64_t row = t.store.add_trial_if_new("c", trial, 0);
  const std::int64_t attempt = t.store.begin_attempt(row, 1, "cmd", "/run", "/run/log.txt", std::nullopt);
  MachineConditions c;
  c.wall_s = 2;
  c.cpus = 2;
  c.foreign_cpu_pct = 55;
  c.calibration_gflops = 40;
  c.samples = {{0.5, 1.25, std::nullopt, 900}};
  Verdict v;
  v.disturbed = true;
  v.reasons = {"other processes used 55 % of a core"};
  record_conditions(t.store.db(), attempt, c, v);
  auto stored = read_verdict(t.store.db(), attempt);
  REQUIRE(stored);
  CHECK(stored->verdict == "disturbed");
  CHECK(stored->reasons == v.reasons);
  CHECK(stored->calibration_gflops == 40);
  CHECK_FALSE(read_verdict(t.store.db(), attempt + 1));
  CHECK(t.query("SELECT study || ' ' || verdict || ' ' || foreign_cpu_pct FROM conditions") == "s disturbed 55.0");
  CHECK(t.query("SELECT samples FROM attempt_conditions") ==
        "[{\"cpu_mhz\":null,\"load1\":1.25,\"mem_available_mib\":900.0,\"t\":0.5}]");
  CHECK_FALSE(stored->job_ranks_here);  // a command's result names no hosts
  CHECK(t.query("SELECT count(*) FROM conditions WHERE job_ranks_here IS NULL") == "1");
}

TEST_CASE("a job whose ranks all ran on other hosts is not judged by mtrun's host's load") {
  TempStore t("mt_conditions_elsewhere", 3);
  // mtrun's host busy with other work (a cluster's login node): 150 % of a core foreign.
  MachineConditions busy_host;
  busy_host.wall_s = 10;
  busy_host.cpus = 4;
  busy_host.foreign_cpu_pct = 150;
  auto assess = [&](int ordinal, const std::string& hosts) {
    Trial trial;
    trial.study = "s";
    trial.workload = "train";
    trial.ranks = 2;
    trial.identity = trial.group_key = "id" + std::to_string(ordinal);
    const std::int64_t row = t.store.add_trial_if_new("c", trial, ordinal);
    const std::int64_t attempt = t.store.begin_attempt(row, 1, "cmd", "/run", "/run/log.txt", std::nullopt);
    AttemptOutcome o;
    o.state = AttemptState::Succeeded;
    o.result_json = R"({"status": "ok", "hosts": )" + hosts + "}";
    return std::pair{assess_attempt(t.store.db(), "c", attempt, busy_host, o, ConditionsThresholds{}),
                     *read_verdict(t.store.db(), attempt)};
  };
  const auto [elsewhere, elsewhere_row] = assess(0, R"(["node-1", "node-2"])");
  CHECK_FALSE(elsewhere.disturbed);
  CHECK(elsewhere_row.job_ranks_here == 0);
  const auto [here, here_row] = assess(1, "[\"" + this_host() + R"(", "node-2"])");
  CHECK(here.disturbed);  // one rank shared mtrun's busy host
  CHECK(here.reasons == std::vector<std::string>{"other processes used 150 % of a core"});
  CHECK(here_row.job_ranks_here == 1);
  CHECK(t.query("SELECT group_concat(job_ranks_here) FROM conditions") == "0,1");
}

TEST_CASE("conditions thresholds are validated with the other keys") {
  const std::string head = "name: x\n";
  const std::string study = "studies:\n  - name: s\n    workload: command\n    command: [echo, 1]\n";
  CHECK(load_errors(head + "conditions: {max_foreign_cpu_pct: -1}\n" + study) ==
        "conditions max_foreign_cpu_pct must be at least 0, got -1\n");
  CHECK(
      load_errors(head + "conditions: {max_foriegn_cpu_pct: 5}\n" + study).find("unknown key 'max_foriegn_cpu_pct'") !=
      std::string::npos);
  CHECK(load_errors(head + "conditions: {max_foreign_cpu_pct: 50, keep_disturbed: true}\n" + study).empty());
  CHECK(load_errors(head + "conditions: {settle_s: -1}\n" + study) ==
        "conditions settle_s must be at least 0, got -1\n");
  CHECK(load_errors(head + "conditions: {settle_s: 7200}\n" + study) == "conditions settle_s must be at most 3600 s\n");
  CHECK(load_errors(head + "conditions: {wait_quiet_s: soon}\n" + study).find("wait_quiet_s") != std::string::npos);
  CHECK(load_errors(head + "conditions: {max_core_round_trip_rise_pct: -5}\n" + study) ==
        "conditions max_core_round_trip_rise_pct must be at least 0, got -5\n");
  CHECK(load_errors(head + "conditions: {max_core_round_trip_rise_pct: 300}\n" + study).empty());
}

TEST_CASE("an experiment's wait before each trial is loaded, kept with the campaign and read back") {
  LoadResult r = testing::load_experiment_text(
      "name: x\nconditions: {settle_s: 10, wait_quiet_s: 30}\n"
      "studies:\n  - name: s\n    workload: command\n    command: [echo, 1]\n");
  REQUIRE(r.experiment);
  CHECK(r.experiment->conditions.settle_s == 10);
  CHECK(r.experiment->conditions.wait_quiet_s == 30);
  const ConditionsThresholds kept = thresholds_from_json(thresholds_to_json(r.experiment->conditions));
  CHECK(kept.settle_s == 10);  // `rerun` settles as the campaign's `run` did
  CHECK(kept.wait_quiet_s == 30);
  // A campaign recorded before the keys existed asked for neither.
  const ConditionsThresholds older = thresholds_from_json(R"({"max_steal_pct": 5})");
  CHECK(older.settle_s == 0);
  CHECK(older.wait_quiet_s == 0);
}

TEST_CASE("--settle and --wait-quiet override the experiment's waits, which apply where they are not given") {
  MeasurementSettings settings;
  settings.conditions.settle_s = 10;
  settings.conditions.wait_quiet_s = 30;
  CHECK(settings.settle_seconds() == 10);
  CHECK(settings.wait_quiet_seconds() == 30);
  settings.settle_s = 0;  // `run --settle 0`: not at all, whatever the experiment says
  settings.wait_quiet_s = 5;
  CHECK(settings.settle_seconds() == 0);
  CHECK(settings.wait_quiet_seconds() == 5);
}

TEST_CASE("a job is oversubscribed when one host ran more threads than it has CPUs") {
  const std::string four_ranks = R"({"hosts": ["a", "a", "a", "a"], "environment": {"cpu_cores": 2}})";
  CHECK(job_oversubscribed(four_ranks, 16));  // the result's own host count wins over the runner's
  CHECK_FALSE(job_oversubscribed(R"({"hosts": ["a", "a"], "environment": {"cpu_cores": 2}})", 2));
  CHECK(job_oversubscribed(R"({"hosts": ["a", "a"], "threads_per_rank": 2, "environment": {"cpu_cores": 2}})", 2));
  CHECK_FALSE(job_oversubscribed(R"({"hosts": ["a", "a", "b", "b"], "environment": {"cpu_cores": 2}})", 2));
  CHECK(job_oversubscribed(R"({"hosts": ["a", "a", "a"]})", 2));  // no cores said: this machine's
  CHECK_FALSE(job_oversubscribed(R"({"status": "ok"})", 2));      // nothing said: judged as before
  CHECK_FALSE(job_oversubscribed("not json", 2));
  // A workload that says its threads only through the environment it ran in, as a report reads it.
  CHECK(job_oversubscribed(R"({"hosts": ["a", "a"], "environment": {"env_vars": {"OMP_NUM_THREADS": "2"}}})", 2));
  // Counts that are not whole numbers of at least one are not stated: the machine's own CPUs judge.
  CHECK_FALSE(job_oversubscribed(R"({"hosts": ["a", "a"], "environment": {"cpu_cores": 0}})", 2));
  CHECK_FALSE(job_oversubscribed(R"({"hosts": ["a", "a"], "threads_per_rank": -3, "environment": {}})", 2));
}

TEST_CASE("a stated count is a whole number of at least one, as a number or as decimal text") {
  const auto counts = nlohmann::json::parse(
      R"({"n": 4, "text": "8", "zero": 0, "negative": -1, "half": 2.5, "huge": 1e300, "words": "4 cores",
          "beyond": "99999999999", "null": null, "list": [4]})");
  CHECK(stated_count(counts, "n") == 4);
  CHECK(stated_count(counts, "text") == 8);
  for (std::string key : {"zero", "negative", "half", "huge", "words", "beyond", "null", "list", "missing"}) {
    CAPTURE(key);
    CHECK_FALSE(stated_count(counts, key.c_str()));
  }
  CHECK_FALSE(stated_count(nlohmann::json::array(), "n"));
}

TEST_CASE("a job's use of its cores is read alike by the verdict and by reports") {
  const auto result = nlohmann::json::parse(
      R"({"hosts": ["a", "a", "b"], "threads_per_rank": 3,
          "environment": {"cpu_cores": 8, "threads_per_rank": 5, "env_vars": {"OMP_NUM_THREADS": "7"}}})");
  const CoreUse use = stated_core_use(result, result["environment"], 3);
  CHECK(use.cores == 8);
  CHECK(use.ranks_per_node == 2);
  CHECK(use.threads_per_rank == 3);  // the result's own count first, then the environment's
  CHECK(stated_core_use({}, result["environment"], 3).threads_per_rank == 5);
  CHECK(stated_core_use({}, {{"env_vars", {{"OMP_NUM_THREADS", "7"}}}}, 3).threads_per_rank == 7);
  const CoreUse nothing_said = stated_core_use({}, {}, 4);
  CHECK(nothing_said.ranks_per_node == 4);  // no hosts named: every rank on one
  CHECK_FALSE(nothing_said.cores);
  CHECK_FALSE(nothing_said.threads_per_rank);
}

TEST_CASE("settling waits the time asked for, and stops early when told to") {
  CHECK(settle(0.2) >= 0.2);
  std::atomic<bool> stop{true};
  CHECK(settle(3600, &stop) < 3600);
}

TEST_CASE("the wait before a trial times what it did, for the attempt's row and the progress line") {
  const TrialWait nothing = wait_before_trial(0, 0, ConditionsThresholds{});
  CHECK_FALSE(nothing.before.anything());
  CHECK(nothing.words.empty());

  const TrialWait settled = wait_before_trial(0.2, 0, ConditionsThresholds{});
  REQUIRE(settled.before.settle_s);
  CHECK(*settled.before.settle_s >= 0.2);
  CHECK_FALSE(settled.before.quiet_wait_s);
  CHECK(settled.words == std::vector<std::string>{"settled 0.2 s"});

  // A look lasts kQuietProbeSeconds; what it finds depends on the machine, so only its form is checked.
  const TrialWait looked = wait_before_trial(0, 1, ConditionsThresholds{});
  REQUIRE(looked.before.quiet_wait_s);
  CHECK(*looked.before.quiet_wait_s >= kQuietProbeSeconds);
  CHECK_FALSE(looked.before.settle_s);
  const bool readable = std::filesystem::exists("/proc/stat");
  if (readable) {
    CHECK((looked.before.quiet_found == "quiet" || looked.before.quiet_found == "busy"));
  } else {
    CHECK(looked.before.quiet_found.empty());  // nothing known, nothing claimed
  }

  std::atomic<bool> stop{true};
  const TrialWait stopped = wait_before_trial(3600, 3600, ConditionsThresholds{}, &stop);
  REQUIRE(stopped.before.settle_s);
  CHECK(*stopped.before.settle_s < 3600);
  CHECK_FALSE(stopped.before.quiet_wait_s);  // stopped while settling: no look follows
}

#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "run/attempt_verdict.h"
#include "run/host_loads.h"

using namespace mt;

namespace {

nlohmann::json window(double busy_cpu_s, double own_cpu_s, const std::string& boot_id, double steal_pct = 0,
                      double wall_s = 10, int cpus = 4) {
  return {{"wall_s", wall_s},       {"cpus", cpus},           {"busy_cpu_s", busy_cpu_s},
          {"own_cpu_s", own_cpu_s}, {"steal_pct", steal_pct}, {"boot_id", boot_id}};
}

std::string result(const nlohmann::json& hosts, const nlohmann::json& windows) {
  return nlohmann::json{{"hosts", hosts}, {"rank_host_window", windows}}.dump();
}

// An attempt whose one other machine, `hosts`, read `cpus` CPUs over `wall_s` (nothing else yet).
VerdictInputs on_other_machine(const std::string& hosts, int cpus, double wall_s) {
  HostLoad machine;
  machine.hosts = hosts;
  machine.cpus = cpus;
  machine.wall_s = wall_s;
  VerdictInputs in;
  in.other_machines = {machine};
  return in;
}

}  // namespace

TEST_CASE("another machine's load: its busy time less the job's ranks' own there") {
  // mtrun on the login node; two ranks on c1, two on c2, each host's ranks using 9.5 s of CPU each.
  const std::string json = result(
      {"c1", "c1", "c2", "c2"},
      {window(19.2, 9.5, "k1"), window(19.2, 9.5, "k1"), window(23.0, 9.5, "k2", 7.5), window(23.0, 9.5, "k2", 7.5)});
  const auto loads = other_machines_load(json, "k-login", "login");
  REQUIRE(loads.size() == 2);
  CHECK(loads[0].hosts == "c1");
  CHECK(loads[0].foreign_cpu_pct == doctest::Approx(2.0));  // 0.2 s over 10 s
  CHECK(loads[0].steal_pct == 0);
  CHECK(loads[1].hosts == "c2");
  CHECK(loads[1].foreign_cpu_pct == doctest::Approx(40.0));  // 4 s over 10 s
  CHECK(loads[1].steal_pct == 7.5);
  CHECK(loads[1].cpus == 4);
  CHECK(loads[1].wall_s == 10);

  VerdictInputs in;
  in.other_machines = loads;
  const Verdict verdict = judge_attempt(in, ConditionsThresholds{});
  CHECK(verdict.disturbed);
  REQUIRE(verdict.reasons.size() == 2);
  CHECK(verdict.reasons[0] == "host c2: other processes used 40 % of a core");
  CHECK(verdict.reasons[1] == "host c2: the hypervisor took 8 % of the CPUs' time (steal)");
}

TEST_CASE("mtrun's own machine is read by mtrun, not again from the ranks") {
  const std::string json = result({"a", "b"}, {window(30, 9.5, "k1"), window(30, 9.5, "k2")});
  // By kernel: a's kernel is mtrun's.
  auto loads = other_machines_load(json, "k1", "login");
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].hosts == "b");
  // By hostname, where the boot id says nothing.
  loads = other_machines_load(json, "", "b");
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].hosts == "a");
}

TEST_CASE("hosts that share a kernel are one machine, its ranks' CPU all the job's") {
  // Network namespaces (or containers) of one machine: each rank's /proc/stat is the same machine's.
  const std::string json = result({"ns-a", "ns-b"}, {window(19.5, 9.6, "k1"), window(19.6, 9.7, "k1")});
  const auto loads = other_machines_load(json, "k-login", "login");
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].hosts == "ns-a+ns-b");
  CHECK(loads[0].foreign_cpu_pct == doctest::Approx(2.0));  // 19.5 - 19.3 over 10 s
  // And when that machine is mtrun's own, neither is judged again.
  CHECK(other_machines_load(json, "k1", "login").empty());
  // With no machine named as mtrun's, every one (what `mtrun show` lists).
  REQUIRE(other_machines_load(json, "", "").size() == 1);
  CHECK(other_machines_load(result({"a", "b"}, {window(30, 9.5, "k1"), window(30, 9.5, "k2")}), "", "").size() == 2);
}

TEST_CASE("a machine with a rank's window missing is left out; results without windows give none") {
  const std::string json = result({"c1", "c1", "c2"}, {window(30, 9.5, "k1"), nullptr, window(30, 9.5, "k2")});
  const auto loads = other_machines_load(json, "k-login", "login");
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].hosts == "c2");

  CHECK(other_machines_load(R"({"hosts": ["c1"]})", "k", "login").empty());
  CHECK(other_machines_load(result({"c1", "c2"}, {window(1, 1, "k1")}), "k", "login").empty());
  CHECK(other_machines_load("not json", "k", "login").empty());
  CHECK(other_machines_load(result({"c1"}, {{{"wall_s", 0}}}), "k", "login").empty());
  CHECK(other_machines_load(result({"c1"}, {window(1, 1, "k1", 0, 10, 0)}), "k", "login").empty());
  CHECK(other_machines_load(result({"c1"}, {window(-1, 1, "k1")}), "k", "login").empty());
  CHECK(other_machines_load(result({1}, {window(1, 1, "k1")}), "k", "login").empty());
}

TEST_CASE("another machine's CPU is judged as mtrun's own host is: tick rounding, then the threshold") {
  // 64 CPUs over 2 s: ticks alone can read as 64 % of a core.
  VerdictInputs in = on_other_machine("c9", 64, 2);
  in.other_machines[0].foreign_cpu_pct = 70;
  CHECK_FALSE(judge_attempt(in, ConditionsThresholds{}).disturbed);
  in.other_machines[0].foreign_cpu_pct = 90;
  CHECK(judge_attempt(in, ConditionsThresholds{}).disturbed);
  ConditionsThresholds lenient;
  lenient.max_foreign_cpu_pct = 50;
  CHECK_FALSE(judge_attempt(in, lenient).disturbed);
}

TEST_CASE("another machine's steal over a short window is judged beyond a tick's worth") {
  // 0.05 s on 2 CPUs is 10 ticks: one of them stolen reads as 10 %.
  VerdictInputs in = on_other_machine("c3", 2, 0.05);
  in.other_machines[0].steal_pct = 10;
  CHECK_FALSE(judge_attempt(in, ConditionsThresholds{}).disturbed);
  in.other_machines[0].wall_s = 10;  // over 10 s, 10 % is the hypervisor's
  CHECK(judge_attempt(in, ConditionsThresholds{}).disturbed);
}

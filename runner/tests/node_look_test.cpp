#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "run/node_look.h"
#include "run/quiet_machine.h"

using namespace mt;

namespace {

NodeReading reading(const std::string& node, double foreign_pct, std::optional<double> steal = 0.0) {
  NodeReading r;
  r.host = "host-" + node;
  r.node = node;
  r.conditions.wall_s = 1.0;
  r.conditions.cpus = 4;
  r.conditions.busy_cpu_s = foreign_pct / 100;
  r.conditions.runner_cpu_s = 0.002;
  r.conditions.foreign_cpu_pct = foreign_pct;
  r.conditions.steal_pct = steal;
  r.conditions.cpu_pressure_pct = 0.5;
  return r;
}

LaunchContext slurm_context(const std::string& allocation, const std::string& mode = "srun", int nodes = 0) {
  LaunchContext context;
  context.launcher.type = "slurm";
  context.launcher.mode = mode;
  context.slurm_allocation = allocation;
  context.slurm_nodes = nodes;
  return context;
}

}  // namespace

TEST_CASE("a node's reading reads back as it was written") {
  NodeReading written = reading("c7", 38.5, std::nullopt);
  written.conditions.load1_after = 1.25;
  const NodeReading read = parse_reading(reading_json(written));
  CHECK(read.host == "host-c7");
  CHECK(read.node == "c7");
  CHECK(read.conditions.wall_s == 1.0);
  CHECK(read.conditions.cpus == 4);
  CHECK(read.conditions.foreign_cpu_pct == 38.5);
  CHECK(read.conditions.runner_cpu_s == 0.002);
  CHECK_FALSE(read.conditions.steal_pct.has_value());
  CHECK(read.conditions.cpu_pressure_pct == 0.5);
  CHECK(read.conditions.load1_after == 1.25);
  CHECK(reading_json(read) == reading_json(written));
}

TEST_CASE("a line that is not a reading is refused, saying what it lacks") {
  CHECK_THROWS_WITH_AS(parse_reading("srun: error: task 0 launch failed"), "not a JSON object", std::runtime_error);
  CHECK_THROWS_WITH_AS(parse_reading(R"({"host": "a", "node": "b"})"), "no number `wall_s`", std::runtime_error);
  std::string no_cpus = reading_json(reading("c1", 0));
  no_cpus.replace(no_cpus.find("\"cpus\":4"), 8, "\"cpus\":0");
  CHECK_THROWS_WITH_AS(parse_reading(no_cpus), "`cpus` must be 1 to 1000000", std::runtime_error);
  std::string huge_cpus = reading_json(reading("c1", 0));
  huge_cpus.replace(huge_cpus.find("\"cpus\":4"), 8, "\"cpus\":1e300");
  CHECK_THROWS_WITH_AS(parse_reading(huge_cpus), "`cpus` must be 1 to 1000000", std::runtime_error);
  std::string no_time = reading_json(reading("c1", 0));
  no_time.replace(no_time.find("\"wall_s\":1.0"), 12, "\"wall_s\":0");
  CHECK_THROWS_WITH_AS(parse_reading(no_time), "`wall_s` must be positive", std::runtime_error);
}

TEST_CASE("the nodes' look is busy when any node is, each reason naming its node") {
  const std::string output = reading_json(reading("c3", 40)) + "\n" + reading_json(reading("c1", 2)) + "\n" +
                             reading_json(reading("c2", 95, 8.0)) + "\n";
  const NodesLook look = judge_node_readings(output, 3, ConditionsThresholds{});
  REQUIRE(look.measured);
  CHECK(look.verdict.disturbed);
  // In node order, whichever answered first.
  REQUIRE(look.verdict.reasons.size() == 3);
  CHECK(look.verdict.reasons[0] == "node c2: other processes used 95 % of a core over 1.0 s");
  CHECK(look.verdict.reasons[1] == "node c2: the hypervisor took 8 % of the CPUs' time (steal) over 1.0 s");
  CHECK(look.verdict.reasons[2] == "node c3: other processes used 40 % of a core over 1.0 s");

  const NodesLook quiet = judge_node_readings(reading_json(reading("c1", 2)) + "\n" + reading_json(reading("c2", 3)), 2,
                                              ConditionsThresholds{});
  CHECK(quiet.measured);
  CHECK_FALSE(quiet.verdict.disturbed);
  // The campaign's thresholds judge, not the defaults (15 % less 8 % of tick rounding over 1 s on 4 CPUs).
  ConditionsThresholds strict;
  strict.max_foreign_cpu_pct = 5;
  CHECK_FALSE(judge_node_readings(reading_json(reading("c1", 15)), 1, ConditionsThresholds{}).verdict.disturbed);
  CHECK(judge_node_readings(reading_json(reading("c1", 15)), 1, strict).verdict.disturbed);
}

TEST_CASE("a node without a reading leaves the look unknown, never quiet") {
  const NodesLook missing = judge_node_readings(reading_json(reading("c1", 0)) + "\n", 2, ConditionsThresholds{});
  CHECK_FALSE(missing.measured);
  CHECK_FALSE(missing.verdict.disturbed);
  CHECK(missing.unavailable == "1 of the 2 nodes gave a reading (c1)");

  const NodesLook none = judge_node_readings("\n", 1, ConditionsThresholds{});
  CHECK_FALSE(none.measured);
  CHECK(none.unavailable == "no node gave a reading");

  const NodesLook twice =
      judge_node_readings(reading_json(reading("c1", 0)) + "\n" + reading_json(reading("c1", 0)), 2, {});
  CHECK_FALSE(twice.measured);
  CHECK(twice.unavailable == "node c1 gave two readings");

  const NodesLook garbled = judge_node_readings(reading_json(reading("c1", 0)) + "\nslurmstepd: oops\n", 2, {});
  CHECK_FALSE(garbled.measured);
  CHECK(garbled.unavailable == "line 2 of the nodes' readings is not one (not a JSON object): slurmstepd: oops");

  // Where the node count is not known, every node that answered counts.
  CHECK(judge_node_readings(reading_json(reading("c1", 0)), 0, {}).measured);
}

TEST_CASE("a launcher starts one look per node: srun beside any step still running, mpirun per host") {
  CHECK(node_look_command(srun_look_launcher(3), "/opt/mt/mtrun", 1.0) ==
        std::vector<std::string>{"srun", "--overlap", "--mpi=none", "--ntasks-per-node=1", "--job-name=mtrun-look",
                                 "--quiet", "--nodes=3", "--ntasks=3", "/opt/mt/mtrun", "look", "--json", "--load-only",
                                 "--seconds", "1"});
  const auto unknown = node_look_command(srun_look_launcher(0), "/opt/mt/mtrun", 0.5);
  CHECK(std::find_if(unknown.begin(), unknown.end(), [](const std::string& w) { return w.rfind("--nodes", 0) == 0; }) ==
        unknown.end());
  CHECK(unknown.back() == "0.5");
  CHECK(node_look_command(mpirun_look_launcher("/c/hosts", true, {"--mca", "btl_tcp_if_include", "mt0"}),
                          "/opt/mt/mtrun", 1.0) ==
        std::vector<std::string>{"mpirun", "--hostfile", "/c/hosts", "--map-by", "ppr:1:node", "--allow-run-as-root",
                                 "--mca", "btl_tcp_if_include", "mt0", "/opt/mt/mtrun", "look", "--json", "--load-only",
                                 "--seconds", "1"});
  const auto not_root = mpirun_look_launcher("/c/hosts", false, {});
  CHECK(std::find(not_root.begin(), not_root.end(), "--allow-run-as-root") == not_root.end());
}

TEST_CASE("the look is taken where the trials' ranks run") {
  LaunchContext local;
  local.launcher.type = "mpirun";
  local.slurm_nodes = 4;
  CHECK(look_place(local, "/bin/mtrun").where == LookPlace::Where::Here);
  local.slurm_nodes = 0;
  CHECK(describe_look_place(look_place(local, "/bin/mtrun")).empty());
  LaunchContext direct;
  direct.launcher.type = "local";
  CHECK(look_place(direct, "/bin/mtrun").where == LookPlace::Where::Here);

  LaunchContext hosts = local;
  hosts.launcher.hostfile = "/c/hosts";
  hosts.running_as_root = true;
  hosts.launcher.extra_args = {"--mca", "btl", "tcp,self"};
  hosts.slurm_nodes = 7;
  const LookPlace hostfile = look_place(hosts, "/bin/mtrun");
  CHECK(hostfile.where == LookPlace::Where::Nodes);
  CHECK(hostfile.launcher == mpirun_look_launcher("/c/hosts", true, {"--mca", "btl", "tcp,self"}));
  CHECK(hostfile.nodes == 0);  // SLURM_JOB_NUM_NODES is not the hostfile's
  CHECK(describe_look_place(hostfile) == "on the hostfile's hosts (mpirun)");
  CHECK(hostfile.recorded_as == "hostfile_hosts");
  CHECK(look_place(direct, "/bin/mtrun").recorded_as == "runner_host");

  const LookPlace nodes = look_place(slurm_context("4242", "srun", 2), "/bin/mtrun");
  CHECK(nodes.where == LookPlace::Where::Nodes);
  CHECK(nodes.nodes == 2);
  CHECK(nodes.launcher == srun_look_launcher(2));
  CHECK(nodes.mtrun == "/bin/mtrun");
  CHECK(describe_look_place(nodes) == "on the allocation's 2 nodes (srun)");
  CHECK(nodes.nodes_noun == "the allocation's nodes");
  CHECK(nodes.recorded_as == "allocation_nodes");
  CHECK(describe_look_place(look_place(slurm_context("4242", "srun", 1), "/bin/mtrun")) ==
        "on the allocation's 1 node (srun)");
  CHECK(slurm_node_count("2") == 2);
  for (const char* bad : {"", "two", "2x", "-1", "0"}) {
    CAPTURE(bad);
    CHECK(slurm_node_count(bad) == 0);
  }
  CHECK(slurm_node_count(nullptr) == 0);
  CHECK(describe_look_place(look_place(slurm_context("4242"), "/bin/mtrun")) == "on the allocation's nodes (srun)");

  const LookPlace own = look_place(slurm_context(""), "/bin/mtrun");
  CHECK(own.where == LookPlace::Where::InJob);
  CHECK(own.recorded_as == "job_nodes");
  CHECK(own.mtrun == "/bin/mtrun");
  CHECK(describe_look_place(own).find("allocation of its own") != std::string::npos);
  const LookPlace batch = look_place(slurm_context("4242", "sbatch", 2), "/bin/mtrun");
  CHECK(batch.where == LookPlace::Where::InJob);
  CHECK(batch.why_in_job.find("(sbatch)") != std::string::npos);
}

TEST_CASE("where the look is taken inside each trial's job, none is waited for or recorded before it") {
  LookPlace in_job;
  in_job.where = LookPlace::Where::InJob;
  in_job.why_in_job = "each trial runs in a Slurm allocation of its own";
  const QuietCheck check = check_quiet(ConditionsThresholds{}, 30, nullptr, in_job);
  CHECK_FALSE(check.measured);
  CHECK_FALSE(check.busy());
  CHECK(check.unavailable == in_job.why_in_job);
  CHECK(check.waited_s == 0);

  const TrialWait wait = wait_before_trial(0, 30, ConditionsThresholds{}, nullptr, in_job);
  CHECK_FALSE(wait.before.anything());
  CHECK(wait.before.quiet_found.empty());
  CHECK(wait.words.empty());
}

TEST_CASE("a node look that cannot start says why, and the trial's wait says it too") {
  LookPlace nodes;
  nodes.where = LookPlace::Where::Nodes;
  nodes.nodes = 1;
  nodes.mtrun = "/opt/mt/mtrun";
  nodes.launcher = {"/nonexistent/srun", "--overlap"};
  const TrialWait wait = wait_before_trial(0, 5, ConditionsThresholds{}, nullptr, nodes);
  REQUIRE(wait.words.size() == 1);
  CHECK(wait.words[0].rfind("could not look for a quiet machine: cannot start `/nonexistent/srun --overlap", 0) == 0);
  CHECK(wait.words[0].find("(each node runs `/opt/mt/mtrun look --json`: mtrun must be at that path there too)") !=
        std::string::npos);
  CHECK(wait.before.quiet_wait_s.has_value());
  CHECK(wait.before.quiet_found.empty());
  CHECK(wait.before.quiet_where == nodes.recorded_as);  // looked there, though nothing was found
}

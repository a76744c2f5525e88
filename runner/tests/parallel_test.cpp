// Trials in flight at once (`parallel`): where it is allowed, how each trial in flight is kept to
// its own nodes, hosts or CPUs, and what is refused and why.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "experiment/experiment_loader.h"
#include "experiment_text.h"
#include "experiment/parallel_rules.h"
#include "launch/launcher.h"
#include "store/trial_json.h"

using namespace mt;
using Argv = std::vector<std::string>;

namespace {

// Loads an experiment with `top` (YAML lines) before its one study.
LoadResult load_with(const std::string& top) {
  return testing::load_experiment_text("name: p\n" + top +
                                       "\nstudies:\n  - name: s\n    workload: train\n    matrix: {ranks: [1]}\n");
}

using testing::first_error;

LaunchRequest request(int ranks) { return {ranks, {}, {"/opt/mtengine", "train"}, "mtrun-abc-1", {}}; }

}  // namespace

TEST_CASE("cpu lists and host sets are read as Open MPI writes them, and must be disjoint") {
  CHECK(parse_cpu_list("0-3,8") == std::set<int>{0, 1, 2, 3, 8});
  CHECK(parse_cpu_list("5") == std::set<int>{5});
  CHECK_FALSE(parse_cpu_list(""));
  CHECK_FALSE(parse_cpu_list("3-1"));
  CHECK_FALSE(parse_cpu_list("a"));
  CHECK(hosts_of("n1:2,n2") == std::set<std::string>{"n1", "n2"});
  CHECK(cpu_sets_problem({"0-1", "2-3"}) == "");
  CHECK(cpu_sets_problem({"0-2", "2-3"}) == "CPU 2 is in more than one cpu set: the sets must be disjoint");
  CHECK(cpu_sets_problem({"x"}) == "cpu set 'x' is not a CPU list such as \"0-3,8\"");
  CHECK(host_sets_problem({"a,b", "c"}) == "");
  CHECK(host_sets_problem({"a,b", "b:2"}) == "host 'b' is in more than one host set: the sets must be disjoint");
}

TEST_CASE("parallel: allowed with Slurm or disjoint sets, refused on a shared machine") {
  LauncherConfig l;
  CHECK(parallel_problem(l, 1) == "");
  CHECK(parallel_problem(l, 2).find("parallel: 2 on this machine with mpirun would run trials side by side") == 0);
  l.cpu_sets = {"0", "1"};
  CHECK(parallel_problem(l, 2) == "");
  CHECK_FALSE(parallel_problem(l, 3).empty());
  l = {};
  l.hostfile = "/h";
  CHECK(parallel_problem(l, 2).find("needs 2 disjoint host sets") != std::string::npos);
  l.host_sets = {"a", "b"};
  CHECK(parallel_problem(l, 2) == "");
  l = {};
  l.type = "slurm";
  CHECK(parallel_problem(l, 8) == "");
  l.type = "local";
  CHECK_FALSE(parallel_problem(l, 2).empty());

  CHECK(load_with("parallel: 2\nlauncher: {type: slurm}").experiment->parallel == 2);
  CHECK(first_error(load_with("parallel: 2")).find("parallel: 2 on this machine with mpirun") == 0);
  LoadResult r = load_with("parallel: 2\nlauncher: {type: mpirun, cpu_sets: ['0', '1']}");
  REQUIRE(r.experiment);
  CHECK(launcher_from_json(launcher_to_json(r.experiment->launcher)).cpu_sets == Argv{"0", "1"});
  CHECK(first_error(load_with("launcher: {type: mpirun, cpu_sets: ['0-1', '1']}")) ==
        "CPU 1 is in more than one cpu set: the sets must be disjoint");
  CHECK(first_error(load_with("launcher: {type: slurm, cpu_sets: ['0']}")) ==
        "cpu_sets applies only to launcher mpirun on this machine (no hostfile)");
  CHECK(first_error(load_with("launcher: {type: mpirun, host_sets: [a]}")) ==
        "host_sets applies only to launcher mpirun with a hostfile");
  CHECK_FALSE(first_error(load_with("parallel: 0\nlauncher: {type: slurm}")).empty());
}

TEST_CASE("each trial in flight keeps to its slot: exclusive nodes, its CPUs, its hosts") {
  LaunchContext c;
  c.engine = "/opt/mtengine";
  c.cores = 4;
  c.launcher.type = "slurm";
  c.slot = 1;
  CHECK(wrap_for_launcher(request(2), c).argv == Argv{"srun", "--mpi=pmix", "--kill-on-bad-exit=1", "-n", "2",
                                                      "--exclusive", "--job-name", "mtrun-abc-1", "/opt/mtengine",
                                                      "train"});

  c.launcher = {};
  c.launcher.cpu_sets = {"0-1", "2-3"};
  auto cmd = wrap_for_launcher(request(1), c);
  // Open MPI would bind to a core of its choosing, out of the set: the ranks keep taskset's mask.
  CHECK(cmd.argv == Argv{"taskset", "-c", "2-3", "mpirun", "-np", "1", "--mca", "pml", "ob1", "--mca", "btl",
                         "self,vader", "--bind-to", "none", "-x", "OMP_NUM_THREADS=2", "/opt/mtengine", "train"});
  c.slot = -1;  // one at a time: the whole machine, as before
  CHECK(wrap_for_launcher(request(1), c).argv[0] == "mpirun");

  c.launcher = {};
  c.launcher.hostfile = "/cluster/hosts";
  c.launcher.host_sets = {"n1,n2", "n3,n4"};
  c.slot = 0;
  CHECK(wrap_for_launcher(request(2), c).argv ==
        Argv{"mpirun", "-np", "2", "--hostfile", "/cluster/hosts", "--host", "n1,n2", "/opt/mtengine", "train"});
}

TEST_CASE("cpu sets must name CPUs this machine gives mtrun") {
  const std::set<int> here = cpus_of_this_process();
  REQUIRE_FALSE(here.empty());
  const std::string first = std::to_string(*here.begin());
  CHECK(cpu_sets_beyond_this_machine({first}).empty());
  const int beyond = *here.rbegin() + 1;
  const std::string message = cpu_sets_beyond_this_machine({first, std::to_string(beyond)});
  CHECK(message.rfind(fmt::format("cpu set '{}' names CPU {}, which this machine does not give mtrun (it may use CPUs ",
                                  beyond, beyond),
                      0) == 0);
}

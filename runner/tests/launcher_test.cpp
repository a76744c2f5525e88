#include <doctest/doctest.h>

#include "experiment/experiment_loader.h"
#include "experiment_text.h"
#include "launch/launcher.h"
#include "launch/trial_command.h"
#include "store/trial_json.h"

using namespace mt;
using Argv = std::vector<std::string>;

namespace {
LaunchRequest request(int ranks) {
  return {ranks, {{"NCCL_ALGO", "ring"}}, {"/opt/mtengine", "train", "--steps", "3"}, "mtrun-abc-1", {}};
}

LaunchContext context(const std::string& type, int cores = 4) {
  LaunchContext c;
  c.engine = "/opt/mtengine";
  c.launcher.type = type;
  c.cores = cores;
  return c;
}

// Loads an experiment whose launcher section is `launcher` (YAML flow map).
LoadResult load_with_launcher(const std::string& launcher) {
  return testing::load_experiment_text("name: l\nlauncher: " + launcher +
                                       "\nstudies:\n  - name: s\n    workload: train\n    matrix: {ranks: [1]}\n");
}

using testing::first_error;

std::string env_value(const LaunchCommand& cmd, const std::string& name) {
  for (const auto& e : cmd.environment) {
    if (e.name == name) return e.value;
  }
  return "<unset>";
}
}  // namespace

TEST_CASE("mpirun on this machine: shared memory, OMP threads per rank, environment forwarded with -x NAME=VALUE") {
  auto c = context("mpirun");
  c.running_as_root = true;
  auto cmd = wrap_for_launcher(request(2), c);
  CHECK(cmd.argv == Argv{"mpirun",
                         "-np",
                         "2",
                         "--allow-run-as-root",
                         "--mca",
                         "pml",
                         "ob1",
                         "--mca",
                         "btl",
                         "self,vader",
                         "--bind-to",
                         "none",
                         "-x",
                         "OMP_NUM_THREADS=2",
                         "-x",
                         "NCCL_ALGO=ring",
                         "/opt/mtengine",
                         "train",
                         "--steps",
                         "3"});
  CHECK(env_value(cmd, "OMP_NUM_THREADS") == "2");
  CHECK(env_value(cmd, "NCCL_ALGO") == "ring");
  CHECK(cmd.cleanup.empty());
  CHECK(cmd.job_state.empty());
  CHECK_FALSE(cmd.marks_job_processes);  // the ranks are mtrun's descendants
  CHECK(cmd.program == Argv{"/opt/mtengine", "train", "--steps", "3"});
  // The recorded command carries the values already: no prefix repeats them.
  CHECK(command_line(cmd) ==
        "mpirun -np 2 --allow-run-as-root --mca pml ob1 --mca btl self,vader --bind-to none -x OMP_NUM_THREADS=2 "
        "-x NCCL_ALGO=ring /opt/mtengine train --steps 3");

  c.running_as_root = false;
  c.launcher.extra_args = {"--bind-to", "none"};
  cmd = wrap_for_launcher(request(8), c);
  CHECK(cmd.argv == Argv{"mpirun",
                         "-np",
                         "8",
                         "--oversubscribe",
                         "--mca",
                         "pml",
                         "ob1",
                         "--mca",
                         "btl",
                         "self,vader",
                         "-x",
                         "OMP_NUM_THREADS=1",
                         "-x",
                         "NCCL_ALGO=ring",
                         "--bind-to",
                         "none",
                         "/opt/mtengine",
                         "train",
                         "--steps",
                         "3"});
  CHECK(env_value(cmd, "OMP_NUM_THREADS") == "1");
}

TEST_CASE("mpirun with a hostfile: no oversubscription, no thread count, environment still forwarded") {
  auto c = context("mpirun");
  c.launcher.hostfile = "/cluster/hosts";
  auto cmd = wrap_for_launcher(request(8), c);
  CHECK(cmd.argv == Argv{"mpirun", "-np", "8", "--hostfile", "/cluster/hosts", "-x", "NCCL_ALGO=ring", "/opt/mtengine",
                         "train", "--steps", "3"});
  CHECK(env_value(cmd, "OMP_NUM_THREADS") == "<unset>");

  // threads_per_rank says what the hosts' cores cannot: set and forwarded, binding lifted above 1.
  c.launcher.threads_per_rank = 1;
  cmd = wrap_for_launcher(request(2), c);
  CHECK(cmd.argv == Argv{"mpirun", "-np", "2", "--hostfile", "/cluster/hosts", "-x", "OMP_NUM_THREADS=1", "-x",
                         "NCCL_ALGO=ring", "/opt/mtengine", "train", "--steps", "3"});
  c.launcher.threads_per_rank = 3;
  cmd = wrap_for_launcher(request(2), c);
  CHECK(cmd.argv == Argv{"mpirun", "-np", "2", "--hostfile", "/cluster/hosts", "--bind-to", "none", "-x",
                         "OMP_NUM_THREADS=3", "-x", "NCCL_ALGO=ring", "/opt/mtengine", "train", "--steps", "3"});
}

TEST_CASE("threads_per_rank: read, kept by rerun only when set, at least 1") {
  LoadResult r = load_with_launcher("{type: slurm, args: [-N, '2'], threads_per_rank: 2}");
  REQUIRE(r.experiment);
  CHECK(r.experiment->launcher.threads_per_rank == 2);
  CHECK(launcher_from_json(launcher_to_json(r.experiment->launcher)).threads_per_rank == 2);
  auto c = context("slurm", 2);
  c.launcher = r.experiment->launcher;
  CHECK(env_value(wrap_for_launcher(request(4), c), "OMP_NUM_THREADS") == "2");
  r = load_with_launcher("{type: mpirun}");
  REQUIRE(r.experiment);
  CHECK(launcher_to_json(r.experiment->launcher).find("threads_per_rank") == std::string::npos);
  CHECK_FALSE(first_error(load_with_launcher("{type: mpirun, threads_per_rank: 0}")).empty());
}

TEST_CASE("local runs the program itself with every core") {
  auto cmd = wrap_for_launcher(request(1), context("local"));
  CHECK(cmd.argv == Argv{"/opt/mtengine", "train", "--steps", "3"});
  CHECK(env_value(cmd, "OMP_NUM_THREADS") == "4");
  CHECK(env_value(cmd, "NCCL_ALGO") == "ring");
  CHECK(cmd.cleanup.empty());
  CHECK(cmd.job_state.empty());
  CHECK(launcher_rank_problem(context("local").launcher, 2) ==
        "the local launcher runs a single process, but ranks is 2; use launcher mpirun or slurm");
  CHECK(launcher_rank_problem(context("slurm").launcher, 2) == "");
}

TEST_CASE(
    "slurm srun: pmix, ranks, job name, extra args before the program; scancel by job name, squeue to see it gone") {
  auto c = context("slurm");
  c.running_as_root = true;  // srun needs no root flag
  c.launcher.extra_args = {"--partition", "debug"};
  auto cmd = wrap_for_launcher(request(2), c);
  CHECK(cmd.argv == Argv{"srun", "--mpi=pmix", "--kill-on-bad-exit=1", "-n", "2", "--job-name", "mtrun-abc-1",
                         "--partition", "debug", "/opt/mtengine", "train", "--steps", "3"});
  CHECK(cmd.cleanup.cancel == Argv{"scancel", "--me", "--name", "mtrun-abc-1"});
  CHECK(cmd.cleanup.list_left == Argv{"squeue", "--me", "--name", "mtrun-abc-1", "--noheader", "--format", "%i %j %T"});
  CHECK(cmd.cleanup.name == "mtrun-abc-1");
  CHECK(cmd.job_state == Argv{"squeue", "--me", "--name", "mtrun-abc-1", "--noheader", "--format", "%T %r"});
  // srun exports the runner's environment itself: values are set, not named on the command line,
  // so the recorded command puts them in front.
  CHECK(env_value(cmd, "OMP_NUM_THREADS") == "2");
  CHECK(env_value(cmd, "NCCL_ALGO") == "ring");
  CHECK(command_line(cmd) ==
        "OMP_NUM_THREADS=2 NCCL_ALGO=ring MTRUN_JOB=mtrun-abc-1 srun --mpi=pmix --kill-on-bad-exit=1 -n 2 --job-name "
        "mtrun-abc-1 --partition debug /opt/mtengine train --steps 3");
  // slurmstepd starts the ranks: they carry the job's name, so their CPU time is the job's.
  CHECK(env_value(cmd, "MTRUN_JOB") == "mtrun-abc-1");
  CHECK(cmd.marks_job_processes);
}

TEST_CASE("slurm srun inside an allocation: the trial is a step, cancelled by the IDs squeue lists under its name") {
  auto c = context("slurm");
  c.slurm_allocation = "77";
  auto cmd = wrap_for_launcher(request(2), c);
  CHECK(cmd.argv == Argv{"srun", "--mpi=pmix", "--kill-on-bad-exit=1", "-n", "2", "--job-name", "mtrun-abc-1",
                         "/opt/mtengine", "train", "--steps", "3"});
  CHECK(cmd.cleanup.cancel == Argv{"scancel"});
  CHECK(cmd.cleanup.cancel_listed);
  CHECK(cmd.cleanup.list_left == Argv{"squeue", "--me", "--steps", "--jobs", "77", "--noheader", "--format", "%i %j"});
  CHECK(cmd.cleanup.name == "mtrun-abc-1");
  CHECK(cmd.job_state.empty());  // a step has no queue to wait in

  c.launcher.mode = "sbatch";  // a batch job is a job of its own, allocation or not
  cmd = wrap_for_launcher(request(2), c);
  CHECK(cmd.cleanup.cancel == Argv{"scancel", "--me", "--name", "mtrun-abc-1"});
  CHECK_FALSE(cmd.cleanup.cancel_listed);
  CHECK_FALSE(cmd.job_state.empty());
}

TEST_CASE("slurm srun overcommits when ranks exceed this machine's cores, unless nodes are requested") {
  auto c = context("slurm", 2);
  auto cmd = wrap_for_launcher(request(4), c);
  CHECK(cmd.argv == Argv{"srun", "--mpi=pmix", "--kill-on-bad-exit=1", "-n", "4", "-O", "--job-name", "mtrun-abc-1",
                         "/opt/mtengine", "train", "--steps", "3"});
  CHECK(env_value(cmd, "OMP_NUM_THREADS") == "1");

  for (const Argv& nodes : {Argv{"-N", "2"}, Argv{"-N2"}, Argv{"--nodes=2"}, Argv{"--nodes", "2"}}) {
    c.launcher.extra_args = nodes;
    cmd = wrap_for_launcher(request(4), c);
    Argv expected = {"srun", "--mpi=pmix", "--kill-on-bad-exit=1", "-n", "4", "--job-name", "mtrun-abc-1"};
    expected.insert(expected.end(), nodes.begin(), nodes.end());
    expected.insert(expected.end(), {"/opt/mtengine", "train", "--steps", "3"});
    CHECK(cmd.argv == expected);
    CHECK(env_value(cmd, "OMP_NUM_THREADS") == "<unset>");
    CHECK(env_value(cmd, "NCCL_ALGO") == "ring");
  }
}

TEST_CASE("slurm sbatch: waits for the job; the batch script runs srun with every word quoted") {
  auto c = context("slurm", 2);
  c.launcher.mode = "sbatch";
  c.launcher.extra_args = {"--time=5"};
  LaunchRequest r = request(4);
  r.program = {"/opt/mt engine", "train", "--name", "x'; rm -rf / #", "$(reboot)"};
  auto cmd = wrap_for_launcher(r, c);
  CHECK(cmd.argv == Argv{"sbatch", "--wait", "--output", "batch-job.out", "-n", "4", "-O", "--job-name", "mtrun-abc-1",
                         "--time=5", "--wrap",
                         "exec srun --mpi=pmix --kill-on-bad-exit=1 '/opt/mt engine' train --name "
                         "'x'\\''; rm -rf / #' '$(reboot)'"});
  CHECK(cmd.cleanup.cancel == Argv{"scancel", "--me", "--name", "mtrun-abc-1"});
  CHECK(cmd.cleanup.list_left == Argv{"squeue", "--me", "--name", "mtrun-abc-1", "--noheader", "--format", "%i %j %T"});
  CHECK(cmd.cleanup.name == "mtrun-abc-1");
  CHECK(cmd.job_state == Argv{"squeue", "--me", "--name", "mtrun-abc-1", "--noheader", "--format", "%T %r"});
  CHECK(cmd.job_output_file == "batch-job.out");  // slurmd writes it; mtrun appends it to the log
  CHECK(env_value(cmd, "OMP_NUM_THREADS") == "1");
  CHECK(env_value(cmd, "NCCL_ALGO") == "ring");
}

TEST_CASE("slurm: what runs first in a job's own allocation goes before its step, in the same shell") {
  LaunchRequest r = request(4);
  r.first = {"/opt/mt run/mtrun", "look", "--allocation", "--record", "/runs/a 1/quiet-look.json"};
  auto c = context("slurm", 2);
  c.launcher.extra_args = {"--time=5"};
  // srun would allocate and start the ranks at once: salloc allocates, and the shell runs both.
  auto cmd = wrap_for_launcher(r, c);
  CHECK(cmd.argv == Argv{"salloc", "-n", "4", "-O", "--job-name", "mtrun-abc-1", "--time=5", "sh", "-c",
                         "'/opt/mt run/mtrun' look --allocation --record '/runs/a 1/quiet-look.json'; exec srun "
                         "--mpi=pmix --kill-on-bad-exit=1 /opt/mtengine train --steps 3"});
  // Still found by its name while queued, and cancelled by it.
  CHECK(cmd.cleanup.cancel == Argv{"scancel", "--me", "--name", "mtrun-abc-1"});
  CHECK(cmd.job_state == Argv{"squeue", "--me", "--name", "mtrun-abc-1", "--noheader", "--format", "%T %r"});
  CHECK(env_value(cmd, "MTRUN_JOB") == "mtrun-abc-1");

  c.launcher.mode = "sbatch";
  cmd = wrap_for_launcher(r, c);
  CHECK(cmd.argv.back() ==
        "'/opt/mt run/mtrun' look --allocation --record '/runs/a 1/quiet-look.json'; exec srun --mpi=pmix "
        "--kill-on-bad-exit=1 /opt/mtengine train --steps 3");

  // A step of the allocation mtrun runs in, or another launcher: no allocation of the job's own.
  c.launcher.mode = "srun";
  c.slurm_allocation = "77";
  CHECK(wrap_for_launcher(r, c).argv == wrap_for_launcher(request(4), c).argv);
  auto m = context("mpirun");
  CHECK(wrap_for_launcher(r, m).argv == wrap_for_launcher(request(4), m).argv);
}

TEST_CASE("launcher mode: srun by default, sbatch on request, anything else refused; rerun keeps it") {
  LoadResult r = load_with_launcher("{type: slurm}");
  REQUIRE(r.experiment);
  CHECK(r.experiment->launcher.mode == "srun");
  r = load_with_launcher("{type: slurm, mode: sbatch, args: [--time=5]}");
  REQUIRE(r.experiment);
  CHECK(r.experiment->launcher.mode == "sbatch");

  LauncherConfig back = launcher_from_json(launcher_to_json(r.experiment->launcher));
  CHECK(back.type == "slurm");
  CHECK(back.mode == "sbatch");
  CHECK(back.extra_args == Argv{"--time=5"});
  CHECK(launcher_from_json(R"({"type":"slurm","extra_args":[],"hostfile":""})").mode == "srun");

  CHECK(first_error(load_with_launcher("{type: slurm, mode: sbach}")) ==
        "unknown launcher mode 'sbach' (did you mean 'sbatch'?)");
  CHECK(first_error(load_with_launcher("{type: slurm, mode: xyzzyq}")) ==
        "unknown launcher mode 'xyzzyq' (srun or sbatch)");
  CHECK(first_error(load_with_launcher("{type: mpirun, mode: sbatch}")) ==
        "launcher mode applies only to launcher slurm, not 'mpirun'");
}

TEST_CASE("queue_timeout_s: slurm only, at least a second, kept for rerun and only then part of the campaign") {
  LoadResult r = load_with_launcher("{type: slurm, queue_timeout_s: 90}");
  REQUIRE(r.experiment);
  CHECK(r.experiment->launcher.queue_timeout_s == 90);
  CHECK(launcher_from_json(launcher_to_json(r.experiment->launcher)).queue_timeout_s == 90);
  CHECK(load_with_launcher("{type: slurm}").experiment->launcher.queue_timeout_s == 0);  // no limit
  // Campaigns stored before the key keep their identity.
  CHECK(launcher_to_json(load_with_launcher("{type: slurm}").experiment->launcher).find("queue") == std::string::npos);

  CHECK(first_error(load_with_launcher("{type: mpirun, queue_timeout_s: 90}")) ==
        "queue_timeout_s applies only to launcher slurm, whose jobs can wait in a queue; 'mpirun' starts a trial at "
        "once");
  CHECK(first_error(load_with_launcher("{type: slurm, queue_timeout_s: 0}")) ==
        "queue_timeout_s must be at least 1, got 0");
  CHECK(first_error(load_with_launcher("{type: slurm, queue_timeout_s: soon}")).find("queue_timeout_s must be") !=
        std::string::npos);
  CHECK(first_error(load_with_launcher("{type: slurm, mdoe: sbatch}")) ==
        "unknown key 'mdoe' in launcher (did you mean 'mode'?)");
}

TEST_CASE("step_args go to the srun step in every mode, args to whichever command allocates") {
  auto c = context("slurm", 2);
  c.launcher.extra_args = {"--time=5"};
  c.launcher.step_args = {"--cpu-bind=cores"};
  const Argv step = {"srun", "--mpi=pmix", "--kill-on-bad-exit=1", "--cpu-bind=cores"};
  // srun allocates and steps at once: both.
  auto cmd = wrap_for_launcher(request(2), c);
  Argv expected = step;
  expected.insert(expected.end(),
                  {"-n", "2", "--job-name", "mtrun-abc-1", "--time=5", "/opt/mtengine", "train", "--steps", "3"});
  CHECK(cmd.argv == expected);
  // salloc and sbatch take none of srun's step options: only the step in their shell has them.
  LaunchRequest first = request(2);
  first.first = {"/opt/mtrun", "look", "--allocation"};
  cmd = wrap_for_launcher(first, c);
  CHECK(cmd.argv == Argv{"salloc", "-n", "2", "--job-name", "mtrun-abc-1", "--time=5", "sh", "-c",
                         "/opt/mtrun look --allocation; exec srun --mpi=pmix --kill-on-bad-exit=1 --cpu-bind=cores "
                         "/opt/mtengine train --steps 3"});
  c.launcher.mode = "sbatch";
  cmd = wrap_for_launcher(request(2), c);
  CHECK(cmd.argv == Argv{"sbatch", "--wait", "--output", "batch-job.out", "-n", "2", "--job-name", "mtrun-abc-1",
                         "--time=5", "--wrap",
                         "exec srun --mpi=pmix --kill-on-bad-exit=1 --cpu-bind=cores /opt/mtengine train --steps 3"});
  // A step of the allocation mtrun runs in.
  c.launcher.mode = "srun";
  c.slurm_allocation = "77";
  cmd = wrap_for_launcher(request(2), c);
  CHECK(std::vector<std::string>(cmd.argv.begin(), cmd.argv.begin() + 4) == step);
}

TEST_CASE("step_args: slurm only, a list of strings, kept for rerun and only then part of the campaign") {
  LoadResult r = load_with_launcher("{type: slurm, step_args: [--cpu-bind=cores, --distribution=block]}");
  REQUIRE(r.experiment);
  CHECK(r.experiment->launcher.step_args == Argv{"--cpu-bind=cores", "--distribution=block"});
  CHECK(launcher_from_json(launcher_to_json(r.experiment->launcher)).step_args == r.experiment->launcher.step_args);
  CHECK(launcher_to_json(load_with_launcher("{type: slurm}").experiment->launcher).find("step") == std::string::npos);
  CHECK(first_error(load_with_launcher("{type: mpirun, step_args: [--bind-to, core]}")) ==
        "step_args applies only to launcher slurm (its srun step); 'mpirun' takes its arguments in args");
  CHECK(load_with_launcher("{type: slurm, step_args: --cpu-bind=cores}").experiment->launcher.step_args ==
        Argv{"--cpu-bind=cores"});  // one word, as args takes it
  CHECK(first_error(load_with_launcher("{type: slurm, step_args: {cpu-bind: cores}}"))
            .find("launcher step_args must be a list of strings") == 0);
}

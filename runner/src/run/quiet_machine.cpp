#include "run/quiet_machine.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "launch/bounded_capture.h"
#include "launch/core_round_trip.h"
#include "launch/machine_sampler.h"
#include "run/cores_now.h"
#include "run/node_look.h"

namespace mt {
namespace {

// One look at `place`: its verdict, or nothing and why (where known).
struct OneLook {
  std::optional<Verdict> verdict;
  std::string unavailable;
};

OneLook look_once(const LookPlace& place, const ConditionsThresholds& thresholds, const std::atomic<bool>* stop) {
  switch (place.where) {
    case LookPlace::Where::InJob: return {std::nullopt, place.why_in_job};
    case LookPlace::Where::Nodes: {
      std::string output;
      try {
        output = capture_output(node_look_command(place.launcher, place.mtrun, kQuietProbeSeconds),
                                {.timeout_s = kNodeLookTimeoutS, .max_bytes = 1u << 20, .cancel = stop});
      } catch (const CaptureCancelled&) {
        return {};  // the run is stopping: nothing to say of the nodes
      } catch (const std::exception& e) {
        return {std::nullopt, fmt::format("{} (each node runs `{} look --json`: mtrun must be at that path there too)",
                                          e.what(), place.mtrun.string())};
      }
      NodesLook look = judge_node_readings(output, place.nodes, thresholds);
      if (!look.measured) return {std::nullopt, look.unavailable};
      return {look.verdict, ""};
    }
    case LookPlace::Where::Here: break;
  }
  auto conditions = measure_machine(kQuietProbeSeconds);
  if (!conditions) return {};
  return {judge_idle_machine(*conditions, thresholds), ""};
}

// Here, after a quiet look: whether this machine's cores read far apart against `usual`, as an
// attempt's are judged (conditions_watch.h).
void judge_cores(double usual_ns, const ConditionsThresholds& thresholds, Verdict& verdict) {
  CoresNow cores;
  cores.round_trip_ns = core_round_trip_ns(allowed_cpus());
  cores.usual_ns = usual_ns;
  cores.max_rise_pct = thresholds.max_core_round_trip_rise_pct;
  if (!cores.far_apart()) return;
  verdict.disturbed = true;
  verdict.reasons.push_back(fmt::format("cores far apart: round trip {:.0f} ns against this campaign's usual {:.0f}",
                                        *cores.round_trip_ns, usual_ns));
}

}  // namespace

LookPlace look_place(const LaunchContext& context, const std::filesystem::path& mtrun) {
  LookPlace place;
  place.mtrun = mtrun;
  if (context.launcher.type == "mpirun" && !context.launcher.hostfile.empty()) {
    place.where = LookPlace::Where::Nodes;
    place.launcher =
        mpirun_look_launcher(context.launcher.hostfile, context.running_as_root, context.launcher.extra_args);
    place.nodes_words = place.nodes_noun = "the hostfile's hosts";
    place.recorded_as = "hostfile_hosts";
    return place;
  }
  if (context.launcher.type != "slurm") return place;
  if (context.launcher.mode == "sbatch" || context.slurm_allocation.empty()) {
    place.where = LookPlace::Where::InJob;
    place.recorded_as = "job_nodes";
    place.why_in_job = context.launcher.mode == "sbatch"
                           ? "each trial is a batch job of its own (sbatch), on nodes not known before it starts"
                           : "each trial runs in a Slurm allocation of its own, on nodes not known before it "
                             "starts (run mtrun inside an allocation, e.g. under salloc, to look before the trials)";
    return place;
  }
  place.where = LookPlace::Where::Nodes;
  place.nodes = context.slurm_nodes;
  place.launcher = srun_look_launcher(place.nodes);
  place.nodes_noun = "the allocation's nodes";
  place.recorded_as = "allocation_nodes";
  place.nodes_words = place.nodes > 0
                          ? fmt::format("the allocation's {} node{}", place.nodes, place.nodes == 1 ? "" : "s")
                          : "the allocation's nodes";
  return place;
}

std::optional<LookPlace> allocation_look_place(const std::filesystem::path& mtrun) {
  LaunchContext context;
  context.launcher.type = "slurm";
  read_slurm_allocation(context);
  if (context.slurm_allocation.empty()) return std::nullopt;
  return look_place(context, mtrun);
}

std::string describe_look_place(const LookPlace& place) {
  switch (place.where) {
    case LookPlace::Where::Here: return "";
    case LookPlace::Where::InJob: return place.why_in_job;
    case LookPlace::Where::Nodes:
      return fmt::format("on {} ({})", place.nodes_words, place.launcher.empty() ? "" : place.launcher.front());
  }
  return "";
}

QuietCheck check_quiet(const ConditionsThresholds& thresholds, double wait_s, const std::atomic<bool>* stop,
                       const LookPlace& place, std::optional<double> usual_round_trip_ns) {
  QuietCheck check;
  const double start = steady_seconds();
  for (bool first_look = true;; first_look = false) {
    OneLook look = look_once(place, thresholds, stop);
    if (!look.verdict) {
      check.measured = false;
      check.unavailable = look.unavailable;
      return check;
    }
    if (usual_round_trip_ns && place.where == LookPlace::Where::Here && !look.verdict->disturbed)
      judge_cores(*usual_round_trip_ns, thresholds, *look.verdict);
    check.measured = true;
    check.verdict = *look.verdict;
    // Only looks after a busy one are waiting: a look takes a little over its second, which is
    // not a wait (every trial's progress line said "waited 1 s" before).
    if (!first_look) check.waited_s = std::max(0.0, steady_seconds() - start - kQuietProbeSeconds);
    if (!check.verdict.disturbed || check.waited_s + kQuietProbeSeconds > wait_s) return check;
    if (stop && stop->load()) return check;
  }
}

double settle(double seconds, const std::atomic<bool>* stop) {
  const double start = steady_seconds();
  for (;;) {
    const double left = seconds - (steady_seconds() - start);
    if (left <= 0 || (stop && stop->load())) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.1)));
  }
  return steady_seconds() - start;
}

std::string busy_reasons(const QuietCheck& check) { return fmt::format("{}", fmt::join(check.verdict.reasons, "; ")); }

TrialWait look_before_trial(double wait_quiet_s, const ConditionsThresholds& thresholds, const std::atomic<bool>* stop,
                            const LookPlace& place, std::optional<double> usual_round_trip_ns) {
  TrialWait look;
  const double start = steady_seconds();
  const QuietCheck quiet = check_quiet(thresholds, wait_quiet_s, stop, place, usual_round_trip_ns);
  look.before.quiet_wait_s = steady_seconds() - start;
  look.before.quiet_where = place.recorded_as;
  if (quiet.measured) look.before.quiet_found = quiet.busy() ? "busy" : "quiet";
  if (!quiet.measured && !quiet.unavailable.empty()) {
    look.words.push_back(fmt::format("could not look for a quiet machine: {}", quiet.unavailable));
  } else if (quiet.busy()) {
    look.words.push_back(
        fmt::format("still busy after {:.0f} s: {}", quiet.waited_s + kQuietProbeSeconds, busy_reasons(quiet)));
  } else if (quiet.waited_s > 0) {
    look.words.push_back(fmt::format("waited {:.0f} s for a quiet machine", quiet.waited_s + kQuietProbeSeconds));
  }
  return look;
}

TrialWait wait_before_trial(double settle_s, double wait_quiet_s, const ConditionsThresholds& thresholds,
                            const std::atomic<bool>* stop, const LookPlace& place,
                            std::optional<double> usual_round_trip_ns) {
  TrialWait wait;
  if (settle_s > 0) {
    wait.before.settle_s = settle(settle_s, stop);
    if (stop && stop->load()) return wait;
    wait.words.push_back(fmt::format("settled {:g} s", settle_s));
  }
  if (wait_quiet_s > 0 && place.where != LookPlace::Where::InJob) {
    TrialWait look = look_before_trial(wait_quiet_s, thresholds, stop, place, usual_round_trip_ns);
    wait.before.quiet_wait_s = look.before.quiet_wait_s;
    wait.before.quiet_found = look.before.quiet_found;
    wait.before.quiet_where = look.before.quiet_where;
    wait.words.insert(wait.words.end(), look.words.begin(), look.words.end());
  }
  return wait;
}

}  // namespace mt

#include "run/quiet_machine.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "launch/machine_sampler.h"

namespace mt {

QuietCheck check_quiet(const ConditionsThresholds& thresholds, double wait_s, const std::atomic<bool>* stop) {
  QuietCheck check;
  const double start = steady_seconds();
  for (bool first_look = true;; first_look = false) {
    auto conditions = measure_machine(kQuietProbeSeconds);
    if (!conditions) return check;
    check.measured = true;
    check.verdict = judge_idle_machine(*conditions, thresholds);
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

TrialWait wait_before_trial(double settle_s, double wait_quiet_s, const ConditionsThresholds& thresholds,
                            const std::atomic<bool>* stop) {
  TrialWait wait;
  if (settle_s > 0) {
    wait.before.settle_s = settle(settle_s, stop);
    if (stop && stop->load()) return wait;
    wait.words.push_back(fmt::format("settled {:g} s", settle_s));
  }
  if (wait_quiet_s > 0) {
    const double start = steady_seconds();
    const QuietCheck quiet = check_quiet(thresholds, wait_quiet_s, stop);
    wait.before.quiet_wait_s = steady_seconds() - start;
    if (quiet.measured) wait.before.quiet_found = quiet.busy() ? "busy" : "quiet";
    if (quiet.busy()) {
      wait.words.push_back(
          fmt::format("still busy after {:.0f} s: {}", quiet.waited_s + kQuietProbeSeconds, busy_reasons(quiet)));
    } else if (quiet.waited_s > 0) {
      wait.words.push_back(fmt::format("waited {:.0f} s for a quiet machine", quiet.waited_s + kQuietProbeSeconds));
    }
  }
  return wait;
}

}  // namespace mt

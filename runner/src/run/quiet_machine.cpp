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

}  // namespace mt

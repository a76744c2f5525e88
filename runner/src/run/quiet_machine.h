#pragma once
// Is the machine quiet enough to time on? Measured for a moment with nothing of ours running:
// doctor and the start of `run` warn when it is not, `run --wait-quiet` waits for it before each
// trial, `run --require-quiet` refuses to start timing without it.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "experiment/measurement_rules.h"
#include "launch/machine_conditions.h"
#include "run/attempt_verdict.h"
#include "store/before_launch.h"

namespace mt {

// How long one look at the machine lasts.
inline constexpr double kQuietProbeSeconds = 1.0;

struct QuietCheck {
  bool measured = false;  // false where /proc/stat cannot be read: nothing is known, nothing is claimed
  Verdict verdict;        // of the last look
  double waited_s = 0;    // time spent looking beyond the first
  bool busy() const { return measured && verdict.disturbed; }
};

// Looks once; while busy and `wait_s` has not passed, looks again (stopping early when `stop` is
// set). Never waits when the machine is quiet.
QuietCheck check_quiet(const ConditionsThresholds& thresholds, double wait_s = 0,
                       const std::atomic<bool>* stop = nullptr);

// Waits `seconds` with nothing of ours running (returning early when `stop` is set), so that what
// the last job left behind settles before the next is timed: on a VM the kernel hands the memory a
// job freed back to the hypervisor over the next seconds, and a job started meanwhile loses CPU
// time to it (docs/measurement.md, "Settling between trials"). Returns the seconds waited.
double settle(double seconds, const std::atomic<bool>* stop = nullptr);

// Before a trial, as `run --settle` and `--wait-quiet` ask (0: skipped): settles, then looks for a
// quiet machine. `before` is what was done, timed, for the attempt's row; `words` says it for the
// progress line ("settled 10 s", "waited 3 s for a quiet machine"), nothing for a first look that
// found the machine quiet.
struct TrialWait {
  BeforeLaunch before;
  std::vector<std::string> words;
};
TrialWait wait_before_trial(double settle_s, double wait_quiet_s, const ConditionsThresholds& thresholds,
                            const std::atomic<bool>* stop = nullptr);

// "other processes used 95 % of a core over 1.0 s": what made the last look busy.
std::string busy_reasons(const QuietCheck& check);

}  // namespace mt

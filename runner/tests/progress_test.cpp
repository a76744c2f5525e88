// The campaign's progress line: an ETA from the trials' measured times, and a live line that is
// redrawn while a long trial runs.
#include <doctest/doctest.h>

#include <sstream>
#include <thread>

#include "run/progress.h"

using namespace mt;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the live line shows the running trial's time against what its kind took") {
  std::ostringstream out;
  const std::vector<TrialTimes::Kind> kinds = {{"a", "s/1"}, {"a", "s/1"}};
  Progress progress(out, 2, /*live=*/false, kinds);
  progress.trial_started("s n=1 rep 0");
  CHECK(progress.live_line().find("ETA ? | s n=1 rep 0 (0s)") != std::string::npos);
  progress.trial_finished("succeeded", 0.0, "", "log");
  progress.trial_started("s n=1 rep 1");
  CHECK(progress.live_line().find("[1/2] 0 failed") == 0);
  CHECK(progress.live_line().find("| s n=1 rep 1 (0s of ~0s)") != std::string::npos);
}

TEST_CASE("while the running trial's job waits in the scheduler's queue, the live line says so") {
  std::ostringstream out;
  Progress progress(out, 2, /*live=*/false);
  progress.trial_started("s n=1 rep 0");
  progress.trial_queued("PENDING Resources");
  // "(queued 0s: …)", the seconds since the trial started (more on a machine that stalls us).
  CHECK(progress.live_line().find("| s n=1 rep 0 (queued ") != std::string::npos);
  CHECK(progress.live_line().find("s: PENDING Resources)") != std::string::npos);
  progress.trial_queued("PENDING\nPriority");  // the scheduler's words cannot break the line
  CHECK(progress.live_line().find("s: PENDING\\nPriority)") != std::string::npos);
  progress.trial_queued("");  // started
  CHECK(progress.live_line().find("queued") == std::string::npos);
  CHECK(progress.live_line().find("| s n=1 rep 0 (") != std::string::npos);
  progress.trial_queued("PENDING Resources");
  progress.trial_finished("succeeded", 0.0, "", "log");
  progress.trial_started("s n=1 rep 1");  // the next trial is not queued until its job is seen so
  CHECK(progress.live_line().find("queued") == std::string::npos);
}

TEST_CASE("with trials in flight at once, one line says when a trial's job is queued") {
  std::ostringstream out;
  Progress progress(out, 2, /*live=*/false);
  progress.parallel_started("s n=1 rep 0");
  progress.parallel_queued("s n=1 rep 0", "PENDING Resources");
  progress.parallel_queued("s n=1 rep 0", "");  // started: its end line will say the rest
  progress.parallel_finished("s n=1 rep 0", "succeeded", 1.0, "", "log");
  CHECK(out.str() ==
        "[1/2] s n=1 rep 0 ... started\n"
        "[queued] s n=1 rep 0 ... PENDING Resources\n"
        "[1 done] s n=1 rep 0 ... succeeded in 1.0 s  \n");
}

TEST_CASE("on a terminal the line is redrawn while a trial runs, not only between trials") {
  std::ostringstream out;
  {
    Progress progress(out, 1, /*live=*/true);
    progress.trial_started("long trial");
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    progress.finish();  // stops the redrawing before `out` is read
  }
  CHECK(count(out.str(), "| long trial (") >= 2);
}

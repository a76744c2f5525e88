// Helper programs run for their output cannot hang or flood the runner.
#include <doctest/doctest.h>

#include <atomic>

#include "launch/bounded_capture.h"

using namespace mt;

TEST_CASE("a helper program is bounded in time and output") {
  CaptureLimits limits;
  limits.timeout_s = 0.2;
  CHECK(capture_output({"sh", "-c", "echo hello"}, limits) == "hello\n");
  CHECK_THROWS_AS(capture_output({"sh", "-c", "sleep 30"}, limits), CaptureOverrun);
  CHECK_THROWS_WITH(capture_output({"sh", "-c", "exec sleep 30"}, limits),
                    "`sh -c exec sleep 30` did not finish within 0.2 s and was killed");
  CHECK_THROWS_WITH(capture_output({"sh", "-c", "exit 3"}, limits), "`sh -c exit 3` exited with 3");
  limits.timeout_s = 30;
  limits.max_bytes = 1000;
  CHECK_THROWS_WITH(capture_output({"yes"}, limits), "`yes` printed more than 1000 bytes and was killed");
}

TEST_CASE("a helper program the caller gives up on is killed, not waited for") {
  std::atomic<bool> cancel{true};
  CaptureLimits limits;
  limits.timeout_s = 30;
  limits.cancel = &cancel;
  CHECK_THROWS_WITH_AS(capture_output({"sh", "-c", "exec sleep 30"}, limits),
                       "`sh -c exec sleep 30` was given up on and killed", CaptureCancelled);
  cancel = false;
  CHECK(capture_output({"sh", "-c", "echo still asked"}, limits) == "still asked\n");
}

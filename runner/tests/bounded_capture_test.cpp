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

TEST_CASE("a failing helper program's last words on standard error are quoted in its failure") {
  CaptureLimits limits;
  limits.timeout_s = 10;
  CHECK(capture_output({"sh", "-c", "echo warning >&2; echo ok"}, limits) == "ok\n");
  CHECK_THROWS_WITH(capture_output({"sh", "-c",
                                    "echo one >&2; echo two >&2; echo three >&2; echo 'srun: error: "
                                    "Unable to create step' >&2; exit 1"},
                                   limits),
                    "`sh -c echo one >&2; echo two >&2; echo three >&2; echo 'srun: error: Unable to create step' "
                    ">&2; exit 1` exited with 1: two / three / srun: error: Unable to create step");
  // A terminal escape cannot reach the user's terminal through the message.
  CHECK_THROWS_WITH(capture_output({"sh", "-c", "printf 'bad\\033[2J\\n' >&2; exit 2"}, limits),
                    "`sh -c printf 'bad\\033[2J\\n' >&2; exit 2` exited with 2: bad\\x1b[2J");
  // A flood keeps its end, and one endless line is clipped to its end.
  CHECK_THROWS_WITH(capture_output({"sh", "-c", "yes spam | head -c 200000 >&2; echo last words >&2; exit 4"}, limits),
                    "`sh -c yes spam | head -c 200000 >&2; echo last words >&2; exit 4` exited with 4: spam / spam / "
                    "last words");
  try {
    capture_output({"sh", "-c", "head -c 5000 /dev/zero | tr '\\0' x >&2; echo >&2 END; exit 5"}, limits);
    FAIL("a failing program must throw");
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    CHECK(message.find("exited with 5: ...xxx") != std::string::npos);
    CHECK(message.size() - message.find(": ...") == 2 + 3 + 500);
    CHECK(message.substr(message.size() - 3) == "END");
  }
}

TEST_CASE("a helper program's child left holding standard error does not hold up the capture") {
  CaptureLimits limits;
  limits.timeout_s = 10;
  CHECK(capture_output({"sh", "-c", "sleep 20 > /dev/null & echo out"}, limits) == "out\n");
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

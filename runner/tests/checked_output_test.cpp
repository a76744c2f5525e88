// Output whose failed writes are seen: a full device is an error, not a silently short output.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ostream>

#include "checked_output.h"

using namespace mt;

TEST_CASE("a failed write to standard output is remembered and stops the stream") {
  const int full = ::open("/dev/full", O_WRONLY);
  REQUIRE(full >= 0);
  FdOutput buffer(full);
  std::ostream out(&buffer);
  out << "some text";
  CHECK(buffer.error() == 0);  // still in the buffer
  out.flush();
  CHECK(buffer.error() == ENOSPC);
  CHECK(!out);
  CHECK(stdout_write_error(buffer.error()) == "cannot write to standard output: No space left on device");
  ::close(full);
  CHECK_THROWS_WITH(write_file_or_throw("/dev/full", "x"), "cannot write /dev/full: No space left on device");
}

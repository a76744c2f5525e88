// Output whose failed writes are seen: a full device is an error, not a silently short output.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include "checked_output.h"
#include "runner_error.h"

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

TEST_CASE("a file replaced whole: the new text, or the old file and no part of the new") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mtrun_replace_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "record.json";
  replace_file_or_throw(file, "old\n");
  replace_file_or_throw(file, "new\n");
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "new\n");
  CHECK_FALSE(std::filesystem::exists(dir / "record.json.part"));
  // Where it cannot be written it says so, as a write error.
  try {
    replace_file_or_throw(dir / "no-such-dir" / "record.json", "x");
    FAIL("an unwritable place must throw");
  } catch (const RunnerError& e) {
    CHECK(e.exit_code() == kExitWrite);
    CHECK(std::string(e.what()).find("cannot write " + (dir / "no-such-dir").string()) == 0);
  }
  std::filesystem::remove_all(dir);
}

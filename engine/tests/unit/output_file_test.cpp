#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/job/output_file.h"
#include "scratch_folder.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) { return mt::testing::scratch_folder("mt_output_file", name); }

std::string contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("an output through a symlink is written into the file it names; the link stays") {
  const auto dir = scratch("symlink");
  std::ofstream(dir / "real.json") << "old";
  fs::create_symlink("real.json", dir / "link.json");
  fs::create_symlink(dir / "link.json", dir / "link2.json");  // a chain, absolute this time
  CHECK(mt::output_target(dir / "link2.json") == dir / "real.json");
  CHECK_FALSE(mt::output_file_problem("--output", (dir / "link2.json").string()));
  mt::write_text_atomically(dir / "link2.json", "new\n");
  CHECK(fs::is_symlink(dir / "link.json"));
  CHECK(fs::is_symlink(dir / "link2.json"));
  CHECK(contents(dir / "real.json") == "new\n");
  // A dangling link: its file is created.
  fs::create_symlink("later.json", dir / "dangling.json");
  mt::write_text_atomically(dir / "dangling.json", "x");
  CHECK(fs::is_symlink(dir / "dangling.json"));
  CHECK(contents(dir / "later.json") == "x");
  fs::remove_all(dir);
}

TEST_CASE("a FIFO or directory given as an output is refused up front and never replaced") {
  const auto dir = scratch("fifo");
  const auto fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto problem = mt::output_file_problem("--output", fifo.string());
  REQUIRE(problem);
  CHECK(*problem ==
        "--output '" + fifo.string() + "' is a FIFO: name a regular file (it would be replaced, not " + "written to)");
  fs::create_symlink("fifo", dir / "to-fifo");
  const auto through = mt::output_file_problem("OUT", (dir / "to-fifo").string());
  REQUIRE(through);
  CHECK(through->find("(a symlink to '" + fifo.string() + "') is a FIFO") != std::string::npos);
  CHECK_THROWS_WITH(mt::write_text_atomically(fifo, "x"), doctest::Contains("it is a FIFO, not a regular file"));
  CHECK(fs::is_fifo(fifo));
  CHECK(*mt::output_file_problem("--weights-out", dir.string()) ==
        "--weights-out '" + dir.string() + "' names a directory, not a file");
  CHECK(mt::output_file_problem("--output", (dir / "missing" / "r.json").string())->find("does not exist") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("two spellings of one output file have one identity") {
  const auto dir = scratch("identity");
  fs::create_symlink("a.json", dir / "b.json");
  CHECK(mt::output_identity(dir / "a.json") == mt::output_identity(dir / "." / "a.json"));
  CHECK(mt::output_identity(dir / "a.json") == mt::output_identity(dir / "b.json"));
  CHECK(mt::output_identity(dir / "a.json") != mt::output_identity(dir / "c.json"));
  fs::remove_all(dir);
}

// The look a trial's job takes first where it gets nodes of its own: its command, and the record it
// leaves for mtrun, read back without trusting it.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "run/job_look.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

fs::path record_file(const std::string& text) {
  const fs::path file = fs::temp_directory_path() / ("mtrun_job_look_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file, std::ios::trunc) << text;
  return file;
}

}  // namespace

TEST_CASE("a trial's job looks first only where it gets nodes of its own, a wait is asked for, and it runs alone") {
  LookPlace in_job;
  in_job.where = LookPlace::Where::InJob;
  CHECK(job_looks_first(in_job, 30, 1));
  CHECK_FALSE(job_looks_first(in_job, 0, 1));   // no wait asked for
  CHECK_FALSE(job_looks_first(in_job, 30, 2));  // beside another trial
  LookPlace nodes = in_job;
  nodes.where = LookPlace::Where::Nodes;  // mtrun looks at the allocation's nodes itself, before the trial
  CHECK_FALSE(job_looks_first(nodes, 30, 1));
  CHECK_FALSE(job_looks_first(LookPlace{}, 30, 1));
}

TEST_CASE("a job's look carries the campaign's wait and thresholds") {
  ConditionsThresholds t;
  t.max_foreign_cpu_pct = 12.5;
  t.max_cpu_pressure_pct = 100;
  CHECK(job_look_command("/opt/mt/mtrun", 30, t, "/runs/t/attempt-1/quiet-look.json") ==
        std::vector<std::string>{"/opt/mt/mtrun", "look", "--allocation", "--wait", "30", "--record",
                                 "/runs/t/attempt-1/quiet-look.json", "--max-foreign-cpu-pct", "12.5",
                                 "--max-steal-pct", "5", "--max-cpu-pressure-pct", "100"});
}

TEST_CASE("what a job's look did is read back as it was written") {
  BeforeLaunch busy;
  busy.quiet_wait_s = 31.2;
  busy.quiet_found = "busy";
  busy.quiet_where = "job_nodes";
  auto file = record_file(job_look_json(busy, {"still busy after 31 s: node c1: other processes used 95 %"}));
  auto read = read_job_look(file);
  REQUIRE(read);
  CHECK(read->look.quiet_wait_s == 31.2);
  CHECK(read->look.quiet_found == "busy");
  CHECK(read->look.quiet_where == "job_nodes");
  CHECK_FALSE(read->look.settle_s);
  CHECK(read->words == std::vector<std::string>{"still busy after 31 s: node c1: other processes used 95 %"});

  BeforeLaunch unknown = busy;  // srun could not look: how long it tried, and nothing found
  unknown.quiet_found.clear();
  file = record_file(job_look_json(unknown, {"could not look for a quiet machine: …"}));
  read = read_job_look(file);
  REQUIRE(read);
  CHECK(read->look.quiet_found.empty());
  CHECK(read->look.quiet_wait_s == 31.2);
  fs::remove(file);
}

TEST_CASE("a job's look record's words are kept only while few and short") {
  BeforeLaunch quiet;
  quiet.quiet_wait_s = 1.0;
  quiet.quiet_found = "quiet";
  quiet.quiet_where = "job_nodes";
  auto file = record_file(job_look_json(quiet, std::vector<std::string>(5, "flood")));
  REQUIRE(read_job_look(file));
  CHECK(read_job_look(file)->words.empty());
  file = record_file(job_look_json(quiet, {std::string(3000, 'x'), "short"}));
  CHECK(read_job_look(file)->words == std::vector<std::string>{"short"});
  fs::remove(file);
}

TEST_CASE("a job's look record that is missing or not as written records nothing") {
  CHECK_FALSE(read_job_look("/nonexistent/quiet-look.json"));
  for (const char* text : {"", "not json", "[]", R"({"quiet_found": "quiet", "quiet_where": "job_nodes"})",
                           R"({"quiet_wait_s": -1, "quiet_found": "quiet", "quiet_where": "job_nodes"})",
                           R"({"quiet_wait_s": NaN, "quiet_found": "quiet", "quiet_where": "job_nodes"})",
                           R"({"quiet_wait_s": 1e300, "quiet_found": "quiet", "quiet_where": "job_nodes"})",
                           R"({"quiet_wait_s": "1", "quiet_found": "quiet", "quiet_where": "job_nodes"})",
                           R"({"quiet_wait_s": 1, "quiet_found": "idle", "quiet_where": "job_nodes"})",
                           R"({"quiet_wait_s": 1, "quiet_found": 1, "quiet_where": "job_nodes"})",
                           R"({"quiet_wait_s": 1, "quiet_where": "job_nodes"})",
                           R"({"quiet_wait_s": 1, "quiet_found": "quiet", "quiet_where": "the moon"})",
                           R"({"quiet_wait_s": 1, "quiet_found": "quiet"})"}) {
    CAPTURE(text);
    const auto file = record_file(text);
    CHECK_FALSE(read_job_look(file));
    fs::remove(file);
  }
}

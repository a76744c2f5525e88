#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "launch/machine_conditions.h"
#include "launch/marked_processes.h"
#include "launch/process_table.h"

using namespace mt;
using namespace std::string_literals;

namespace {

// Starts `sh -c script` with nothing in its environment but MTRUN_JOB=mark.
pid_t start_marked(const std::string& mark, const std::string& script) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::string variable = std::string(kJobMarkVariable) + "=" + mark;
    char* env[] = {variable.data(), nullptr};
    ::execle("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr), env);
    ::_exit(127);
  }
  return pid;
}

double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

// A loop of shell builtins: CPU time and nothing else, no child processes.
const std::string kBurn = "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done";

}  // namespace

TEST_CASE("a process carries the job's mark when its environment names the job or one of its stages") {
  CHECK(environ_has_mark("A=1\0MTRUN_JOB=mtrun-abc-1\0B=2\0"s, "mtrun-abc-1"));
  CHECK(environ_has_mark("MTRUN_JOB=mtrun-abc-1-2\0"s, "mtrun-abc-1"));   // stage 2 of a chain
  CHECK(environ_has_mark("A=1\0MTRUN_JOB=mtrun-abc-1"s, "mtrun-abc-1"));  // no final NUL
  CHECK_FALSE(environ_has_mark("MTRUN_JOB=mtrun-abc-12\0"s, "mtrun-abc-1"));
  CHECK_FALSE(environ_has_mark("XMTRUN_JOB=mtrun-abc-1\0"s, "mtrun-abc-1"));
  CHECK_FALSE(environ_has_mark("A=MTRUN_JOB=mtrun-abc-1\0"s, "mtrun-abc-1"));
  CHECK_FALSE(environ_has_mark(""s, "mtrun-abc-1"));
}

TEST_CASE("the CPU time of the job's marked processes is found and kept to their end, no one else's") {
  const std::string job = "mtrun-test-" + std::to_string(::getpid());
  const pid_t mine = start_marked(job, kBurn);
  const pid_t other = start_marked(job + "0", kBurn);  // another job's name, sharing a prefix
  REQUIRE(mine > 0);
  REQUIRE(other > 0);
  MarkedProcesses marked(job);
  rusage usage{};
  int status = 0;
  while (::wait4(mine, &status, WNOHANG, &usage) == 0) {
    marked.find(0);  // these are this test's children: nothing left out
    marked.refresh();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::waitpid(other, nullptr, 0);
  const double used = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  REQUIRE(used > 0.05);  // enough to tell counted from lost
  CHECK(marked.found() == 1);
  // Clock ticks against microseconds, and at most one 20 ms look between its last reading and its end.
  CHECK(marked.cpu_s() >= used - 0.06);
  CHECK(marked.cpu_s() <= used + 0.03);

  // mtrun's own tree is counted from its descendants, not again by mark.
  const pid_t child = start_marked(job, "sleep 1");
  MarkedProcesses of_others(job);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  of_others.find(int(::getpid()));
  CHECK(of_others.found() == 0);
  ::waitpid(child, nullptr, 0);
}

TEST_CASE("the marked processes' CPU time moves from other processes' share to the job's") {
  MachineConditions c;
  c.wall_s = 10;
  c.busy_cpu_s = 10;
  c.job_cpu_s = 1;
  c.foreign_cpu_pct = 90;
  count_marked_processes(c, 8.5);
  CHECK(c.job_cpu_s == doctest::Approx(9.5));
  CHECK(c.foreign_cpu_pct == doctest::Approx(5));
  count_marked_processes(c, 0);  // none found: nothing changes
  CHECK(c.job_cpu_s == doctest::Approx(9.5));
}

TEST_CASE("a process tree is its root and everything below it, a table with a loop in it included") {
  ProcessTable table;
  table[1] = PidStat{0, 0};
  table[10] = PidStat{1, 0};
  table[11] = PidStat{10, 0};
  table[12] = PidStat{11, 0};
  table[20] = PidStat{1, 0};
  CHECK(process_tree(table, 10) == std::set<int>{10, 11, 12});
  CHECK(process_tree(table, 20) == std::set<int>{20});
  CHECK(process_tree(table, 99) == std::set<int>{99});  // gone: itself only
  table[10].ppid = 12;                                  // read while PIDs were reused: no endless walk
  CHECK(process_tree(table, 10) == std::set<int>{10, 11, 12});
}

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "launch/machine_conditions.h"
#include "launch/marked_processes.h"
#include "launch/process_table.h"

using namespace mt;
using namespace std::string_literals;

namespace {

// A child that runs `sh -c script` with nothing in its environment but MTRUN_JOB=mark, once told
// to: until then it is still this program, with this program's environment. The script talks over
// two pipes: it writes a line to fd 4 when its work is done, and reads fd 3 to be told to end. Each
// step waits for the other side, not for the clock, so a slow machine changes nothing.
class MarkedChild {
 public:
  MarkedChild(const std::string& mark, const std::string& script) {
    int go[2], done[2], end[2];
    REQUIRE(::pipe(go) == 0);
    REQUIRE(::pipe(done) == 0);
    REQUIRE(::pipe(end) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      char byte = 0;
      if (::read(go[0], &byte, 1) != 1) ::_exit(126);
      // Out of the way first, so that neither lands on the other's new number.
      const int end_read = ::fcntl(end[0], F_DUPFD, 10), done_write = ::fcntl(done[1], F_DUPFD, 10);
      ::dup2(end_read, 3);
      ::dup2(done_write, 4);
      std::string variable = std::string(kJobMarkVariable) + "=" + mark;
      char* env[] = {variable.data(), nullptr};
      ::execle("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr), env);
      ::_exit(127);
    }
    ::close(go[0]);
    ::close(done[1]);
    ::close(end[0]);
    go_ = go[1];
    done_ = done[0];
    end_ = end[1];
  }
  ~MarkedChild() {
    ::close(go_);
    ::close(done_);
    ::close(end_);
  }
  MarkedChild(const MarkedChild&) = delete;
  MarkedChild& operator=(const MarkedChild&) = delete;

  void exec() { REQUIRE(::write(go_, "x", 1) == 1); }
  void wait_done() {
    char byte = 0;
    REQUIRE(::read(done_, &byte, 1) == 1);
  }
  // Tells the script to end and waits for it: the CPU time the child used, as the kernel reports it.
  double end() {
    REQUIRE(::write(end_, "\n", 1) == 1);
    rusage usage{};
    int status = 0;
    REQUIRE(::wait4(pid_, &status, 0, &usage) == pid_);
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
  }

 private:
  static double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }
  pid_t pid_ = -1;
  int go_ = -1, done_ = -1, end_ = -1;
};

// A loop of shell builtins: CPU time and nothing else, no child processes; then done, and wait.
const std::string kBurnThenWait = "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; echo >&4; read line <&3";
const std::string kWait = "echo >&4; read line <&3";

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
  MarkedChild mine(job, kBurnThenWait);
  MarkedChild other(job + "0", kWait);  // another job's name, sharing a prefix
  MarkedProcesses marked(job);
  // Looked at between fork and exec, a child shows this program's environment: unmarked then, and
  // looked at again once it runs the job's program.
  marked.find(0);  // these are this test's children: nothing left out
  CHECK(marked.found() == 0);
  mine.exec();
  other.exec();
  mine.wait_done();
  other.wait_done();
  marked.find(0);
  CHECK(marked.found() == 1);
  const double used = mine.end();
  other.end();
  marked.refresh();      // it has ended: its last reading stays
  REQUIRE(used > 0.05);  // enough to tell counted from lost
  CHECK(marked.found() == 1);
  // Clock ticks (utime and stime each cut to 10 ms) against microseconds; after its last reading it
  // only returned from `read` and exited.
  CHECK(marked.cpu_s() >= used - 0.03);
  CHECK(marked.cpu_s() <= used + 0.01);

  // mtrun's own tree is counted from its descendants, not again by mark.
  MarkedChild child(job, kWait);
  child.exec();
  child.wait_done();
  MarkedProcesses of_others(job);
  of_others.find(int(::getpid()));
  CHECK(of_others.found() == 0);
  child.end();
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

TEST_CASE("a kernel file that opens but cannot be read is empty, not an exception") {
  // A directory opens and fails to read (EISDIR), as a /proc file of a process that ends between
  // the open and the read does (ESRCH): std::filebuf threw from the sampler's thread for that.
  CHECK(read_kernel_file("/proc").empty());
  CHECK(read_kernel_file("/no/such/file").empty());
  CHECK(read_kernel_file("/proc/self/stat").rfind(std::to_string(::getpid()) + " (", 0) == 0);
  // Longer than one read: every byte of it.
  const std::string maps = read_kernel_file("/proc/self/maps");
  CHECK(maps.size() > 4096);
  CHECK(maps.back() == '\n');
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

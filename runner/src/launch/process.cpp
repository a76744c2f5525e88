#include "launch/process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <fmt/format.h>

#include "launch/job_guard.h"
#include "launch/queue_note.h"
#include "launch/queue_watch.h"

namespace bp = boost::process;

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(10);

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// What /proc/PID/stat says of a process. The command name may contain spaces and parentheses, so
// fields are counted from the last ')'.
struct ProcStat {
  char state = '?';
  int ppid = -1;
  int session = -1;
};

std::optional<ProcStat> read_stat(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 > stat.size()) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  ProcStat result;
  int pgrp = 0;
  fields >> result.state >> result.ppid >> pgrp >> result.session;
  if (!fields) return std::nullopt;
  return result;
}

// Every process of /proc with its stat, by PID.
std::map<int, ProcStat> all_processes() {
  std::map<int, ProcStat> processes;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (auto stat = read_stat(name)) processes[std::stoi(name)] = *stat;
  }
  return processes;
}

// Live (not zombie) processes below `ancestor` in the process tree.
std::vector<int> live_descendants(int ancestor) {
  std::map<int, std::vector<int>> children;
  const auto processes = all_processes();
  for (const auto& [pid, stat] : processes) children[stat.ppid].push_back(pid);
  std::vector<int> found, frontier = {ancestor};
  while (!frontier.empty()) {
    const int parent = frontier.back();
    frontier.pop_back();
    for (int child : children[parent]) {
      if (processes.at(child).state != 'Z') found.push_back(child);
      frontier.push_back(child);
    }
  }
  return found;
}

void reap_exited_children() {
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {}
}

// Reaps the processes of `session` this process adopted, and only those: another job's launcher,
// running beside this one, must be left for its own wait.
void reap_session(int session) {
  for (const auto& [pid, stat] : all_processes()) {
    if (stat.session == session && stat.state == 'Z') ::waitpid(pid, nullptr, WNOHANG);
  }
}

// Kills whatever is left in `session` and reaps what this process adopted, until nothing is left
// (bounded: a process we cannot kill must not hang the runner). `only_session`: reap nothing else.
void clear_session(int session, bool only_session) {
  auto start = Clock::now();
  while (signal_session(session, SIGKILL) > 0 && seconds_since(start) < 2.0) {
    if (only_session) {
      reap_session(session);
    } else {
      while (waitpid(-1, nullptr, WNOHANG) > 0) {}
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

// Jobs started beside each other start one at a time: a launch is not interleaved with another's.
std::mutex g_spawn;

// SIGTERM to the launcher's group, a grace period, then SIGKILL to the launcher and to every
// process left in its session (Open MPI puts each rank in a process group of its own).
void terminate_job(bp::child& child, double grace_s) {
  const pid_t pid = child.id();
  ::kill(-pid, SIGTERM);
  auto start = Clock::now();
  std::error_code ec;
  while (child.running(ec) && seconds_since(start) < grace_s) std::this_thread::sleep_for(kPollInterval);
  if (child.running(ec)) ::kill(pid, SIGKILL);
  child.wait(ec);
}

// A batch job's output lands in a file of its own: the trial's log gets it, so what is read from the
// log (a failure's reason, a crashed rank, a command's metrics) is there as with srun.
// Bounded, and only from a regular file: the job controls what is there (a FIFO would block).
void append_job_output(const ProcessSpec& spec, std::ostream& log) {
  if (spec.job_output_file.empty()) return;
  constexpr std::uintmax_t kMostBytes = std::uintmax_t(256) << 20;  // what a log scan reads at most
  const auto file = spec.working_dir / spec.job_output_file;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(file, ec))) {
    log << fmt::format("mtrun: the job left no regular file {}\n", file.string());
    return;
  }
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  log << fmt::format("mtrun: the job's own output ({}) follows\n", file.string());
  std::ifstream output(file, std::ios::binary);
  std::vector<char> chunk(1 << 16);
  std::uintmax_t copied = 0;
  while (output && copied < kMostBytes) {
    output.read(chunk.data(), std::streamsize(std::min<std::uintmax_t>(chunk.size(), kMostBytes - copied)));
    log.write(chunk.data(), output.gcount());
    copied += std::uintmax_t(output.gcount());
  }
  if (!ec && size > copied)
    log << fmt::format("\nmtrun: cut after {} bytes; the rest is in {}\n", copied, file.string());
}

// Says in the trial's log, once the job is over (the launcher writes to the same file until then),
// how long the scheduler held it and from when its timeout counted.
void note_queue_wait(const ProcessSpec& spec, const ProcessOutcome& outcome, const std::string& problem,
                     std::ostream& log) {
  std::string note;
  if (outcome.stopped_in_queue) {
    note = fmt::format(
        "the job was still queued after {:.1f} s ({}), past the launcher's queue_timeout_s of {:g} s; "
        "it never started",
        outcome.queued_s, outcome.queue_state, spec.queue_timeout_s);
  } else if (outcome.queued_s > 0) {
    note = fmt::format(
        "the job waited {:.1f} s in the scheduler's queue (last seen: {}); its timeout counted from "
        "then",
        outcome.queued_s, outcome.queue_state);
  }
  if (!problem.empty()) {
    note += fmt::format("{}could not ask the scheduler whether the job had started: {}{}", note.empty() ? "" : "; ",
                        problem, outcome.queued_s > 0 ? "" : "; its timeout counted from the launch");
  }
  if (!note.empty()) log << "mtrun: " << note << "\n" << std::flush;
}

}  // namespace

void become_child_subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

int signal_session(int session, int signal, int spare) {
  int count = 0;
  for (const auto& [pid, stat] : all_processes()) {
    if (pid != spare && stat.session == session && ::kill(pid, signal) == 0) ++count;
  }
  return count;
}

void kill_descendants() {
  const auto start = Clock::now();
  while (true) {
    reap_exited_children();
    const auto left = live_descendants(::getpid());
    if (left.empty() || seconds_since(start) > 5.0) break;  // bounded: one we cannot kill must not hang us
    for (int pid : left) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(kPollInterval);
  }
  reap_exited_children();
}

ProcessOutcome run_process(const ProcessSpec& spec, const std::atomic<bool>* interrupt) {
  ProcessOutcome outcome;
  if (spec.argv.empty()) {
    outcome.launch_error = "empty command";
    return outcome;
  }
  boost::filesystem::path exe = spec.argv[0];
  if (spec.argv[0].find('/') == std::string::npos) exe = bp::search_path(spec.argv[0]);
  if (exe.empty() || !boost::filesystem::exists(exe)) {
    outcome.launch_error = fmt::format("'{}' not found (looked on PATH)", spec.argv[0]);
    return outcome;
  }
  std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  if (!spec.guard.empty()) {
    const auto guarded = guard_arguments(spec.cleanup, exe.string());
    args.insert(args.begin(), guarded.begin(), guarded.end());
    exe = spec.guard.string();
  }
  bp::environment env = boost::this_process::environment();
  for (const auto& [name, value] : spec.environment) env[name] = value;
  std::error_code ec;
  std::filesystem::remove(spec.log_file, ec);  // Boost.Process appends to an existing file
  auto start = Clock::now();
  std::unique_lock spawning(g_spawn);
  bp::child child(
      exe, bp::args(args), env, bp::start_dir(spec.working_dir.string()),
      (bp::std_out & bp::std_err) > spec.log_file.string(), bp::std_in < bp::null,
      bp::extend::on_exec_setup = [](auto&) { ::setsid(); }, ec);
  spawning.unlock();
  if (ec) {
    outcome.launch_error = fmt::format("could not start '{}': {}", exe.string(), ec.message());
    return outcome;
  }

  if (spec.running_pid) spec.running_pid->store(child.id());
  // Poll rather than wait_for: Boost 1.74's wait_for can sleep the whole timeout if the child
  // has already exited.
  bool timed_out = false, interrupted = false;
  std::optional<Clock::time_point> ranks_started;  // when spec.ranks_start_file appeared
  QueueWatch queue(spec.job_state, start, spec.queue_look_every_s, interrupt);
  if (!spec.working_dir.empty()) queue.note_in(spec.working_dir / kQueueNoteName);
  if (spec.queue_state_changed) queue.on_change(spec.queue_state_changed);
  while (child.running(ec)) {
    if (interrupt && interrupt->load()) {
      interrupted = true;
      terminate_job(child, spec.terminate_grace_s);
      break;
    }
    queue.look();
    if (queue.waiting() && spec.queue_timeout_s > 0 && queue.queued_s() > spec.queue_timeout_s) {
      timed_out = outcome.stopped_in_queue = true;
      terminate_job(child, spec.terminate_grace_s);
      break;
    }
    if (!ranks_started && !spec.ranks_start_file.empty() && std::filesystem::exists(spec.ranks_start_file, ec)) {
      ranks_started = Clock::now();
    }
    const double running = ranks_started ? seconds_since(std::max(*ranks_started, queue.run_clock_start()))
                                         : seconds_since(queue.run_clock_start()) - spec.before_ranks_s;
    if (running > spec.timeout_s) {
      timed_out = true;
      terminate_job(child, spec.terminate_grace_s);
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  outcome.duration_s = seconds_since(start);
  if (spec.running_pid) spec.running_pid->store(0);
  // Ranks the launcher left behind (it crashed or was killed) must not outlive the trial, nor
  // processes that left its session and were adopted here when the guard died.
  clear_session(child.id(), spec.beside_others);
  // Beside other jobs every descendant is not this job's: the guard has cleared its own.
  if (!spec.guard.empty() && !spec.beside_others) kill_descendants();

  outcome.queued_s = queue.queued_s();
  outcome.queue_state = queue.last_state();
  // What mtrun did after the launcher ended goes after everything the job wrote to the log.
  std::ofstream log(spec.log_file, std::ios::app | std::ios::binary);
  note_queue_wait(spec, outcome, queue.problem(), log);
  if (!spec.ranks_start_file.empty() && ranks_started) {
    log << fmt::format("mtrun: what the job ran before its ranks took {:.1f} s; its timeout counted from its end\n",
                       std::max(0.0, std::chrono::duration<double>(*ranks_started - queue.run_clock_start()).count()));
  } else if (!spec.ranks_start_file.empty()) {
    log << fmt::format(
        "mtrun: what the job ran before its ranks did not finish ({} never appeared); its timeout "
        "allowed it {:g} s more\n",
        spec.ranks_start_file.filename().string(), spec.before_ranks_s);
  }
  if ((timed_out || interrupted) && !spec.cleanup.empty()) {
    outcome.cleanup_problem = clean_up_job(spec.cleanup, log, spec.cleanup_limits);
  }
  append_job_output(spec, log);  // after the cleanup: a stopped job writes until it is gone
  if (timed_out) {
    outcome.end = ProcessEnd::TimedOut;
  } else if (interrupted) {
    outcome.end = ProcessEnd::Interrupted;
  } else {
    int status = child.native_exit_code();
    if (WIFSIGNALED(status)) {
      outcome.end = ProcessEnd::Signaled;
      outcome.signal = WTERMSIG(status);
    } else {
      outcome.end = ProcessEnd::Exited;
      outcome.exit_code = WEXITSTATUS(status);
    }
  }
  return outcome;
}

}  // namespace mt

#include "launch/machine_sampler.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <iostream>
#include <sstream>
#include <vector>

#include "launch/process_table.h"

namespace mt {
namespace {

double cpu_seconds(int who) {
  rusage usage{};
  if (getrusage(who, &usage) != 0) return 0;
  auto s = [](const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

// Mean scaling_cur_freq (kHz) over the CPUs that have one; else /proc/cpuinfo's "cpu MHz".
std::optional<double> cpu_mhz(const MachinePaths& paths) {
  double sum = 0;
  int n = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(paths.sys / "devices/system/cpu", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    std::istringstream value(read_kernel_file(entry.path() / "cpufreq/scaling_cur_freq"));
    double khz = 0;
    if (value >> khz) sum += khz / 1000.0, ++n;
  }
  if (n > 0) return sum / n;
  return parse_cpuinfo_mhz(read_kernel_file(paths.proc / "cpuinfo"));
}

// CPU seconds of this process's live descendants (their own and their waited-for children's):
// with RUSAGE_CHILDREN, which has the ones already reaped, everything mtrun started.
double live_descendants_cpu_s(const MachinePaths& paths) {
  const int self = int(::getpid());
  const ProcessTable table = read_process_table(paths.proc);
  std::uint64_t ticks = 0;
  for (const int pid : process_tree(table, self)) {
    if (pid != self) ticks += table.at(pid).cpu_ticks;
  }
  return double(ticks) / proc_ticks_per_second();
}

MachineSample sample(const MachinePaths& paths, double t0) {
  return {steady_seconds() - t0, parse_load1(read_kernel_file(paths.proc / "loadavg")), cpu_mhz(paths),
          parse_mem_available_mib(read_kernel_file(paths.proc / "meminfo"))};
}

}  // namespace

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double proc_ticks_per_second() {
  const long hz = sysconf(_SC_CLK_TCK);
  return hz > 0 ? double(hz) : 100.0;
}

MachineSnapshot read_snapshot(const MachinePaths& paths) {
  MachineSnapshot s;
  s.load1 = parse_load1(read_kernel_file(paths.proc / "loadavg"));
  s.cpu_mhz = cpu_mhz(paths);
  s.mem_available_mib = parse_mem_available_mib(read_kernel_file(paths.proc / "meminfo"));
  s.cpu_pressure_us = parse_pressure_some_us(read_kernel_file(paths.proc / "pressure/cpu"));
  s.memory_pressure_us = parse_pressure_some_us(read_kernel_file(paths.proc / "pressure/memory"));
  // The CPU counters last and together, so the window they bound is as tight as it can be.
  s.self_cpu_s = cpu_seconds(RUSAGE_SELF);
  s.children_cpu_s = cpu_seconds(RUSAGE_CHILDREN);
  s.descendants_cpu_s = live_descendants_cpu_s(paths);
  s.stat = parse_proc_stat(read_kernel_file(paths.proc / "stat"));
  s.t = steady_seconds();
  return s;
}

MachineSampler::MachineSampler(double interval_s, MachinePaths paths, const std::string& marked_job)
    : interval_s_(interval_s), paths_(std::move(paths)) {
  if (!marked_job.empty()) marked_.emplace(marked_job, paths_.proc);
}

MachineSampler::~MachineSampler() { stop(); }

void MachineSampler::start(double t0) {
  stopping_ = false;
  samples_.clear();
  thread_ = std::thread([this, t0] { loop(t0); });
}

std::vector<MachineSample> MachineSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  return std::move(samples_);
}

void MachineSampler::loop(double t0) {
  // A marked process's CPU time is read often: what it used after its last reading is lost.
  constexpr double kMarkedReadEveryS = 0.1;
  std::unique_lock<std::mutex> lock(mutex_);
  const auto tick = std::chrono::duration<double>(marked_ ? std::min(interval_s_, kMarkedReadEveryS) : interval_s_);
  double next_sample = steady_seconds() + interval_s_;
  while (!wake_.wait_for(lock, tick, [this] { return stopping_; })) {
    lock.unlock();
    std::optional<MachineSample> s;
    try {
      if (marked_) marked_->refresh();
      if (steady_seconds() >= next_sample - 1e-3) {
        s = sample(paths_, t0);
        if (marked_) marked_->find(int(::getpid()));
        next_sample += interval_s_;
      }
    } catch (const std::exception& e) {
      // Escaping this thread would abort mtrun with the job still running; the snapshots before and
      // after the job still bound its window.
      std::cerr << "mtrun: sampling the machine stopped: " << e.what() << '\n';
      lock.lock();
      return;
    }
    lock.lock();
    if (s && samples_.size() < kMaxSamples) samples_.push_back(*s);
  }
}

std::optional<MachineConditions> measure_machine(double seconds, const MachinePaths& paths) {
  const MachineSnapshot before = read_snapshot(paths);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const MachineSnapshot after = read_snapshot(paths);
  return conditions_between(before, after, {}, proc_ticks_per_second());
}

}  // namespace mt

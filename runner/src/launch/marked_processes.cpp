#include "launch/marked_processes.h"

#include <algorithm>

#include "launch/machine_sampler.h"
#include "launch/proc_readings.h"
#include "launch/process_table.h"

namespace mt {

bool environ_has_mark(std::string_view environ, std::string_view job_name) {
  const std::string prefix = std::string(kJobMarkVariable) + "=";
  std::size_t begin = 0;
  while (begin < environ.size()) {
    std::size_t end = environ.find('\0', begin);
    if (end == std::string_view::npos) end = environ.size();
    std::string_view entry = environ.substr(begin, end - begin);
    if (entry.substr(0, prefix.size()) == prefix) {
      std::string_view value = entry.substr(prefix.size());
      if (value.substr(0, job_name.size()) == job_name &&
          (value.size() == job_name.size() || value[job_name.size()] == '-')) {
        return true;
      }
    }
    begin = end + 1;
  }
  return false;
}

MarkedProcesses::MarkedProcesses(std::string job_name, std::filesystem::path proc)
    : job_name_(std::move(job_name)), proc_(std::move(proc)) {}

void MarkedProcesses::find(int tree_root) {
  const ProcessTable processes = read_process_table(proc_);
  const std::set<int> tree = tree_root > 0 ? process_tree(processes, tree_root) : std::set<int>{};
  for (const auto& [pid, stat] : processes) {
    if (tree.count(pid)) continue;
    const Process process{pid, stat.start_ticks};
    if (auto known = cpu_ticks_.find(process); known != cpu_ticks_.end()) {
      known->second = std::max(known->second, stat.cpu_ticks);
    } else if (const Environment seen{pid, stat.start_ticks, stat.env_start, stat.env_end}; !unmarked_.count(seen)) {
      // Only the job's own user may read a process's environment; others' read as unmarked.
      if (environ_has_mark(read_kernel_file(proc_ / std::to_string(pid) / "environ"), job_name_)) {
        cpu_ticks_[process] = stat.cpu_ticks;
      } else {
        unmarked_.insert(seen);
      }
    }
  }
}

void MarkedProcesses::refresh() {
  for (auto& [process, ticks] : cpu_ticks_) {
    const auto stat = parse_pid_stat(read_kernel_file(proc_ / std::to_string(process.first) / "stat"));
    if (stat && stat->start_ticks == process.second) ticks = std::max(ticks, stat->cpu_ticks);
  }
}

double MarkedProcesses::cpu_s() const {
  std::uint64_t ticks = 0;
  for (const auto& [process, process_ticks] : cpu_ticks_) ticks += process_ticks;
  return double(ticks) / proc_ticks_per_second();
}

}  // namespace mt

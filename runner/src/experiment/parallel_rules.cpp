#include "experiment/parallel_rules.h"

#include <sched.h>

#include <charconv>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mt {
namespace {

constexpr int kMostCpus = 1 << 16;

bool read_cpu(const std::string& text, int& cpu) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), cpu);
  return error == std::errc() && end == text.data() + text.size() && cpu >= 0 && cpu < kMostCpus;
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, by);) parts.push_back(part);
  return parts;
}

}  // namespace

std::optional<std::set<int>> parse_cpu_list(const std::string& text) {
  std::set<int> cpus;
  for (const std::string& part : split(text, ',')) {
    const auto dash = part.find('-');
    int first = 0, last = 0;
    if (dash == std::string::npos) {
      if (!read_cpu(part, first)) return std::nullopt;
      last = first;
    } else if (!read_cpu(part.substr(0, dash), first) || !read_cpu(part.substr(dash + 1), last) || last < first) {
      return std::nullopt;
    }
    for (int c = first; c <= last; ++c) cpus.insert(c);
  }
  if (cpus.empty()) return std::nullopt;
  return cpus;
}

std::set<std::string> hosts_of(const std::string& text) {
  std::set<std::string> hosts;
  for (const std::string& part : split(text, ',')) {
    std::string host = part.substr(0, part.find(':'));
    if (!host.empty()) hosts.insert(host);
  }
  return hosts;
}

std::string cpu_sets_problem(const std::vector<std::string>& sets) {
  std::set<int> seen;
  for (const std::string& set : sets) {
    auto cpus = parse_cpu_list(set);
    if (!cpus) return fmt::format("cpu set '{}' is not a CPU list such as \"0-3,8\"", set);
    for (int c : *cpus) {
      if (!seen.insert(c).second)
        return fmt::format("CPU {} is in more than one cpu set: the sets must be disjoint", c);
    }
  }
  return "";
}

std::string host_sets_problem(const std::vector<std::string>& sets) {
  std::set<std::string> seen;
  for (const std::string& set : sets) {
    const auto hosts = hosts_of(set);
    if (hosts.empty()) return fmt::format("host set '{}' names no host", set);
    for (const auto& h : hosts) {
      if (!seen.insert(h).second) {
        return fmt::format("host '{}' is in more than one host set: the sets must be disjoint", h);
      }
    }
  }
  return "";
}

std::set<int> cpus_of_this_process() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  std::set<int> cpus;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &mask)) cpus.insert(c);
  }
  return cpus;
}

std::string cpu_sets_beyond_this_machine(const std::vector<std::string>& sets) {
  const std::set<int> here = cpus_of_this_process();
  if (here.empty()) return "";
  for (const std::string& set : sets) {
    const auto cpus = parse_cpu_list(set);
    if (!cpus) continue;  // cpu_sets_problem says so
    for (int c : *cpus) {
      if (here.count(c)) continue;
      std::vector<std::string> ranges;  // "0-1,4": what it may use, as a CPU list
      for (auto it = here.begin(); it != here.end();) {
        int first = *it, last = first;
        while (++it != here.end() && *it == last + 1) last = *it;
        ranges.push_back(first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
      }
      return fmt::format("cpu set '{}' names CPU {}, which this machine does not give mtrun (it may use CPUs {})", set,
                         c, fmt::join(ranges, ","));
    }
  }
  return "";
}

std::string parallel_problem(const LauncherConfig& launcher, int parallel) {
  if (parallel <= 1) return "";
  if (launcher.type == "slurm") return "";  // each trial an allocation of its own, --exclusive
  if (launcher.type == "local") {
    return fmt::format(
        "parallel: {} with launcher local would run trials side by side on this machine, disturbing each other's "
        "timings; use launcher mpirun with cpu_sets, or slurm",
        parallel);
  }
  if (!launcher.hostfile.empty()) {
    if (int(launcher.host_sets.size()) >= parallel) return "";
    return fmt::format(
        "parallel: {} with a hostfile needs {} disjoint host sets (launcher host_sets: [\"n1,n2\", \"n3,n4\"]), one "
        "per "
        "trial in flight, so that no two trials share a host; it has {}",
        parallel, parallel, launcher.host_sets.size());
  }
  if (int(launcher.cpu_sets.size()) >= parallel) return "";
  return fmt::format(
      "parallel: {} on this machine with mpirun would run trials side by side on the same cores, disturbing each "
      "other's timings; declare {} disjoint CPU sets (launcher cpu_sets: [\"0-3\", \"4-7\"]), one per trial in "
      "flight, or run them one at a time",
      parallel, parallel);
}

}  // namespace mt

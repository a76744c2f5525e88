#include "core/env/cpu_info.h"

#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace mt {
namespace {

std::string slurp(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(const std::string& s) {
  const auto start = s.find_first_not_of(" \t");
  if (start == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r");
  return s.substr(start, end - start + 1);
}

int to_int(const std::string& s, int fallback) {
  try {
    return std::stoi(s);
  } catch (...) {
    return fallback;
  }
}

}  // namespace

std::string CpuInfo::identity() const {
  return model + " (" + vendor + " family " + std::to_string(family) + " model " + std::to_string(model_number) +
         " stepping " + std::to_string(stepping) + "; " + isa + ")";
}

CpuInfo parse_cpu_info(const std::string& cpuinfo, const std::string& meminfo, int online_cpus) {
  CpuInfo info;
  info.logical_cpus = online_cpus;
  std::set<std::string> flags;
  int siblings = 0, cores = 0;
  std::istringstream lines(cpuinfo);
  // Every processor block repeats the same facts; the first one is enough.
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() && !info.model.empty()) break;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "model name") info.model = value;
    else if (key == "vendor_id") info.vendor = value;
    else if (key == "cpu family") info.family = to_int(value, -1);
    else if (key == "model") info.model_number = to_int(value, -1);
    else if (key == "stepping") info.stepping = to_int(value, -1);
    else if (key == "siblings") siblings = to_int(value, 0);
    else if (key == "cpu cores") cores = to_int(value, 0);
    else if (key == "cpu MHz") info.mhz = std::strtod(value.c_str(), nullptr);
    else if (key == "flags") {
      std::istringstream words(value);
      for (std::string w; words >> w;) flags.insert(w);
    }
  }
  if (siblings > 0 && cores > 0 && siblings >= cores) info.threads_per_core = siblings / cores;
  if (info.logical_cpus <= 0) info.logical_cpus = siblings > 0 ? siblings : 1;

  // Best first; each listed only when present. amx_tile/avx512_bf16 matter for bf16 matmuls.
  const std::vector<std::pair<const char*, const char*>> interesting = {
      {"amx_tile", "amx"},    {"avx512_bf16", "avx512_bf16"},
      {"avx512f", "avx512f"}, {"avx2", "avx2"},
      {"fma", "fma"},         {"avx", "avx"},
      {"sse4_2", "sse4.2"}};
  for (const auto& [flag, name] : interesting) {
    if (!flags.count(flag)) continue;
    if (!info.isa.empty()) info.isa += ' ';
    info.isa += name;
  }
  // fp32 FLOP per cycle per core with two vector pipes: FMA counts two. AMD's Zen 4 (family 25)
  // runs AVX-512 through its two 256-bit pipes, each 512-bit instruction in two halves, so its peak
  // is AVX2's; Zen 5 (family 26) has full-width pipes on its server and desktop parts (its mobile
  // parts split them as Zen 4 does and are not told apart here).
  const bool amd_split_avx512 = info.vendor == "AuthenticAMD" && info.family >= 0 && info.family < 26;
  if (flags.count("avx512f")) info.fp32_flops_per_cycle = amd_split_avx512 ? 32 : 64;
  else if (flags.count("avx2") && flags.count("fma")) info.fp32_flops_per_cycle = 32;
  else if (flags.count("avx")) info.fp32_flops_per_cycle = 16;

  std::istringstream mem(meminfo);
  for (std::string line; std::getline(mem, line);) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    info.memory_mib = std::strtol(line.c_str() + 9, nullptr, 10) / 1024;
  }
  return info;
}

CpuInfo read_cpu_info() {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return parse_cpu_info(slurp("/proc/cpuinfo"), slurp("/proc/meminfo"), online > 0 ? static_cast<int>(online) : 0);
}

}  // namespace mt

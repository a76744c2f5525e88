#include "env/environment.h"

#include <sys/utsname.h>
#include <torch/version.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "comm/mpi_communicator.h"
#include "kernels/isa.h"

#ifndef MT_BUILD_TYPE
#define MT_BUILD_TYPE "unknown"
#endif

namespace mt {
namespace {

std::string unquote(std::string s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  return s;
}

std::string os_pretty_name() {
  std::ifstream in("/etc/os-release");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("PRETTY_NAME=", 0) == 0) return unquote(line.substr(12));
  return "unknown";
}

std::string kernel_release() {
  utsname info{};
  if (uname(&info) != 0) return "unknown";
  return std::string(info.sysname) + " " + info.release;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) break;
    const auto start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

// The BLAS actually mapped into this process (Debian's alternatives make the link name useless:
// libblas.so.3 may be the reference BLAS or OpenBLAS, ~5x apart in speed).
std::string loaded_blas() {
  std::ifstream in("/proc/self/maps");
  std::string fallback;
  for (std::string line; std::getline(in, line);) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (path.find("openblas") != std::string::npos) return "openblas (" + path + ")";
    if (fallback.empty() && path.find("blas") != std::string::npos) fallback = path;
  }
  return fallback.empty() ? "none loaded" : "reference (" + fallback + ")";
}

}  // namespace

Environment build_environment() {
  Environment env;
  env.libtorch = TORCH_VERSION;
  env.mpi = mpi_library_version();
  env.compiler = std::string("gcc ") + __VERSION__;
  env.build_type = MT_BUILD_TYPE;
  env.build_revision = build_revision();
  env.build_tree_dirty = build_tree_dirty();
  return env;
}

Environment collect_environment() {
  Environment env = build_environment();
  env.os = os_pretty_name();
  env.kernel = kernel_release();
  env.cpu_model = cpu_model();
  env.blas = loaded_blas();
  env.simd_kernels = kernel_isa_name(kernel_isa());
  return env;
}

nlohmann::json to_json(const Environment& env, bool include_machine) {
  nlohmann::json out = {{"libtorch", env.libtorch},
                        {"mpi", env.mpi},
                        {"compiler", env.compiler},
                        {"build_type", env.build_type},
                        {"build_revision", env.build_revision},
                        {"build_tree_dirty", env.build_tree_dirty}};
  if (include_machine) {
    out["os"] = env.os;
    out["kernel"] = env.kernel;
    out["cpu_model"] = env.cpu_model;
    out["blas"] = env.blas;
    out["simd_kernels"] = env.simd_kernels;
  }
  return out;
}

}  // namespace mt

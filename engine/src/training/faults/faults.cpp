#include "training/faults/faults.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mt {
namespace {

const std::map<std::string, FaultKind> kKinds = {{"kill", FaultKind::kill},
                                                 {"exit", FaultKind::exit},
                                                 {"nan", FaultKind::nan},
                                                 {"sleep", FaultKind::sleep},
                                                 {"save-kill", FaultKind::save_kill}};

// A sleep longer than a day is a typo, not a straggler (and NaN or 1e300 would not sleep at all).
constexpr double kLongestSleepS = 86400;

double number(const std::string& spec, const std::string& key, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
    throw std::invalid_argument(fmt::format("--fault '{}': {}={} is not a non-negative number", spec, key, text));
  return v;
}

// rank, step, code and after: whole numbers that fit the field.
int64_t whole(const std::string& spec, const std::string& key, const std::string& text, double most) {
  const double v = number(spec, key, text);
  if (v != std::floor(v) || v > most)
    throw std::invalid_argument(
        fmt::format("--fault '{}': {}={} is not a whole number up to {:.0f}", spec, key, text, most));
  return static_cast<int64_t>(v);
}

}  // namespace

Fault parse_fault(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  auto it = kKinds.find(kind);
  if (it == kKinds.end())
    throw std::invalid_argument(
        fmt::format("--fault '{}': unknown kind '{}' (kill, exit, nan, sleep, save-kill)", spec, kind));
  Fault f{it->second};
  bool has_step = false;
  std::stringstream pairs(colon == std::string::npos ? "" : spec.substr(colon + 1));
  for (std::string pair; std::getline(pairs, pair, ',');) {
    const auto equals = pair.find('=');
    const std::string key = pair.substr(0, equals), value = equals == std::string::npos ? "" : pair.substr(equals + 1);
    if (key == "rank") f.rank = static_cast<int>(whole(spec, key, value, 1 << 30));
    else if (key == "step") f.step = whole(spec, key, value, 1e15), has_step = true;
    else if (key == "code" && f.kind == FaultKind::exit) f.code = static_cast<int>(whole(spec, key, value, 255));
    else if (key == "seconds" && f.kind == FaultKind::sleep) {
      f.seconds = number(spec, key, value);
      if (f.seconds > kLongestSleepS)
        throw std::invalid_argument(
            fmt::format("--fault '{}': seconds={} is longer than a day ({:.0f} s)", spec, value, kLongestSleepS));
    } else if (key == "after" && f.kind == FaultKind::save_kill) f.after = whole(spec, key, value, 1e15);
    else throw std::invalid_argument(fmt::format("--fault '{}': '{}' is not a setting of {}", spec, key, kind));
  }
  if (!has_step) throw std::invalid_argument(fmt::format("--fault '{}': step= is required", spec));
  return f;
}

std::optional<std::string> FaultPlan::check(int world_size) const {
  for (const auto& f : faults_)
    if (f.rank >= world_size)
      return fmt::format("--fault names rank {}, but the job has {} rank(s)", f.rank, world_size);
  return std::nullopt;
}

void kill_self() {
  std::fflush(stdout);
  std::fflush(stderr);
  ::kill(::getpid(), SIGKILL);
  std::_Exit(137);  // not reached
}

void FaultPlan::before_step(int rank, int64_t step) const {
  for (const auto& f : faults_) {
    if (f.rank != rank || f.step != step) continue;
    switch (f.kind) {
      case FaultKind::kill:
        std::fprintf(stderr, "mtengine: injected fault: rank %d kills itself before step %lld\n", rank,
                     static_cast<long long>(step));
        kill_self();
      case FaultKind::exit:
        std::fprintf(stderr, "mtengine: injected fault: rank %d exits with %d before step %lld\n", rank, f.code,
                     static_cast<long long>(step));
        std::fflush(stderr);
        std::_Exit(f.code);
      case FaultKind::sleep: std::this_thread::sleep_for(std::chrono::duration<double>(f.seconds)); break;
      default: break;
    }
  }
}

bool FaultPlan::nan_loss(int rank, int64_t step) const {
  for (const auto& f : faults_)
    if (f.kind == FaultKind::nan && f.rank == rank && f.step == step) return true;
  return false;
}

std::optional<int64_t> FaultPlan::save_kill_after(int rank, int64_t step) const {
  for (const auto& f : faults_)
    if (f.kind == FaultKind::save_kill && f.rank == rank && f.step == step) return f.after;
  return std::nullopt;
}

}  // namespace mt

#include "experiment/restart_policy.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace mt {

std::string RestartPolicy::describe() const {
  if (!enabled()) return "no restarts";
  return fmt::format("up to {} restart{} from the {} READY checkpoint", max, max == 1 ? "" : "s", resume);
}

namespace {

// The step= of a fault specification ("kill:rank=1,step=8"), when it names one.
std::optional<long> fault_step(const std::string& spec) {
  const auto colon = spec.find(':');
  std::size_t at = colon == std::string::npos ? 0 : colon + 1;
  while (at < spec.size()) {
    const auto comma = std::min(spec.find(',', at), spec.size());
    const std::string field = spec.substr(at, comma - at);
    if (field.rfind("step=", 0) == 0) {
      char* end = nullptr;
      const long step = std::strtol(field.c_str() + 5, &end, 10);
      if (end != field.c_str() + 5 && *end == '\0') return step;
      return std::nullopt;
    }
    at = comma + 1;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> faults_not_reached(const std::vector<std::string>& engine_args,
                                            std::optional<int> reached_step) {
  auto keep = [&](const std::string& spec) {
    const auto step = fault_step(spec);
    return reached_step && step && *step > *reached_step;
  };
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < engine_args.size(); ++i) {
    const std::string& arg = engine_args[i];
    if (arg == "--fault" && i + 1 < engine_args.size()) {
      if (keep(engine_args[i + 1])) kept.insert(kept.end(), {arg, engine_args[i + 1]});
      ++i;
    } else if (arg.rfind("--fault=", 0) == 0) {
      if (keep(arg.substr(8))) kept.push_back(arg);
    } else {
      kept.push_back(arg);
    }
  }
  return kept;
}

}  // namespace mt

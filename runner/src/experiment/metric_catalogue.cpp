#include "experiment/metric_catalogue.h"

namespace mt {

const std::vector<MetricInfo>& metric_catalogue() {
  static const std::vector<MetricInfo> catalogue = {
      // mtengine train (and training peers run as `command` studies)
      {"tokens_per_sec", "tokens/s", "tokens/s", 0, Better::Higher},
      {"step_time_ms", "step ms", "ms", 2, Better::Lower},
      {"data_time_ms", "data ms", "ms", 2, Better::Lower},
      {"forward_backward_ms", "fwd+bwd ms", "ms", 2, Better::Lower},
      {"optimizer_step_ms", "optimizer ms", "ms", 2, Better::Lower},
      {"peak_memory_mb", "peak MiB", "MiB", 1, Better::Lower},
      {"loss", "loss", "", 4, Better::Lower},
      // mtengine comm (and its peers)
      {"latency_us", "latency µs", "µs", 2, Better::Lower},
      {"algbw_gbps", "algbw GB/s", "GB/s", 2, Better::Higher},
      {"busbw_gbps", "busbw GB/s", "GB/s", 2, Better::Higher},
      // mtengine moe
      {"dispatch_ms", "dispatch ms", "ms", 2, Better::Lower},
      {"compute_ms", "compute ms", "ms", 2, Better::Lower},
      {"combine_ms", "combine ms", "ms", 2, Better::Lower},
      {"step_ms", "step ms", "ms", 2, Better::Lower},
  };
  return catalogue;
}

std::optional<MetricInfo> known_metric(const std::string& name) {
  for (const auto& m : metric_catalogue()) {
    if (m.name == name) return m;
  }
  return std::nullopt;
}

std::string better_text(Better better) {
  switch (better) {
    case Better::Higher: return "higher";
    case Better::Lower: return "lower";
    case Better::Unknown: break;
  }
  return "";
}

std::optional<Better> better_from_text(const std::string& text) {
  if (text == "higher") return Better::Higher;
  if (text == "lower") return Better::Lower;
  return std::nullopt;
}

}  // namespace mt

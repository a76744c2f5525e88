#pragma once
// The one list of metrics whose meaning mtrun knows: the engine's, by the names its results use.
// Each has the title tables give it, its unit, how many decimals it is shown with, and which way is
// better. Experiment files name these metrics in `questions:`, so the list lives with them. A
// `command` workload's own metrics are not listed: their experiment declares the direction
// (`better: higher|lower` beside `regex`/`json`), and it reaches reports through the trial's spec.
#include <optional>
#include <string>
#include <vector>

namespace mt {

enum class Better { Unknown, Higher, Lower };

struct MetricInfo {
  std::string name;   // as stored: "tokens_per_sec"
  std::string title;  // as tables head it: "tokens/s"
  std::string unit;   // "tokens/s", "ms", "MiB", "GB/s"; "" for a pure number
  int decimals = 2;
  Better better = Better::Unknown;
};

// Every known metric, in the order training, collectives, MoE.
const std::vector<MetricInfo>& metric_catalogue();

// The catalogue's entry for `name`, or nullopt for a metric it does not know.
std::optional<MetricInfo> known_metric(const std::string& name);

// "higher", "lower", or "" for Unknown; and back (nullopt for anything else).
std::string better_text(Better better);
std::optional<Better> better_from_text(const std::string& text);

}  // namespace mt

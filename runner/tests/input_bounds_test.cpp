// Experiment files too large for the memory their YAML tree would take are refused before they are
// parsed; an axis with more values than the bound is refused naming the axis.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "experiment/experiment_loader.h"
#include "experiment/input_bounds.h"

using namespace mt;

namespace {

std::filesystem::path write_experiment(const std::string& name, std::size_t axis_values, std::size_t comment_bytes) {
  auto path = std::filesystem::temp_directory_path() / ("mt_bounds_" + name + ".yaml");
  std::ofstream out(path);
  out << "name: bounds\n";
  for (std::size_t written = 0; written < comment_bytes; written += 64) out << "#" << std::string(62, 'c') << "\n";
  out << "studies:\n  - name: s\n    workload: command\n    launch: direct\n    command: [echo, \"v: 1\"]\n"
      << "    metrics: {v: {regex: 'v: ([0-9]+)'}}\n    matrix:\n      x: [";
  for (std::size_t i = 0; i < axis_values; ++i) out << (i ? "," : "") << i;
  out << "]\n";
  return path;
}

std::string problems(const std::filesystem::path& path) {
  LoadResult r = load_experiment(path);
  std::filesystem::remove(path);
  return format_diagnostics(r.errors);
}

}  // namespace

TEST_CASE("an axis at the bound loads; one value more is refused naming the axis") {
  CHECK(problems(write_experiment("at_bound", kMaxAxisValues, 0)).empty());
  const std::string message = problems(write_experiment("over_bound", kMaxAxisValues + 1, 0));
  CHECK(message.find("axis 'x' has 10001 values; an axis takes at most 10000") != std::string::npos);
}

TEST_CASE("a file over the size bound is refused before it is parsed") {
  const std::string message = problems(write_experiment("large", 1, kMaxExperimentFileBytes + 1));
  CHECK(message.find("experiment files are at most 1 MiB") != std::string::npos);
  // Just under the bound (in comments): loads.
  CHECK(problems(write_experiment("under", 1, kMaxExperimentFileBytes - 4096)).empty());
}

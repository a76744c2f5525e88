#include "experiment_text.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>

namespace mt::testing {

LoadResult load_experiment_text(const std::string& yaml) {
  const auto file =
      std::filesystem::temp_directory_path() / ("mtrun_test_experiment_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file, std::ios::trunc) << yaml;
  return load_experiment(file);
}

std::string load_errors(const std::string& yaml) {
  std::string out;
  for (const auto& e : load_experiment_text(yaml).errors) out += e.message + "\n";
  return out;
}

std::string first_error(const LoadResult& result) { return result.errors.empty() ? "" : result.errors[0].message; }

Experiment experiment_from_text(const std::string& yaml) {
  LoadResult r = load_experiment_text(yaml);
  INFO(first_error(r));
  REQUIRE(r.experiment.has_value());
  REQUIRE(r.errors.empty());
  return *r.experiment;
}

}  // namespace mt::testing

#include <doctest/doctest.h>

#include "experiment/experiment_loader.h"

using namespace mt;

namespace {
std::string data(const std::string& name) { return std::string(MT_TEST_DATA_DIR) + "/" + name; }

// The full formatted message the user would see for a malformed file.
std::string errors_of(const std::string& name) {
  LoadResult r = load_experiment(data(name));
  REQUIRE_FALSE(r.experiment.has_value());
  return format_diagnostics(r.errors);
}
}  // namespace

TEST_CASE("a valid experiment loads with its studies, defaults and axes in file order") {
  LoadResult r = load_experiment(data("valid.yaml"));
  REQUIRE(r.errors.empty());
  const Experiment& e = *r.experiment;
  CHECK(e.name == "tiny");
  REQUIRE(e.studies.size() == 2);
  CHECK(e.studies[0].repeat == 2);
  CHECK(e.studies[0].timeout_s == 120);
  REQUIRE(e.studies[0].axes.size() == 2);
  CHECK(e.studies[0].axes[0].name == "ranks");
  CHECK(e.studies[0].axes[1].values[1].text == "last");
  CHECK(e.studies[0].defaults[1].name == "n_heads");
  CHECK(e.studies[1].repeat == 3);
  CHECK(e.studies[1].timeout_s == 30);
}

TEST_CASE("invalid YAML and missing files name the file") {
  std::string yaml = errors_of("bad_yaml.yaml");
  CHECK(yaml.rfind(data("bad_yaml.yaml") + ":", 0) == 0);
  CHECK(yaml.find("invalid YAML") != std::string::npos);
  CHECK(errors_of("does_not_exist.yaml") == data("does_not_exist.yaml") + ": experiment file not found");
}

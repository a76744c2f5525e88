#include <doctest/doctest.h>

#include "experiment_loader.h"

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

TEST_CASE("malformed experiments are reported with file, line, column, caret and a hint") {
  CHECK(errors_of("bad_strategy.yaml") ==
        data("bad_strategy.yaml") + ":6:23: unknown strategy 'fdsp' (did you mean 'fsdp'?)\n"
                                    "        strategy: [ddp, fdsp]\n"
                                    "                        ^");
  CHECK(errors_of("bad_key.yaml") == data("bad_key.yaml") + ":5:5: unknown key 'matrx' in study #1 (did you mean 'matrix'?)\n"
                                                            "      matrx:\n"
                                                            "      ^");
  CHECK(errors_of("bad_param.yaml") ==
        data("bad_param.yaml") + ":6:7: unknown parameter 'batch_sise' for workload 'train' (did you mean 'batch_size'?)\n"
                                 "        batch_sise: 4\n"
                                 "        ^");
  CHECK(errors_of("bad_type.yaml") == data("bad_type.yaml") + ":6:18: ranks must be an integer, got 'two'\n"
                                                              "        ranks: [1, two]\n"
                                                              "                   ^");
  CHECK(errors_of("empty_axis.yaml") == data("empty_axis.yaml") + ":6:14: axis 'ranks' has no values\n"
                                                                  "        ranks: []\n"
                                                                  "               ^");
  CHECK(errors_of("bad_workload.yaml") ==
        data("bad_workload.yaml") + ":4:15: unknown workload 'trian' (did you mean 'train'?)\n"
                                    "      workload: trian\n"
                                    "                ^");
}

TEST_CASE("invalid YAML and missing files name the file") {
  std::string yaml = errors_of("bad_yaml.yaml");
  CHECK(yaml.rfind(data("bad_yaml.yaml") + ":", 0) == 0);
  CHECK(yaml.find("invalid YAML") != std::string::npos);
  CHECK(errors_of("does_not_exist.yaml") == data("does_not_exist.yaml") + ": experiment file not found");
}

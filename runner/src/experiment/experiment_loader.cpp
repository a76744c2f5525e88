#include "experiment/experiment_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "experiment/input_bounds.h"
#include "experiment/measurement_loader.h"
#include "experiment/parallel_rules.h"
#include "experiment/question_loader.h"
#include "experiment/run_order.h"
#include "experiment/study_loader.h"
#include "experiment/yaml_documents.h"
#include "experiment/yaml_reader.h"

namespace mt {
namespace {

const std::vector<std::string> kTopKeys = {"name",  "description", "repeat",     "timeout_s", "launcher", "studies",
                                           "order", "seed",        "conditions", "questions", "parallel"};
const std::vector<std::string> kOrders = {kOrderInterleaved, kOrderShuffled};
const std::vector<std::string> kLauncherKeys = {
    "type", "mode", "args", "step_args", "hostfile", "threads_per_rank", "cpu_sets", "host_sets", "queue_timeout_s"};
const std::vector<std::string> kLaunchers = {"mpirun", "slurm", "local"};
const std::vector<std::string> kSlurmModes = {"srun", "sbatch"};

void read_launcher(YamlReader& r, const YAML::Node& node, const std::filesystem::path& dir, Experiment& exp) {
  if (!r.check_map(node, "launcher", kLauncherKeys)) return;
  if (node["type"]) {
    if (auto type = r.scalar(node["type"], "launcher type")) {
      if (std::find(kLaunchers.begin(), kLaunchers.end(), *type) == kLaunchers.end()) {
        r.error(pos_of(node["type"]), fmt::format("unknown launcher '{}'{}", *type, did_you_mean(*type, kLaunchers)));
      }
      exp.launcher.type = *type;
    }
  }
  if (node["mode"]) {
    if (auto mode = r.scalar(node["mode"], "launcher mode")) {
      if (exp.launcher.type != "slurm") {
        r.error(pos_of(node["mode"]),
                fmt::format("launcher mode applies only to launcher slurm, not '{}'", exp.launcher.type));
      } else if (std::find(kSlurmModes.begin(), kSlurmModes.end(), *mode) == kSlurmModes.end()) {
        std::string hint = did_you_mean(*mode, kSlurmModes);
        r.error(pos_of(node["mode"]),
                fmt::format("unknown launcher mode '{}'{}", *mode, hint.empty() ? " (srun or sbatch)" : hint));
      }
      exp.launcher.mode = *mode;
    }
  }
  if (node["args"]) exp.launcher.extra_args = r.string_list(node["args"], "launcher args");
  if (node["step_args"]) {
    exp.launcher.step_args = r.string_list(node["step_args"], "launcher step_args");
    if (exp.launcher.type != "slurm") {
      r.error(pos_of(node["step_args"]),
              fmt::format("step_args applies only to launcher slurm (its srun step); '{}' takes its arguments in args",
                          exp.launcher.type));
    }
  }
  if (node["threads_per_rank"]) {
    if (auto n = r.integer(node["threads_per_rank"], "threads_per_rank", 1)) exp.launcher.threads_per_rank = *n;
  }
  if (node["queue_timeout_s"]) {
    if (auto seconds = r.number(node["queue_timeout_s"], "queue_timeout_s", 1)) exp.launcher.queue_timeout_s = *seconds;
    if (exp.launcher.type != "slurm") {
      r.error(pos_of(node["queue_timeout_s"]),
              fmt::format("queue_timeout_s applies only to launcher slurm, whose jobs can wait in a queue; '{}' "
                          "starts a trial at once",
                          exp.launcher.type));
    }
  }
  if (node["hostfile"]) {
    if (auto h = r.scalar(node["hostfile"], "hostfile")) {
      std::filesystem::path p = dir / *h;
      if (!std::filesystem::exists(p)) {
        r.error(pos_of(node["hostfile"]), fmt::format("hostfile '{}' does not exist", p.string()));
      }
      exp.launcher.hostfile = p;
    }
  }
  if (node["cpu_sets"]) {
    exp.launcher.cpu_sets = r.string_list(node["cpu_sets"], "cpu_sets");
    if (exp.launcher.type != "mpirun" || !exp.launcher.hostfile.empty()) {
      r.error(pos_of(node["cpu_sets"]), "cpu_sets applies only to launcher mpirun on this machine (no hostfile)");
    } else if (std::string why = cpu_sets_problem(exp.launcher.cpu_sets); !why.empty()) {
      r.error(pos_of(node["cpu_sets"]), why);
    }
  }
  if (node["host_sets"]) {
    exp.launcher.host_sets = r.string_list(node["host_sets"], "host_sets");
    if (exp.launcher.type != "mpirun" || exp.launcher.hostfile.empty()) {
      r.error(pos_of(node["host_sets"]), "host_sets applies only to launcher mpirun with a hostfile");
    } else if (std::string why = host_sets_problem(exp.launcher.host_sets); !why.empty()) {
      r.error(pos_of(node["host_sets"]), why);
    }
  }
}

// `order: interleaved|shuffled` and the `seed` a shuffled order needs (and only it uses).
void read_order(YamlReader& r, const YAML::Node& root, Experiment& exp) {
  if (root["order"]) {
    if (auto order = r.scalar(root["order"], "order")) {
      if (std::find(kOrders.begin(), kOrders.end(), *order) == kOrders.end()) {
        std::string hint = did_you_mean(*order, kOrders);
        r.error(pos_of(root["order"]),
                fmt::format("unknown order '{}'{}", *order, hint.empty() ? " (interleaved or shuffled)" : hint));
      }
      exp.order = *order;
    }
  }
  if (root["seed"]) {
    if (auto seed = r.integer(root["seed"], "seed", 0)) exp.seed = std::uint64_t(*seed);
    if (exp.order != kOrderShuffled) {
      r.error(pos_of(root["seed"]), "seed applies only to order: shuffled");
    }
  } else if (root["order"] && exp.order == kOrderShuffled) {
    r.error(pos_of(root["order"]), "order: shuffled needs a 'seed' (an integer), so the order can be run again");
  }
}

// Reads the experiment into `exp`; `checkable[i]` says whether exp.studies[i] read without a
// problem that leaves it inconsistent.
void read_experiment(YamlReader& r, const YAML::Node& root, Experiment& exp, std::vector<bool>& checkable) {
  if (!r.check_map(root, "the experiment", kTopKeys)) return;
  if (!root["name"]) {
    r.error({1, 1}, "the experiment needs a 'name'");
  } else if (auto name = r.scalar(root["name"], "name")) {
    exp.name = *name;
    if (!is_valid_name(exp.name)) {
      r.error(pos_of(root["name"]),
              fmt::format("experiment name '{}' may use only letters, digits, '_', '.' and '-'", exp.name));
    }
  }
  if (root["description"]) exp.description = r.scalar(root["description"], "description").value_or("");
  StudyDefaults defaults;
  if (root["repeat"]) {
    if (auto policy = read_repeat(r, root["repeat"])) {
      defaults.repeat_policy = *policy;
      defaults.repeat = policy->min;
    }
  }
  if (root["conditions"]) read_conditions(r, root["conditions"], exp.conditions);
  if (root["timeout_s"]) defaults.timeout_s = r.number(root["timeout_s"], "timeout_s", 1).value_or(600);
  if (root["launcher"]) read_launcher(r, root["launcher"], exp.file.parent_path(), exp);
  read_order(r, root, exp);
  if (root["parallel"]) {
    if (auto n = r.integer(root["parallel"], "parallel", 1)) {
      exp.parallel = *n;
      if (std::string why = parallel_problem(exp.launcher, exp.parallel); !why.empty()) {
        r.error(pos_of(root["parallel"]), why);
      }
    }
  }
  const YAML::Node studies = root["studies"];
  if (!studies) {
    r.error({1, 1}, "the experiment needs 'studies': a list of studies, each with a name, a workload and a matrix");
    return;
  }
  if (!studies.IsSequence() || studies.size() == 0) {
    r.error(pos_of(studies), "'studies' must be a non-empty list");
    return;
  }
  std::set<std::string> names;
  std::vector<std::pair<YAML::Node, std::size_t>> study_questions;  // node, index into exp.studies
  for (size_t i = 0; i < studies.size(); ++i) {
    const std::size_t blocking_before = r.blocking_errors();
    auto study = read_study(r, studies[i], int(i), defaults);
    if (!study) continue;
    checkable.push_back(r.blocking_errors() == blocking_before);
    if (!study->name.empty() && !names.insert(study->name).second) {
      r.error(pos_of(studies[i]["name"]), fmt::format("study name '{}' is used twice", study->name));
    }
    if (studies[i]["questions"]) study_questions.emplace_back(studies[i]["questions"], exp.studies.size());
    exp.studies.push_back(std::move(*study));
  }
  // Questions last: they are checked against the studies' axes and values.
  if (root["questions"]) read_questions(r, root["questions"], exp, nullptr, exp.questions);
  for (const auto& [node, index] : study_questions) read_questions(r, node, exp, &exp.studies[index], exp.questions);
}

// Why `file` cannot be read as an experiment ("" when it can): missing, not a regular file (a
// directory, a pipe, a device: read once, or never ending, while a campaign reads its file again),
// or not readable, in the system's words.
std::string experiment_file_problem(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status)) return "experiment file not found";
  if (std::filesystem::is_directory(status)) return "is a directory, not an experiment file";
  if (!std::filesystem::is_regular_file(status)) {
    return "is not a regular file (a pipe or a device): save the experiment to a file and give that";
  }
  if (std::FILE* opened = std::fopen(file.c_str(), "rb")) {
    std::fclose(opened);
    return "";
  }
  return fmt::format("cannot be read: {}", std::strerror(errno));
}

}  // namespace

LoadResult load_experiment(const std::filesystem::path& file) {
  LoadResult result;
  YamlReader r(file.string());
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(file, ec);
  if (const std::string problem = experiment_file_problem(absolute); !problem.empty()) {
    r.error({}, problem);
    result.errors = r.errors();
    return result;
  }
  if (const auto bytes = std::filesystem::file_size(absolute, ec); !ec && bytes > kMaxExperimentFileBytes) {
    r.error({}, fmt::format("experiment file is {} bytes; experiment files are at most {} MiB ({} bytes; split "
                            "large axes into several studies or files)",
                            bytes, kMaxExperimentFileBytes / (1024 * 1024), kMaxExperimentFileBytes));
    result.errors = r.errors();
    return result;
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(absolute.string());
  } catch (const YAML::Exception& e) {
    r.error(pos_of(e.mark), fmt::format("invalid YAML: {}", e.msg));
    result.errors = r.errors();
    return result;
  }
  Experiment exp;
  exp.file = absolute;
  exp.file_as_given = file.string();
  std::vector<bool> checkable;
  if (root.IsNull()) {
    r.error({}, "experiment file is empty");
  } else if (const auto second = second_document(absolute.string())) {
    r.error(*second, second_document_problem());
  } else {
    read_experiment(r, root, exp, checkable);
  }
  result.errors = r.errors();
  if (result.errors.empty()) {
    result.experiment = std::move(exp);
  } else if (!root.IsNull()) {
    std::vector<Study> consistent;
    for (std::size_t i = 0; i < exp.studies.size(); ++i) {
      if (checkable[i]) consistent.push_back(std::move(exp.studies[i]));
    }
    exp.studies = std::move(consistent);
    result.checkable = std::move(exp);
  }
  return result;
}

}  // namespace mt

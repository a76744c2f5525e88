#include "experiment/restart_loader.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mt {
namespace {

const std::vector<std::string> kRestartKeys = {"max", "resume"};

// A workload a relaunch can resume: it saves checkpoints, resumes from one, and reports progress.
bool can_restart(const WorkloadSpec& workload) {
  return takes_text_flag(workload, kCheckpointDirParam) && takes_text_flag(workload, kResumeParam) &&
         takes_text_flag(workload, kProgressFileParam);
}

bool sets_param(const Stage& stage, const char* name) {
  return std::any_of(stage.params.begin(), stage.params.end(), [&](const Param& p) { return p.name == name; });
}

}  // namespace

std::optional<RestartPolicy> read_restart(YamlReader& r, const YAML::Node& node, const WorkloadSpec* workload) {
  if (!node.IsMap()) {
    r.error(pos_of(node),
            fmt::format("restart must be a mapping such as {{max: 3, resume: latest}}, got {}", kind_name(node)));
    return std::nullopt;
  }
  if (!r.check_map(node, "restart", kRestartKeys)) return std::nullopt;
  RestartPolicy policy;
  bool usable = true;
  if (!node["max"]) {
    r.error(pos_of(node), "restart needs 'max': how many times a job may be relaunched");
    usable = false;
  } else if (auto max = r.integer(node["max"], "restart max", 0)) {
    if (*max < 1 || *max > kMostRestarts) {
      r.error(pos_of(node["max"]),
              fmt::format("restart max must be 1 to {} (leave restart out for none), got {}", kMostRestarts, *max));
      usable = false;
    }
    policy.max = *max;
  } else {
    usable = false;
  }
  if (node["resume"]) {
    auto resume = r.scalar(node["resume"], "restart resume");
    if (resume && *resume != "latest") {
      r.error(pos_of(node["resume"]),
              fmt::format("restart resume must be 'latest' (the newest READY checkpoint), got '{}'", *resume));
      usable = false;
    }
  }
  if (workload && !can_restart(*workload)) {
    std::vector<std::string> able;
    for (const auto& w : workload_table()) {
      if (can_restart(w)) able.push_back(w.name);
    }
    r.error(pos_of(node),
            fmt::format("workload '{}' cannot be restarted: a relaunch resumes from checkpoints "
                        "(workloads that can: {})",
                        workload->name, able.empty() ? "none loaded" : fmt::format("{}", fmt::join(able, ", "))));
    usable = false;
  }
  if (!usable) return std::nullopt;
  return policy;
}

void check_restartable(YamlReader& r, const YAML::Node& node, const Study& study, bool study_sets_checkpoint_dir,
                       bool study_sets_progress_file) {
  if (study_sets_progress_file) {
    r.error(pos_of(node), fmt::format("study '{}' sets {} itself: under restart mtrun keeps each job's progress "
                                      "in its run directory; remove the parameter",
                                      study.name, kProgressFileParam));
  }
  if (study.stages.empty()) {
    if (!study_sets_checkpoint_dir) {
      r.error(pos_of(node), fmt::format("restart needs {}: a relaunch resumes from the newest READY checkpoint "
                                        "there; set it in defaults or the matrix (and save_every)",
                                        kCheckpointDirParam));
    }
    return;
  }
  for (const auto& spec : study.stages) {
    const Stage& stage = spec.stage;
    if (stage.workload != study.workload) continue;
    if (sets_param(stage, kProgressFileParam)) {
      r.error(spec.pos, fmt::format("stage '{}' sets {} itself: under restart mtrun keeps each job's progress; "
                                    "remove the parameter",
                                    stage.name, kProgressFileParam));
    }
    if (!study_sets_checkpoint_dir && !sets_param(stage, kCheckpointDirParam)) {
      r.error(spec.pos, fmt::format("stage '{}' runs {} without {}, but the study restarts its jobs from their "
                                    "checkpoints: set it in the stage's params or the study's",
                                    stage.name, study.workload, kCheckpointDirParam));
    }
  }
}

}  // namespace mt

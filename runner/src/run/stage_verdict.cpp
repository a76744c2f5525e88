#include "run/stage_verdict.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "checked_int.h"
#include "json_fields.h"
#include "run/checkpoint_scan.h"
#include "store/log_scan.h"

namespace mt {
namespace {

using json = nlohmann::json;

std::string steps_text(const std::vector<int>& steps) {
  return steps.empty() ? std::string("no READY step") : fmt::format("READY steps {}", fmt::join(steps, " "));
}

// "optimizer differs first at optimizer/exp_avg on rank 1", from verify's result.
std::string first_difference(const json& result) {
  for (const auto& [name, component] : object_field(result, "components").items()) {
    if (!component.is_object()) continue;
    // Only a component that says it does not match differs: anything else there is no claim.
    if (const auto match = component.find("match"); match == component.end() || *match != false) continue;
    const json& d = object_field(component, "first_difference");
    std::string where = text_field(d, "tensor");
    if (const auto rank = json_int(d.value("rank", json()))) where += fmt::format(" on rank {}", *rank);
    return where.empty() ? name + " differs" : fmt::format("{} differs first at {}", name, where);
  }
  return "";
}

bool output_has(const std::string& text, const AttemptOutcome& outcome, const std::filesystem::path& log_file) {
  if (outcome.error_reason && outcome.error_reason->find(text) != std::string::npos) return true;
  bool found = false;
  scan_log(log_file, [&](std::string_view line) {
    found = line.find(text) != std::string_view::npos;
    return !found;
  });
  return found;
}

class Judge {
 public:
  Judge(const StageExpectation& expect, const AttemptOutcome& outcome, const std::filesystem::path& log_file)
      : e_(expect), o_(outcome), log_file_(log_file) {
    if (o_.result_json) result_ = json::parse(*o_.result_json, nullptr, false);
    if (!result_.is_object()) result_ = json::object();
  }

  StageVerdict judge() {
    check_outcome();
    if (!e_.message_contains.empty()) {
      const bool has = output_has(e_.message_contains, o_, log_file_);
      observe(has, fmt::format("output {} \"{}\"", has ? "has" : "lacks", e_.message_contains),
              fmt::format("output has \"{}\"", e_.message_contains));
    }
    if (e_.restarts) {  // in the order StageExpectation::describe says them
      const int seen = o_.launches.empty() ? 0 : int(o_.launches.size()) - 1;
      observe(seen == *e_.restarts, restarts_text(seen), restarts_text(*e_.restarts));
    }
    if (e_.resumed_from_step) check_resume();
    if (e_.exact_match) check_exact_match();
    if (e_.checks_checkpoints()) check_checkpoints();
    StageVerdict v;
    v.met = mismatches_.empty();
    v.observed = fmt::format("{}", fmt::join(observed_, "; "));
    v.mismatch = fmt::format("{}", fmt::join(mismatches_, "; "));
    return v;
  }

 private:
  // One observed part; when it does not match, what was expected instead.
  void observe(bool ok, const std::string& seen, const std::string& wanted) {
    observed_.push_back(seen);
    if (!ok) mismatches_.push_back(fmt::format("expected {}, observed {}", wanted, seen));
  }

  void check_outcome() {
    const std::string state = to_string(o_.state);
    std::string seen = state;
    if (o_.error_rank) seen += fmt::format(" on rank {}", *o_.error_rank);
    const bool show_exit = o_.exit_code && (e_.exit_code || (*o_.exit_code != 0 && o_.state != AttemptState::Crashed));
    if (show_exit) seen += fmt::format(", exit {}", *o_.exit_code);
    if (o_.error_step) seen += fmt::format(" at step {}", *o_.error_step);
    if (o_.signal) seen += fmt::format(" (signal {})", *o_.signal);
    observed_.push_back(seen);
    std::vector<std::string> wrong;
    if (state != e_.outcome) wrong.push_back(e_.outcome);
    if (e_.rank && o_.error_rank != e_.rank) wrong.push_back(fmt::format("rank {}", *e_.rank));
    if (e_.exit_code && o_.exit_code != e_.exit_code) wrong.push_back(fmt::format("exit {}", *e_.exit_code));
    if (e_.step && o_.error_step != e_.step) wrong.push_back(fmt::format("step {}", *e_.step));
    if (wrong.empty()) return;
    std::string wanted = e_.outcome;
    if (e_.rank) wanted += fmt::format(" on rank {}", *e_.rank);
    if (e_.exit_code) wanted += fmt::format(", exit {}", *e_.exit_code);
    if (e_.step) wanted += fmt::format(" at step {}", *e_.step);
    mismatches_.push_back(fmt::format("expected {}, observed {}", wanted, seen));
  }

  void check_resume() {
    const json v = result_.value("resumed_from_step", json());
    const std::optional<int> step = json_int(v);
    std::string seen = step ? fmt::format("resumed from step {}", *step)
                       : v.is_null() && result_.contains("resumed_from_step") ? std::string("started fresh")
                       : v.is_null() ? std::string("no resumed_from_step in the result")
                                     : fmt::format("resumed_from_step {:.40} is no step", v.dump());
    observe(step == e_.resumed_from_step, seen, fmt::format("resumed from step {}", *e_.resumed_from_step));
  }

  void check_exact_match() {
    const json v = result_.value("exact_match", json());
    std::string seen;
    if (!v.is_boolean()) {
      seen = "no exact_match in the result";
    } else if (v.get<bool>()) {
      seen = "exact match";
    } else {
      seen = "not an exact match";
      if (std::string d = first_difference(result_); !d.empty()) seen += " (" + d + ")";
    }
    observe(v.is_boolean() && v.get<bool>() == *e_.exact_match, seen,
            *e_.exact_match ? "exact match" : "not an exact match");
  }

  void check_checkpoints() {
    const CheckpointScan scan = scan_checkpoints(e_.checkpoint_dir);
    if (e_.ready_steps)
      observe(scan.ready_steps == *e_.ready_steps, steps_text(scan.ready_steps), steps_text(*e_.ready_steps));
    for (int step : e_.no_ready_steps) {
      const bool ready = std::find(scan.ready_steps.begin(), scan.ready_steps.end(), step) != scan.ready_steps.end();
      observe(!ready, fmt::format("step {} {}", step, ready ? "READY" : "not READY"),
              fmt::format("step {} not READY", step));
    }
    if (e_.latest_step) {
      observe(scan.latest_step == e_.latest_step,
              scan.latest_step ? fmt::format("latest {}", *scan.latest_step) : std::string("no latest"),
              fmt::format("latest {}", *e_.latest_step));
    }
  }

  const StageExpectation& e_;
  const AttemptOutcome& o_;
  const std::filesystem::path& log_file_;
  json result_;
  std::vector<std::string> observed_, mismatches_;
};

}  // namespace

StageVerdict judge_stage(const StageExpectation& expect, const AttemptOutcome& outcome,
                         const std::filesystem::path& log_file) {
  return Judge(expect, outcome, log_file).judge();
}

std::string chain_failure_reason(std::size_t index, const Stage& stage, const StageVerdict& verdict) {
  return fmt::format("stage {} '{}': {}", index + 1, stage.name, verdict.mismatch);
}

}  // namespace mt

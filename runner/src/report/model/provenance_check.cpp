#include "report/model/provenance_check.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"
#include "report/model/provenance_facts.h"

namespace mt {
namespace {

const std::set<std::string> kProgramFields = {"program", "program_hash", "script", "script_hash"};

// Keys sorted, so the same stack always reads (and compares) the same. How a trial was launched
// (threads, environment values) and the program's own hash are not part of its software stack.
std::string stack_text(const nlohmann::json& stack, const std::set<std::string>& skip) {
  if (!stack.is_object()) return "";
  std::map<std::string, std::string> sorted;
  for (const auto& [key, value] : stack.items()) {
    if (skip.count(key) || kProgramFields.count(key) || is_per_launch_field(key)) continue;
    // Where vendor, version and core are fields of their own, the one-line BLAS text adds nothing
    // (engines of one generation also put each launch's measured speed in it).
    if (key == "blas" && stack.contains("blas_vendor")) continue;
    sorted[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  std::string out;
  for (const auto& [key, value] : sorted) out += fmt::format("{}{}={}", out.empty() ? "" : "; ", key, value);
  return out;
}

bool mentions(const std::vector<std::string>& fields, const std::string& word) {
  for (const auto& f : fields) {
    if (f.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string string_field(const nlohmann::ordered_json& stack, const char* key) {
  auto it = stack.find(key);
  return it != stack.end() && it->is_string() ? it->get<std::string>() : "";
}

// The program a recorded trial ran. A command workload's record names its own program; records
// made before programs were told apart hold only the engine's hash, which says nothing about it.
void program_from_row(const ReportTrial& trial, const ProvenanceRow& row, TrialProvenance& p) {
  if (trial.workload != "command") {
    p.program = "mtengine";
    p.program_hash = row.engine_binary_hash;
    return;
  }
  p.program = string_field(row.software_stack, "program");
  p.program_hash = string_field(row.software_stack, "program_hash");
  p.script = string_field(row.software_stack, "script");
  p.script_hash = string_field(row.software_stack, "script_hash");
  if (p.program.empty() || p.program_hash.empty()) {
    p.missing.push_back("program_hash (the command's own program was not hashed)");
  }
}

TrialProvenance from_row(const ReportTrial& trial, const ProvenanceRow& row) {
  TrialProvenance p;
  p.recorded = true;
  p.commit = row.build_revision.empty() ? row.source_commit : row.build_revision;
  p.revision = p.commit;
  bool dirty = row.tree_dirty.value_or(false);
  if (!row.build_revision.empty() && row.build_tree_dirty) {
    // The build's own state, recorded apart from the experiment's: the revision names the build.
    if (*row.build_tree_dirty) p.revision += "+dirty";
  } else if (dirty && !p.revision.empty()) {
    p.revision += row.diff_hash.empty() ? "+dirty" : "+dirty(" + row.diff_hash.substr(0, 12) + ")";
  }
  p.image_ref = row.image_ref;
  p.base_image = row.base_image;
  if (!row.image_id.empty()) {
    p.image = row.image_id;
  } else if (!row.image_ref.empty()) {
    p.image = row.image_ref;
  } else if (row.bare_metal) {
    p.image = "bare metal";
  }
  p.software_stack = stack_text(row.software_stack, {});
  p.missing = row.missing_fields;
  program_from_row(trial, row, p);
  p.commit_names_code = !(trial.workload == "command" && !p.program_hash.empty());
  // The capture decides what is required; these rules (docs/provenance.md) are checked here as
  // well, so a report never calls an uncommitted experiment, or an unidentified program, complete.
  if (dirty && !mentions(p.missing, "dirty") && !mentions(p.missing, "clean_tree") &&
      !mentions(p.missing, "clean tree (uncommitted")) {
    p.missing.push_back("clean tree (uncommitted changes)");
  }
  // Whether the build had to match the source commit depended on which repository each came from,
  // which only the capture knew: its missing list says.
  if (!row.complete && p.missing.empty()) p.missing.push_back("marked incomplete");
  p.complete = row.complete && p.missing.empty();
  return p;
}

TrialProvenance from_environment(const ReportTrial& trial) {
  TrialProvenance p;
  p.missing.push_back("provenance record (only the result's environment is known)");
  const nlohmann::json* env = nullptr;
  if (trial.result.is_object() && trial.result.contains("environment")) env = &trial.result["environment"];
  if (env && env->is_object()) {
    auto revision = env->find("build_revision");
    if (revision != env->end() && revision->is_string()) p.commit = revision->get<std::string>();
    p.revision = p.commit;
    auto dirty = env->find("build_tree_dirty");
    if (dirty != env->end() && dirty->is_boolean() && dirty->get<bool>() && !p.revision.empty()) {
      p.revision += "+dirty";
      p.missing.push_back("clean tree (engine built from uncommitted changes)");
    }
    p.software_stack = stack_text(*env, {"build_revision", "build_tree_dirty"});
  }
  if (trial.workload != "command") p.program = "mtengine";
  return p;
}

std::string join_counts(const std::map<std::string, int>& counts) {
  std::string out;
  for (const auto& [value, n] : counts) {
    out += fmt::format("{}{} in {} trial{}", out.empty() ? "" : ", ", value, n, n == 1 ? "" : "s");
  }
  return out;
}

std::string short_hash(const std::string& hash) { return hash.substr(0, std::min<size_t>(hash.size(), 20)); }

std::string plural(size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

std::string mixed_description(const ProvenanceAnalysis& a) {
  std::string what;
  if (a.revisions.size() > 1)
    what += fmt::format("{} ({})", plural(a.revisions.size(), "revision"), join_counts(a.revisions));
  if (a.images.size() > 1) {
    what +=
        fmt::format("{}{} ({})", what.empty() ? "" : " and ", plural(a.images.size(), "image"), join_counts(a.images));
  }
  for (const auto& [program, builds] : a.builds) {
    if (builds.size() < 2) continue;
    what += fmt::format("{}{} of {} ({})", what.empty() ? "" : " and ", plural(builds.size(), "build"), program,
                        join_counts(builds));
  }
  return what;
}

TrialProvenance trial_provenance(const ReportTrial& trial) {
  return trial.provenance ? from_row(trial, *trial.provenance) : from_environment(trial);
}

bool ProvenanceAnalysis::mixed() const {
  if (revisions.size() > 1 || images.size() > 1) return true;
  for (const auto& [program, known] : builds) {
    if (known.size() > 1) return true;
  }
  return false;
}

std::string program_cell(const TrialProvenance& p) {
  if (p.program.empty()) return kNotRecorded;
  // In a container the image ID identifies the engine; on bare metal only its hash does.
  const bool in_image = !p.image.empty() && p.image != "bare metal";
  auto file = [&](const std::string& path, const std::string& hash) {
    std::string name = path == "mtengine" ? path : code(std::filesystem::path(path).filename().string());
    if (!hash.empty()) return name + " " + code(short_hash(hash));
    return name + (in_image ? " (in the image)" : " (not hashed)");
  };
  std::string out = file(p.program, p.program_hash);
  if (!p.script.empty()) out += " + " + file(p.script, p.script_hash);
  return out;
}

std::string describe_trial(const ReportTrial& t) {
  std::string what =
      t.strategy.empty() ? fmt::format("{} ×{}", t.workload, t.ranks) : fmt::format("{} ×{}", t.strategy, t.ranks);
  std::string config = trial_config(t);
  return fmt::format("{} {} {}{}{}, repeat {}", code(short_id(t.identity)), t.study, what, config.empty() ? "" : " ",
                     config, t.repeat_index);
}

std::string ProvenanceAnalysis::stacks_of(const Group& group) const {
  std::set<std::string> ids;
  for (const ReportTrial* t : group.succeeded) ids.insert(stack_of.at(t));
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : "+") + id;
  return out;
}

bool ProvenanceAnalysis::group_mixed(const Group& group) const {
  std::set<std::string> revs, imgs;
  for (const ReportTrial* t : group.succeeded) {
    for (const auto& s : stacks) {
      if (s.id != stack_of.at(t)) continue;
      if (!s.provenance.commit.empty()) revs.insert(s.provenance.commit);
      if (!s.provenance.image.empty()) imgs.insert(s.provenance.image);
    }
  }
  return revs.size() > 1 || imgs.size() > 1;
}

std::string ProvenanceAnalysis::stack_cell(const Group& group) const {
  return stacks_of(group) + (group_mixed(group) ? " mixed" : "");
}

ProvenanceAnalysis analyse_provenance(const std::vector<ReportTrial>& trials) {
  ProvenanceAnalysis a;
  for (const auto& t : trials) {
    if (!t.succeeded()) continue;
    ++a.included;
    TrialProvenance p = trial_provenance(t);
    if (!p.complete) a.incomplete.emplace_back(&t, p);
    // "unknown": the experiment was in no repository; no commit to tell results apart by.
    if (p.commit_names_code && !p.commit.empty() && p.commit != "unknown") ++a.revisions[p.commit];
    if (!p.image.empty()) ++a.images[p.image];
    if (!p.program.empty() && !p.program_hash.empty()) ++a.builds[p.program_name()][p.build()];
    Stack* stack = nullptr;
    for (auto& s : a.stacks) {
      if (s.provenance.recorded == p.recorded && s.provenance.revision == p.revision && s.provenance.image == p.image &&
          s.provenance.program_name() == p.program_name() && s.provenance.build() == p.build() &&
          s.provenance.software_stack == p.software_stack) {
        stack = &s;
      }
    }
    if (!stack) {
      a.stacks.push_back({fmt::format("S{}", a.stacks.size() + 1), p, 0, 0, {}});
      stack = &a.stacks.back();
    }
    ++stack->trials;
    if (p.complete) ++stack->complete;
    stack->members.push_back(&t);
    a.stack_of[&t] = stack->id;
  }
  return a;
}

std::string render_provenance_warnings(const ProvenanceAnalysis& a) {
  std::string out;
  if (!a.incomplete.empty()) {
    out += fmt::format(
        "> ⚠ **Warning.** **Incomplete provenance in {} of {} trials.** Their numbers cannot be traced to an "
        "exact, committed build:\n>\n",
        a.incomplete.size(), a.included);
    std::vector<std::vector<std::string>> missing;
    for (const auto& [trial, p] : a.incomplete) missing.push_back(p.missing);
    for (const auto& fact : missing_facts(missing)) out += "> " + fact_line(fact, a.included) + "\n";
    // Trials that lack the same facts are listed together, once.
    std::vector<std::pair<std::string, std::vector<std::string>>> by_lack;
    for (const auto& [trial, p] : a.incomplete) {
      std::string lacks;
      for (const auto& m : p.missing) lacks += (lacks.empty() ? "" : ", ") + m;
      auto it = std::find_if(by_lack.begin(), by_lack.end(), [&](const auto& entry) { return entry.first == lacks; });
      if (it == by_lack.end()) it = by_lack.insert(by_lack.end(), {lacks, {}});
      it->second.push_back(describe_trial(*trial));
    }
    out += fmt::format("\n<details><summary>The {} with incomplete provenance, grouped by what they lack</summary>\n\n",
                       plural(a.incomplete.size(), "trial"));
    for (const auto& [lacks, trials] : by_lack) {
      std::string list;
      for (const auto& t : trials) list += (list.empty() ? "" : "; ") + t;
      out += fmt::format("- missing {} ({}): {}\n", lacks, plural(trials.size(), "trial"), list);
    }
    out += "\n</details>\n\n";
  }
  if (a.mixed()) {
    out += fmt::format(
        "> ⚠ **Warning.** **Mixed provenance: these results come from {}.** They are shown together only "
        "because of `--allow-mixed`; the `stack` column of each table says where every row comes from (see "
        "[Environment and provenance](#environment-and-provenance)).\n\n",
        mixed_description(a));
  }
  return out;
}

std::string mixed_refusal_message(const ProvenanceAnalysis& a) {
  return fmt::format(
      "refusing to put results from {} in one comparison; report one campaign (--campaign ID), or pass "
      "--allow-mixed to report them together (the tables then say which rows come from where)",
      mixed_description(a));
}

}  // namespace mt

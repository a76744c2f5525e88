#include "report/sections/environment_section.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"

namespace mt {
namespace {

// One row of the machine table: a label and the environment fields it joins, each with how it reads.
struct FieldPart {
  const char* key;
  const char* format;  // "{}" or "family {}"
};
struct MachineRow {
  const char* label;
  std::vector<FieldPart> parts;
};

const std::vector<MachineRow>& machine_rows() {
  static const std::vector<MachineRow> rows = {
      {"CPU", {{"cpu_model", "{}"}}},
      {"CPU vendor, family, model, stepping",
       {{"cpu_vendor", "{}"},
        {"cpu_family", "family {}"},
        {"cpu_model_number", "model {}"},
        {"cpu_stepping", "stepping {}"}}},
      {"logical CPUs", {{"cpu_cores", "{}"}, {"threads_per_core", "{} threads per core"}}},
      {"memory", {{"memory_mib", "{} MiB"}}},
      {"instruction sets", {{"cpu_isa", "{}"}}},
      {"BLAS", {{"blas", "{}"}}},
      {"BLAS vendor, version, core", {{"blas_vendor", "{}"}, {"blas_version", "{}"}, {"blas_core", "core {}"}}},
      {"flush-to-zero (denormals)", {{"flush_denormal", "{}"}}},
      {"SIMD kernels", {{"simd_kernels", "{}"}}},
      {"LibTorch", {{"libtorch", "{}"}}},
      {"Python, torch", {{"python", "Python {}"}, {"torch", "torch {}"}}},
      {"MPI", {{"mpi", "{}"}}},
      {"compiler", {{"compiler", "{}"}}},
      {"OS, kernel", {{"os", "{}"}, {"kernel", "{}"}}},
  };
  return rows;
}

// Fields shown elsewhere: the build (revision column), the program (program column), and how each
// configuration was launched (the measurement conditions).
bool shown_elsewhere(const std::string& key) {
  static const std::set<std::string> keys = {"build_revision", "build_tree_dirty", "program",
                                             "program_hash",   "script",           "script_hash"};
  return keys.count(key) || is_per_launch_field(key);
}

std::string machine_cell(const nlohmann::json& env, const MachineRow& row) {
  std::string out;
  for (const auto& part : row.parts) {
    std::string text = environment_text(env, part.key);
    if (!text.empty()) out += (out.empty() ? "" : ", ") + fmt::format(fmt::runtime(part.format), text);
  }
  return out.empty() ? kNotRecorded : out;
}

// Fields no row names (GPU fields, a peer's extras), "key=value; …".
std::string other_fields(const nlohmann::json& env) {
  std::set<std::string> named;
  for (const auto& row : machine_rows()) {
    for (const auto& part : row.parts) named.insert(part.key);
  }
  std::map<std::string, std::string> rest;
  for (const auto& [key, value] : env.items()) {
    if (!named.count(key) && !shown_elsewhere(key)) rest[key] = environment_text(env, key);
  }
  std::string out;
  for (const auto& [key, value] : rest) out += fmt::format("{}{}={}", out.empty() ? "" : "; ", key, value);
  return out;
}

std::string studies_of(const Stack& s) {
  std::vector<std::string> order;
  for (const ReportTrial* t : s.members) {
    if (std::find(order.begin(), order.end(), t->study) == order.end()) order.push_back(t->study);
  }
  std::string out;
  for (const auto& study : order) out += (out.empty() ? "" : ", ") + study;
  return out;
}

// The image ID, with the name it was run by and its base image, by digest, where known.
std::string image_cell(const TrialProvenance& p) {
  if (p.image.empty()) return "unknown";
  if (p.image == "bare metal") return p.image;
  std::string cell = code(p.image);
  if (!p.image_ref.empty() && p.image_ref != p.image) cell += " (" + code(p.image_ref) + ")";
  if (!p.base_image.empty()) cell += " on " + code(p.base_image);
  return cell;
}

std::string stacks_table(const ProvenanceAnalysis& a) {
  MarkdownTable table({{"stack"},
                       {"studies"},
                       {"revision"},
                       {"image"},
                       {"program"},
                       {"provenance"},
                       {"trials", Align::Right},
                       {"complete", Align::Right}});
  for (const auto& s : a.stacks) {
    const auto& p = s.provenance;
    table.add_row({s.id, studies_of(s), p.revision.empty() ? "unknown" : code(p.revision), image_cell(p),
                   program_cell(p), p.recorded ? "recorded" : "result environment only", std::to_string(s.trials),
                   std::to_string(s.complete)});
  }
  return table.render();
}

std::string machine_table(const ProvenanceAnalysis& a) {
  std::vector<Column> columns = {{""}};
  std::vector<nlohmann::json> envs;
  for (const auto& s : a.stacks) {
    columns.push_back({s.id});
    // Every field any of the stack's trials reports (they agree on all that make a stack).
    nlohmann::json merged = nlohmann::json::object();
    for (const ReportTrial* t : s.members) merged.merge_patch(trial_environment(*t));
    envs.push_back(std::move(merged));
  }
  MarkdownTable table(columns);
  for (const auto& row : machine_rows()) {
    std::vector<std::string> cells = {row.label};
    for (const auto& env : envs) cells.push_back(machine_cell(env, row));
    table.add_row(std::move(cells));
  }
  std::vector<std::string> others = {"other fields"};
  bool any_other = false;
  for (const auto& env : envs) {
    others.push_back(other_fields(env));
    any_other = any_other || !others.back().empty();
  }
  if (any_other) table.add_row(std::move(others));
  return table.render();
}

// Whether an mpirun command forwards a variable by name only (`-x NAME`): older records did, and
// then the command alone does not say what the job ran with.
bool forwards_names_only(const std::string& command) {
  std::istringstream words(command);
  for (std::string w, previous; words >> w; previous = w) {
    if (previous == "-x" && w.find('=') == std::string::npos) return true;
  }
  return false;
}

// One recorded command per study: the first trial's, as it was launched.
std::string commands(const ProvenanceAnalysis& a) {
  std::vector<std::pair<std::string, std::string>> by_study;
  for (const auto& s : a.stacks) {
    for (const ReportTrial* t : s.members) {
      bool seen = false;
      for (const auto& [study, command] : by_study) seen = seen || study == t->study;
      if (!seen && !t->command.empty()) by_study.emplace_back(t->study, t->command);
    }
  }
  std::string out;
  bool names_only = false;
  for (const auto& [study, command] : by_study) {
    out += fmt::format("- {}:\n\n  ```\n  {}\n  ```\n\n", study, command);
    names_only = names_only || forwards_names_only(command);
  }
  if (names_only) {
    out +=
        "These records name the variables mpirun forwarded (`-x NAME`) without their values; the values "
        "a program reported are under environment values per configuration.\n\n";
  }
  return out;
}

}  // namespace

std::string render_environment_section(const ProvenanceAnalysis& a, bool has_conditions) {
  std::string out = "## Environment and provenance\n\n";
  if (a.stacks.empty()) return out + "No succeeded trials, so no environment to show.\n\n";
  out += stacks_table(a);
  out +=
      "\nA trial's provenance is complete when every required field was captured, its source tree was clean, "
      "the engine was built from that commit and the program that ran is identified by its content (the "
      "rules: `docs/provenance.md`). Trials without a provenance record are described by the environment "
      "their result reports.\n\n";
  out += "What decides CPU numbers, per stack (" + std::string(kNotRecorded) +
         ": the program that ran did not report it).";
  if (has_conditions) {
    out +=
        " Threads per rank, environment values and the BLAS probe are per configuration, under "
        "[Measurement conditions](#measurement-conditions).";
  }
  out += "\n\n";
  out += machine_table(a) + "\n";
  std::string recorded = commands(a);
  if (!recorded.empty())
    out += "The command each study was launched with, as recorded (its first trial):\n\n" + recorded;
  return out;
}

}  // namespace mt

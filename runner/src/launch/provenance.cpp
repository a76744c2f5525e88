#include "launch/provenance.h"

#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "launch/trial_command.h"

namespace mt {
namespace {

using json = nlohmann::json;

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool known(const std::string& s) { return !s.empty() && s != "unknown"; }

// Software-stack entries every engine trial needs; GPU runs (backend nccl) need the GPU ones too.
// Any other program reports what it can; the machine it ran on is the least it must say.
const std::vector<std::string> kEngineStackFields = {"libtorch", "mpi", "compiler", "os", "kernel", "cpu_model"};
const std::vector<std::string> kCommandStackFields = {"os", "kernel", "cpu_model"};
const std::vector<std::string> kGpuStackFields = {"cuda", "nccl", "gpu_model", "driver"};

bool is_engine(const ProvenanceContext& context, const ProgramIdentity& program) {
  return !context.engine.empty() && program.program == context.engine.lexically_normal().string();
}

// A Python program must say which Python ran it: the interpreter decides what its libraries are.
bool is_python(const ProgramIdentity& program) {
  return std::filesystem::path(program.program).filename().string().rfind("python", 0) == 0;
}

}  // namespace

ProvenanceContext capture_provenance_context(const std::filesystem::path& experiment_dir,
                                             const std::filesystem::path& engine) {
  ProvenanceContext c;
  c.source = inspect_source(experiment_dir);
  c.image_ref = env_or_empty("MT_IMAGE_REF");
  c.image_id = env_or_empty("MT_IMAGE_ID");
  c.base_image = env_or_empty("MT_BASE_IMAGE");
  std::stringstream overrides(env_or_empty("MT_PROVENANCE_INCOMPLETE"));
  for (std::string reason; std::getline(overrides, reason, ',');)
    if (!reason.empty()) c.overrides.push_back(reason);
  c.engine = engine;
  if (c.bare_metal()) c.engine_binary_hash = file_hash(engine);
  return c;
}

ProgramIdentity trial_program(const ProvenanceContext& context, const std::vector<std::string>& program_argv,
                              const std::filesystem::path& working_dir) {
  if (!program_argv.empty() && !context.engine.empty() &&
      std::filesystem::path(program_argv[0]).lexically_normal() == context.engine.lexically_normal()) {
    return {context.engine.lexically_normal().string(), context.engine_binary_hash, "", ""};
  }
  return identify_program(program_argv, working_dir);
}

Provenance assemble_provenance(const ProvenanceContext& context, const std::optional<std::string>& result_json,
                               const LaunchCommand& command, const ProgramIdentity& program) {
  Provenance p;
  p.context = context;
  p.command = command_line(command);
  const bool engine = is_engine(context, program);
  json result = result_json ? json::parse(*result_json, nullptr, false) : json();
  json stack = json::object();
  json hosts = json::array();
  if (result.is_object()) {
    if (result.contains("environment") && result["environment"].is_object()) {
      const json& env = result["environment"];
      for (const auto& [key, value] : env.items()) {
        if (key == "build_revision" && value.is_string()) p.build_revision = value.get<std::string>();
        else if (key == "build_tree_dirty") p.build_tree_dirty = value.is_boolean() && value.get<bool>();
        else stack[key] = value;
      }
    }
    if (result.contains("hosts") && result["hosts"].is_array()) hosts = result["hosts"];
  }
  if (!engine) {
    // mtengine did not run: its hash says nothing about these numbers; the program's own does.
    p.context.engine_binary_hash.clear();
    stack["program"] = program.program;
    stack["program_hash"] = program.program_hash;
    if (!program.script.empty()) {
      stack["script"] = program.script;
      stack["script_hash"] = program.script_hash;
    }
  }
  p.software_stack = stack.dump();
  p.hosts = hosts.dump();

  // Two separate facts: the experiment's own source (known and committed) and the build of the
  // program it drove (its revision known, built from a clean tree).
  auto& missing = p.missing_fields;
  const SourceState& source = context.source;
  if (!known(source.commit)) missing.push_back("source_commit");
  if (source.dirty) missing.push_back("clean_tree");
  // The engine must say which commit it was built from; another program only when it reports one.
  // Built from a commit of the experiment's own repository, it must be built from the experiment's
  // commit; built from another repository (a user's experiments driving a release of the engine),
  // its revision and a clean build identify it.
  if (engine && !known(p.build_revision)) {
    missing.push_back("build_revision");
  } else if (known(p.build_revision) && known(source.commit) && p.build_revision != source.commit &&
             repository_has_commit(source, p.build_revision)) {
    missing.push_back("build_revision_matches_source");
  }
  // Built from that commit plus uncommitted changes: the revision no longer names the code.
  if (p.build_tree_dirty.value_or(false)) missing.push_back("clean_build");
  if (context.bare_metal()) {
    if (engine && context.engine_binary_hash.empty()) missing.push_back("engine_binary_hash");
    if (!engine && program.program_hash.empty()) missing.push_back("program_hash");
    if (!engine && !program.script.empty() && program.script_hash.empty()) missing.push_back("script_hash");
  } else {
    if (context.image_ref.empty()) missing.push_back("image_ref");
    if (context.image_id.empty()) missing.push_back("image_id");
    if (context.base_image.empty()) missing.push_back("base_image");
  }
  for (const auto& reason : context.overrides) missing.push_back("override:" + reason);
  auto require_stack = [&](const std::vector<std::string>& fields) {
    for (const auto& f : fields) {
      if (!stack.contains(f) || !stack[f].is_string() || !known(stack[f].get<std::string>())) {
        missing.push_back("software_stack." + f);
      }
    }
  };
  require_stack(engine ? kEngineStackFields : kCommandStackFields);
  if (!engine && is_python(program)) require_stack({"python"});
  if (result.is_object() && result.value("backend", "") == "nccl") require_stack(kGpuStackFields);
  if (hosts.empty()) missing.push_back("hosts");
  if (command.argv.empty()) missing.push_back("command");
  p.complete = missing.empty();
  return p;
}

}  // namespace mt

#include "launch/provenance.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "experiment/identity.h"

namespace mt {
namespace {

using json = nlohmann::json;

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool known(const std::string& s) { return !s.empty() && s != "unknown"; }

// Software-stack entries every trial needs; GPU runs (backend nccl) need the GPU ones too.
const std::vector<std::string> kStackFields = {"libtorch", "mpi", "compiler", "os", "kernel", "cpu_model"};
const std::vector<std::string> kGpuStackFields = {"cuda", "nccl", "gpu_model", "driver"};

}  // namespace

std::string file_hash(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  std::stringstream bytes;
  bytes << in.rdbuf();
  return "fnv1a64:" + content_hash(bytes.str());
}

ProvenanceContext capture_provenance_context(const std::filesystem::path& experiment_dir,
                                             const std::filesystem::path& engine) {
  ProvenanceContext c;
  c.source = inspect_source(experiment_dir);
  c.image_ref = env_or_empty("MT_IMAGE_REF");
  c.image_id = env_or_empty("MT_IMAGE_ID");
  c.base_image = env_or_empty("MT_BASE_IMAGE");
  if (c.bare_metal()) c.engine_binary_hash = file_hash(engine);
  return c;
}

Provenance assemble_provenance(const ProvenanceContext& context, const std::optional<std::string>& result_json,
                               const std::string& command) {
  Provenance p;
  p.context = context;
  p.command = command;
  json result = result_json ? json::parse(*result_json, nullptr, false) : json();
  json stack = json::object();
  json hosts = json::array();
  if (result.is_object()) {
    if (result.contains("environment") && result["environment"].is_object()) {
      const json& env = result["environment"];
      for (const auto& [key, value] : env.items()) {
        if (key == "build_revision" && value.is_string()) p.build_revision = value.get<std::string>();
        else if (key != "build_tree_dirty") stack[key] = value;
      }
    }
    if (result.contains("hosts") && result["hosts"].is_array()) hosts = result["hosts"];
  }
  p.software_stack = stack.dump();
  p.hosts = hosts.dump();

  auto& missing = p.missing_fields;
  if (!known(context.source.commit)) missing.push_back("source_commit");
  if (context.source.dirty) missing.push_back("clean_tree");
  if (!known(p.build_revision)) {
    missing.push_back("build_revision");
  } else if (known(context.source.commit) && p.build_revision != context.source.commit) {
    missing.push_back("build_revision_matches_source");
  }
  if (context.bare_metal()) {
    if (context.engine_binary_hash.empty()) missing.push_back("engine_binary_hash");
  } else {
    if (context.image_ref.empty()) missing.push_back("image_ref");
    if (context.image_id.empty()) missing.push_back("image_id");
  }
  auto require_stack = [&](const std::vector<std::string>& fields) {
    for (const auto& f : fields) {
      if (!stack.contains(f) || !stack[f].is_string() || !known(stack[f].get<std::string>())) {
        missing.push_back("software_stack." + f);
      }
    }
  };
  require_stack(kStackFields);
  if (result.is_object() && result.value("backend", "") == "nccl") require_stack(kGpuStackFields);
  if (hosts.empty()) missing.push_back("hosts");
  if (command.empty()) missing.push_back("command");
  p.complete = missing.empty();
  return p;
}

}  // namespace mt

#pragma once
// Where a trial's numbers came from (DESIGN.md §5): source, build, container or bare metal,
// software stack, hosts and command — and whether that record is complete enough to trust.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "launch/source_state.h"

namespace mt {

// Captured once per campaign run: what does not change from trial to trial.
struct ProvenanceContext {
  SourceState source;
  std::string image_ref;   // from MT_IMAGE_REF, set by the docker wrapper
  std::string image_id;    // from MT_IMAGE_ID
  std::string base_image;  // from MT_BASE_IMAGE
  std::string engine_binary_hash;
  bool bare_metal() const { return image_ref.empty() && image_id.empty(); }
};

ProvenanceContext capture_provenance_context(const std::filesystem::path& experiment_dir,
                                             const std::filesystem::path& engine);

struct Provenance {
  ProvenanceContext context;
  std::string build_revision;
  std::string software_stack;  // JSON object
  std::string hosts;           // JSON array
  std::string command;
  bool complete = false;
  std::vector<std::string> missing_fields;
};

// Combines the campaign's context with what the engine reported in its result JSON (if any).
Provenance assemble_provenance(const ProvenanceContext& context, const std::optional<std::string>& result_json,
                               const std::string& command);

// A content hash of a file's bytes, "fnv1a64:<hex>"; empty if it cannot be read.
std::string file_hash(const std::filesystem::path& file);

}  // namespace mt

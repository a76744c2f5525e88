#pragma once
// Where a trial's numbers came from (docs/provenance.md): source, build, container or bare metal,
// the program that ran, software stack, hosts and command — and whether that record is complete
// enough to trust.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "launch/launcher.h"
#include "launch/program_identity.h"
#include "launch/source_state.h"

namespace mt {

// Captured once per campaign run: what does not change from trial to trial.
struct ProvenanceContext {
  SourceState source;
  std::string image_ref;   // from MT_IMAGE_REF, set by the docker wrapper
  std::string image_id;    // from MT_IMAGE_ID
  std::string base_image;  // from MT_BASE_IMAGE
  // From MT_PROVENANCE_INCOMPLETE (comma-separated): what the docker wrapper was told to overlook,
  // e.g. "dirty_tree,image_revision_mismatch". Each makes the provenance incomplete.
  std::vector<std::string> overrides;
  std::filesystem::path engine;
  std::string engine_binary_hash;  // bare metal only: a container's image ID identifies the engine
  bool bare_metal() const { return image_ref.empty() && image_id.empty(); }
};

ProvenanceContext capture_provenance_context(const std::filesystem::path& experiment_dir,
                                             const std::filesystem::path& engine);

// The program a trial runs in `working_dir`: mtengine (hashed once per campaign) or a command
// workload's own program and script. Call it before the job starts, while the run directory holds
// no output yet.
ProgramIdentity trial_program(const ProvenanceContext& context, const std::vector<std::string>& program_argv,
                              const std::filesystem::path& working_dir);

struct Provenance {
  ProvenanceContext context;             // engine_binary_hash is empty when the trial did not run mtengine
  std::string build_revision;            // the commit the program reports it was built from
  std::optional<bool> build_tree_dirty;  // built from a tree with uncommitted changes; unset: not said
  std::string software_stack;            // JSON object; a command's program and script hashes included
  std::string hosts;                     // JSON array
  std::string command;
  bool complete = false;
  std::vector<std::string> missing_fields;
};

// Combines the campaign's context with the trial's program, its command and what the program
// reported in its result JSON (if any).
Provenance assemble_provenance(const ProvenanceContext& context, const std::optional<std::string>& result_json,
                               const LaunchCommand& command, const ProgramIdentity& program);

}  // namespace mt

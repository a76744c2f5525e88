#include "workloads/verify/verify_command.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/checkpointer.h"
#include "training/checkpoint/layout.h"
#include "training/checkpoint/metadata.h"
#include "training/checkpoint/shard_file.h"
#include "core/job/workload.h"

namespace mt {
namespace {

const std::vector<std::string> kComponents = {"model", "optimizer", "scheduler", "train_state", "data", "rng"};

std::string component_of(const std::string& tensor) { return tensor.substr(0, tensor.find('/')); }

// Per component, the first tensor whose name, type, shape or digest differs between the two
// shards, or "" when they match.
std::map<std::string, std::string> first_differences(const std::vector<ShardEntry>& a,
                                                     const std::vector<ShardEntry>& b) {
  std::map<std::string, std::string> out;
  for (const auto& c : kComponents) out[c] = "";
  std::map<std::string, const ShardEntry*> in_b;
  for (const auto& e : b) in_b[e.name] = &e;
  auto note = [&](const std::string& tensor) {
    auto& slot = out[component_of(tensor)];
    if (slot.empty()) slot = tensor;
  };
  for (const auto& e : a) {
    auto it = in_b.find(e.name);
    if (it == in_b.end() || it->second->dtype != e.dtype || it->second->shape != e.shape ||
        it->second->sha256 != e.sha256)
      note(e.name);
    if (it != in_b.end()) in_b.erase(it);
  }
  for (const auto& [name, entry] : in_b) note(name);  // only in B
  return out;
}

class VerifyWorkload final : public Workload {
 public:
  explicit VerifyWorkload(const VerifyConfig& config) : config_(config) {}

  std::string name() const override { return "verify"; }
  std::optional<std::string> validate() const override {
    if (config_.a.empty() || config_.b.empty())
      return std::string("two checkpoint step directories are needed: verify A B");
    return std::nullopt;
  }
  const JobOptions& job() const override { return config_.job; }

  WorkloadOutcome run(ProcessGroup& group) override {
    ControlChannel& control = group.control;
    std::vector<ShardEntry> a, b;
    std::string error;
    try {
      const auto meta_a = read_metadata(config_.a), meta_b = read_metadata(config_.b);
      for (const auto& [label, meta] : {std::pair{config_.a, meta_a}, std::pair{config_.b, meta_b}})
        if (meta.identity.world_size != control.world_size())
          throw CheckpointError(fmt::format("'{}' was saved by {} rank(s); run verify with mpirun -np {}", label,
                                            meta.identity.world_size, meta.identity.world_size));
      a = own_shard(config_.a, meta_a, control.rank());
      b = own_shard(config_.b, meta_b, control.rank());
    } catch (const std::exception& e) {
      error = e.what();
    }
    all_ranks_or_none(control, error);

    nlohmann::json mine = first_differences(a, b);
    const auto gathered = control.gather_text_to_root(mine.dump());
    WorkloadOutcome outcome;
    if (control.rank() != 0) return outcome;
    outcome.result = verdict(gathered, control.world_size());
    outcome.exit_code = outcome.result["exact_match"].get<bool>() ? 0 : 1;
    print(outcome.result);
    return outcome;
  }

  nlohmann::json error_result(const RunError& error) const override {
    return result_document(
        "verify", false,
        {{"a", config_.a},
         {"b", config_.b},
         {"error", {{"reason", error.reason}, {"rank", error.rank ? nlohmann::json(*error.rank) : nlohmann::json()}}}});
  }

 private:
  // This rank's shard of a checkpoint: the whole file checked against the metadata first.
  static std::vector<ShardEntry> own_shard(const std::string& dir, CheckpointMetadata metadata, int rank) {
    const std::string name = checkpoint_layout::shard_name(rank);
    std::erase_if(metadata.files, [&](const CheckpointFile& f) { return f.name != name; });
    if (metadata.files.empty()) throw CheckpointError("'" + dir + "' lists no " + name);
    check_files(dir, metadata);
    // The digests the comparison uses are the header's: the data is read and hashed against them
    // first, so a shard whose data changed while its file digest was recomputed is caught here.
    read_shard_file(std::filesystem::path(dir) / name, "");
    return read_shard_index(std::filesystem::path(dir) / name);
  }

  nlohmann::json verdict(const std::vector<std::string>& per_rank, int world_size) const {
    nlohmann::json components = nlohmann::json::object();
    bool exact = true;
    for (const auto& c : kComponents) {
      nlohmann::json entry = {{"match", true}};
      for (int r = 0; r < world_size; ++r) {
        const auto diff = nlohmann::json::parse(per_rank[static_cast<std::size_t>(r)]).at(c).get<std::string>();
        if (diff.empty()) continue;
        entry = {{"match", false}, {"first_difference", {{"rank", r}, {"tensor", diff}}}};
        exact = false;
        break;
      }
      components[c] = entry;
    }
    return result_document("verify", true,
                           {{"world_size", world_size},
                            {"a", config_.a},
                            {"b", config_.b},
                            {"exact_match", exact},
                            {"components", components}});
  }

  static void print(const nlohmann::json& result) {
    fmt::print("mtengine verify: {}\n", result["exact_match"].get<bool>() ? "exact match" : "MISMATCH");
    for (const auto& [component, entry] : result["components"].items()) {
      if (entry["match"].get<bool>()) fmt::print("  {:<12} match\n", component);
      else
        fmt::print("  {:<12} differs first at {} on rank {}\n", component,
                   entry["first_difference"]["tensor"].get<std::string>(),
                   entry["first_difference"]["rank"].get<int>());
    }
    std::fflush(stdout);
  }

  VerifyConfig config_;
};

}  // namespace

int run_verify_command(const VerifyConfig& config) {
  VerifyWorkload workload(config);
  return run_workload(workload);
}

}  // namespace mt

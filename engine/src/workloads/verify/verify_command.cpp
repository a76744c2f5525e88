#include "workloads/verify/verify_command.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/checkpointer.h"
#include "training/checkpoint/layout.h"
#include "training/checkpoint/logical_checkpoint.h"
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

// The same question for two checkpoints of different layouts (strategy or world size), asked of
// their logical state on one rank: each parameter and its moments, AdamW's step count, the global
// state rank 0 saved, and the generators of the ranks both have.
class LogicalComparison {
 public:
  LogicalComparison(const std::string& a, const std::string& b) : a_(a), b_(b) {
    check_files(a_.dir(), a_.metadata());
    check_files(b_.dir(), b_.metadata());
  }

  std::map<std::string, std::string> first_differences() {
    std::map<std::string, std::string> out;
    for (const auto& c : kComponents) out[c] = "";
    auto note = [&](const std::string& component, const std::string& tensor) {
      if (out[component].empty()) out[component] = tensor;
    };
    if (a_.layout().parameters.size() != b_.layout().parameters.size()) note("model", "model (parameter count)");
    for (const auto& pa : a_.layout().parameters) {
      const LogicalTensor* pb = b_.find_parameter(pa.name);
      if (!pb || pb->shape != pa.shape) {  // its moments cannot match either
        note("model", "model/" + pa.name);
        note("optimizer", "optimizer/exp_avg/" + pa.name);
        continue;
      }
      if (!torch::equal(a_.assemble(pa, StatePart::weights), b_.assemble(*pb, StatePart::weights)))
        note("model", "model/" + pa.name);
      for (const auto& [part, name] : {std::pair{StatePart::exp_avg, "exp_avg"}, {StatePart::exp_avg_sq, "exp_avg_sq"}})
        if (!torch::equal(a_.assemble(pa, part), b_.assemble(*pb, part)))
          note("optimizer", fmt::format("optimizer/{}/{}", name, pa.name));
    }
    for (const auto& pb : b_.layout().parameters)  // only in B
      if (!a_.find_parameter(pb.name)) {
        note("model", "model/" + pb.name);
        note("optimizer", "optimizer/exp_avg/" + pb.name);
      }
    if (a_.optimizer_steps() != b_.optimizer_steps()) note("optimizer", "optimizer/steps");
    for (const char* name : kGlobalStateTensors)
      if (!same(a_.saved(0, name), b_.saved(0, name))) note(component_of(name), name);
    const int common = std::min(a_.metadata().identity.world_size, b_.metadata().identity.world_size);
    for (int r = 0; r < common; ++r)
      if (!same(a_.saved(r, "rng/cpu"), b_.saved(r, "rng/cpu"))) note("rng", fmt::format("rng/cpu of rank {}", r));
    return out;
  }

  int common_ranks() const { return std::min(a_.metadata().identity.world_size, b_.metadata().identity.world_size); }

 private:
  static bool same(const std::optional<torch::Tensor>& x, const std::optional<torch::Tensor>& y) {
    return x && y && x->sizes() == y->sizes() && x->scalar_type() == y->scalar_type() && torch::equal(*x, *y);
  }
  LogicalCheckpoint a_, b_;
};

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
    bool logical = false;
    try {
      const auto meta_a = read_metadata(config_.a), meta_b = read_metadata(config_.b);
      require_published(config_.a, meta_a);
      require_published(config_.b, meta_b);
      logical = meta_a.identity.strategy != meta_b.identity.strategy ||
                meta_a.identity.world_size != meta_b.identity.world_size;
    } catch (const std::exception& e) {
      error = e.what();
    }
    all_ranks_or_none(control, error);
    if (logical) return compare_logically(control);
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
  // Different layouts: rank 0 compares the logical states (at any world size).
  WorkloadOutcome compare_logically(ControlChannel& control) {
    std::string error;
    std::map<std::string, std::string> differences;
    int common = 0;
    if (control.rank() == 0) {
      try {
        LogicalComparison comparison(config_.a, config_.b);
        differences = comparison.first_differences();
        common = comparison.common_ranks();
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    all_ranks_or_none(control, error);
    WorkloadOutcome outcome;
    if (control.rank() != 0) return outcome;
    nlohmann::json components = nlohmann::json::object();
    bool exact = true;
    for (const auto& c : kComponents) {
      const auto& diff = differences[c];
      components[c] = diff.empty() ? nlohmann::json{{"match", true}}
                                   : nlohmann::json{{"match", false}, {"first_difference", {{"tensor", diff}}}};
      exact = exact && diff.empty();
    }
    components["rng"]["compared_ranks"] = common;
    outcome.result = result_document("verify", true,
                                     {{"comparison", "logical"},
                                      {"a", config_.a},
                                      {"b", config_.b},
                                      {"exact_match", exact},
                                      {"components", components}});
    outcome.exit_code = exact ? 0 : 1;
    print(outcome.result);
    return outcome;
  }

  // A step without READY may be incomplete: resume, reshard and export refuse it, and so does verify.
  static void require_published(const std::string& dir, const CheckpointMetadata& metadata) {
    if (!checkpoint_layout::is_ready(dir))
      throw CheckpointError(fmt::format(
          "'{}' is unusable: step {} has no READY (never published, or its save did not finish), so it may be "
          "incomplete",
          dir, metadata.global_step));
  }

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
    const bool logical = result.contains("comparison");
    fmt::print("mtengine verify: {}{}\n", result["exact_match"].get<bool>() ? "exact match" : "MISMATCH",
               logical ? " (logical state: the checkpoints' layouts differ)" : "");
    for (const auto& [component, entry] : result["components"].items()) {
      const std::string note =
          component == "rng" && entry.contains("compared_ranks")
              ? fmt::format(" (ranks 0-{}, those both have)", entry["compared_ranks"].get<int>() - 1)
              : "";
      if (entry["match"].get<bool>()) {
        fmt::print("  {:<12} match{}\n", component, note);
      } else if (entry["first_difference"].contains("rank")) {
        fmt::print("  {:<12} differs first at {} on rank {}\n", component,
                   entry["first_difference"]["tensor"].get<std::string>(),
                   entry["first_difference"]["rank"].get<int>());
      } else {
        fmt::print("  {:<12} differs first at {}{}\n", component,
                   entry["first_difference"]["tensor"].get<std::string>(), note);
      }
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

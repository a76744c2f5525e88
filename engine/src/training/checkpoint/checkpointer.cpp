#include "training/checkpoint/checkpointer.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/comm/first_rank_problem.h"
#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/durable_file.h"
#include "training/checkpoint/layout.h"
#include "training/checkpoint/save_directory.h"
#include "training/checkpoint/sha256.h"

namespace mt {
namespace {

namespace fs = std::filesystem;
namespace layout = checkpoint_layout;

// Rank 0 decides; every rank learns the decision, or the error, in one broadcast. The JSON is
// {"error": "..."} or the decision itself.
nlohmann::json agree(ControlChannel& control, const std::function<nlohmann::json()>& decide) {
  std::vector<char> bytes;
  if (control.rank() == 0) {
    nlohmann::json decision;
    try {
      decision = decide();
    } catch (const std::exception& e) {
      decision = {{"error", e.what()}};
    }
    const std::string text = decision.dump();
    bytes.assign(text.begin(), text.end());
  }
  control.broadcast_bytes(bytes, 0);
  auto decision = nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
  if (decision.contains("error")) throw CheckpointError(decision["error"].get<std::string>());
  return decision;
}

}  // namespace

void rank0_decides(ControlChannel& control, const std::function<std::string()>& problem) {
  agree(control, [&]() -> nlohmann::json {
    const std::string found = problem();
    if (!found.empty()) return {{"error", found}};
    return {{"ok", true}};
  });
}

void all_ranks_or_none(ControlChannel& control, const std::string& local_error) {
  const auto failed = first_rank_problem(control, local_error);
  if (!failed) return;
  if (control.rank() == 0 && failed->rank != 0)
    throw CheckpointError(fmt::format("rank {}: {}", failed->rank, failed->words));
  if (!local_error.empty()) throw CheckpointError(local_error);
  throw CheckpointError(fmt::format("rank {} could not read its checkpoint shard", failed->rank));
}

Checkpointer::Checkpointer(CheckpointSettings settings, ControlChannel& control, CheckpointIdentity identity,
                           const FaultPlan& faults)
    : settings_(std::move(settings)), control_(control), identity_(std::move(identity)), faults_(faults) {}

void Checkpointer::describe_contents(nlohmann::json settings, CheckpointLayout layout, nlohmann::json gemm_backends) {
  contents_settings_ = std::move(settings);
  contents_layout_ = std::move(layout);
  contents_gemm_backends_ = std::move(gemm_backends);
}

// A save in flight: this rank's host copy of its tensors, being written by a background thread.
struct Checkpointer::AsyncSave {
  int64_t global_step = 0, tokens_seen = 0;
  std::chrono::steady_clock::time_point started;
  double blocking_ms = 0;
  std::vector<NamedTensor> snapshot;
  std::thread writer;
  std::atomic<bool> done{false};
  WrittenFile written;  // set by the writer before `done`
  std::string error;    // likewise
  double background_ms = 0;
};

Checkpointer::~Checkpointer() {
  // A save still in flight when the run ends abnormally is never published: the previous READY
  // step stays the newest, as after a crash.
  if (async_ && async_->writer.joinable()) async_->writer.join();
}

fs::path Checkpointer::begin_step(int64_t global_step) {
  const fs::path root = settings_.dir, temp = layout::temp_dir(root, global_step);
  if (control_.rank() == 0) {
    fs::create_directories(root);
    fs::remove_all(temp);
    fs::create_directories(temp);
  }
  control_.barrier();  // the temporary directory exists for everyone
  return temp;
}

WrittenFile Checkpointer::write_own_shard(const fs::path& temp, int64_t global_step,
                                          const std::vector<NamedTensor>& tensors) const {
  const auto kill_after = faults_.save_kill_after(control_.rank(), global_step);
  const int rank = control_.rank();
  return write_shard_file(temp / layout::shard_name(rank), tensors, [&](std::size_t written) {
    if (kill_after && static_cast<int64_t>(written) + 1 >= *kill_after) {
      std::fprintf(stderr, "mtengine: injected fault: rank %d dies while writing checkpoint step %lld\n", rank,
                   static_cast<long long>(global_step));
      kill_self();
    }
  });
}

uint64_t Checkpointer::publish_step(int64_t global_step, int64_t tokens_seen, const WrittenFile& written_file) {
  const fs::path root = settings_.dir, temp = layout::temp_dir(root, global_step);
  const std::string name = layout::shard_name(control_.rank());
  // Each rank digested its own shard while writing it; rank 0 collects sizes and digests.
  const auto all = control_.gather_text_to_root(
      nlohmann::json{{"name", name}, {"bytes", written_file.bytes}, {"sha256", written_file.sha256}}.dump());
  uint64_t total_bytes = 0;
  if (control_.rank() == 0) {
    CheckpointMetadata metadata;
    metadata.identity = identity_;
    metadata.global_step = global_step;
    metadata.tokens_seen = tokens_seen;
    metadata.created_at = utc_timestamp();
    metadata.settings = contents_settings_;
    metadata.layout = contents_layout_;
    metadata.gemm_backends = contents_gemm_backends_;
    for (int r = 0; r < control_.world_size(); ++r) {
      const auto file = nlohmann::json::parse(all[static_cast<std::size_t>(r)]);
      CheckpointFile f{file.at("name"), file.at("bytes"), file.at("sha256")};
      // Not an input error: the job is mid-save and the other ranks wait; the job must abort.
      if (f.name != layout::shard_name(r) || !fs::is_regular_file(temp / f.name))
        throw std::runtime_error(fmt::format("checkpoint step {}: rank {}'s shard is missing", global_step, r));
      total_bytes += f.bytes;
      metadata.files.push_back(std::move(f));
    }
    write_durable_file(temp / layout::kMetadata, to_json(metadata).dump(2) + "\n");
    write_durable_file(temp / layout::kReady, "");
    fsync_path(temp);
    layout::publish(root, global_step);
    layout::prune(root, settings_.keep_last);
  }
  control_.barrier();  // published before anyone moves on
  return static_cast<uint64_t>(control_.max(static_cast<double>(total_bytes)));
}

SaveStats Checkpointer::save(int64_t global_step, int64_t tokens_seen, const std::vector<NamedTensor>& tensors) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path temp = begin_step(global_step);
  const WrittenFile written = write_own_shard(temp, global_step, tensors);
  SaveStats stats;
  stats.step = global_step;
  stats.bytes = publish_step(global_step, tokens_seen, written);
  stats.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

double Checkpointer::start_async_save(int64_t global_step, int64_t tokens_seen,
                                      const std::vector<NamedTensor>& tensors) {
  if (async_) throw std::logic_error("checkpoint: a save is already in flight");
  const auto start = std::chrono::steady_clock::now();
  async_ = std::make_unique<AsyncSave>();
  async_->global_step = global_step;
  async_->tokens_seen = tokens_seen;
  async_->started = start;
  // The only blocking part: a host copy of what this rank saves, so training may change its own.
  for (const auto& t : tensors)
    async_->snapshot.push_back({t.name, t.tensor.to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true)});
  const fs::path temp = begin_step(global_step);
  async_->blocking_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  AsyncSave* save = async_.get();
  save->writer = std::thread([this, save, temp] {
    const auto begin = std::chrono::steady_clock::now();
    try {
      save->written = write_own_shard(temp, save->global_step, save->snapshot);
    } catch (const std::exception& e) {
      save->error = e.what();
    }
    save->background_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    save->done = true;
  });
  return async_->blocking_ms;
}

std::optional<SaveStats> Checkpointer::finish_async_save(bool wait) {
  if (!async_) return std::nullopt;
  // Every rank's write must be finished before anyone publishes: one scalar reduction decides.
  if (!wait && control_.min(async_->done ? 1.0 : 0.0) < 1.0) return std::nullopt;
  async_->writer.join();
  const double failed = control_.min(async_->error.empty() ? control_.world_size() : control_.rank());
  if (failed < control_.world_size())
    throw std::runtime_error(fmt::format("checkpoint step {}: rank {} could not write its shard{}", async_->global_step,
                                         static_cast<int>(failed), async_->error.empty() ? "" : ": " + async_->error));
  const auto publish_start = std::chrono::steady_clock::now();
  SaveStats stats;
  stats.step = async_->global_step;
  stats.bytes = publish_step(async_->global_step, async_->tokens_seen, async_->written);
  stats.async = true;
  stats.ms = async_->blocking_ms +
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - publish_start).count();
  stats.background_ms = async_->background_ms;
  stats.total_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - async_->started).count();
  async_.reset();
  return stats;
}

std::optional<ResumePoint> Checkpointer::resume_point() {
  if (settings_.resume.empty()) return std::nullopt;
  const auto decision = agree(control_, [&]() -> nlohmann::json {
    fs::path step_dir;
    if (settings_.resume == "latest") {
      if (settings_.dir.empty()) throw CheckpointError("--resume latest needs --checkpoint-dir");
      // What a crash left behind is never used, and not left to confuse the next reader.
      const auto leftovers = layout::clean_incomplete(settings_.dir);
      for (const auto& removed : leftovers.removed)
        std::fprintf(stderr, "mtengine: removed incomplete checkpoint '%s'\n", removed.c_str());
      for (const auto& aside : leftovers.set_aside)
        std::fprintf(stderr, "mtengine: set aside checkpoint without READY as '%s' (not resumed from)\n",
                     aside.c_str());
      const auto step = layout::resolve_latest(settings_.dir);
      if (!step) return {{"fresh", true}};
      step_dir = layout::step_dir(settings_.dir, *step);
    } else {
      step_dir = settings_.resume;
      if (!fs::is_directory(step_dir)) throw CheckpointError("--resume '" + step_dir.string() + "': no such directory");
      if (!layout::is_ready(step_dir))
        throw CheckpointError("--resume '" + step_dir.string() + "' is not a published checkpoint (no READY)");
    }
    const CheckpointMetadata metadata = read_metadata(step_dir);
    const auto mismatch = identity_mismatch(metadata.identity, identity_);
    if (mismatch.empty()) return {{"dir", step_dir.string()}, {"reshard", false}};
    if (!differs_only_in_layout(metadata.identity, identity_)) {
      // A layout can be converted, the math cannot: name what differs in the math.
      CheckpointIdentity same_layout = identity_;
      same_layout.strategy = metadata.identity.strategy;
      same_layout.world_size = metadata.identity.world_size;
      throw CheckpointError(fmt::format("cannot resume from '{}': {}", step_dir.string(),
                                        identity_mismatch(metadata.identity, same_layout)));
    }
    if (!metadata.layout)
      throw CheckpointError(
          fmt::format("cannot resume from '{}': {}, and it does not record where its parameters "
                      "live (written by an older mtengine), so it cannot be resharded",
                      step_dir.string(), mismatch));
    check_files(step_dir, metadata);  // each rank reads slices of others' shards: every byte checked once
    return {{"dir", step_dir.string()}, {"reshard", true}};
  });
  if (decision.contains("fresh")) return std::nullopt;
  ResumePoint point;
  point.step_dir = decision.at("dir").get<std::string>();
  point.metadata = read_metadata(point.step_dir);
  point.reshard = decision.at("reshard").get<bool>();
  return point;
}

void Checkpointer::check_save_directory(const std::optional<ResumePoint>& resumed) {
  if (!saving()) return;
  std::optional<ResumedStep> from;
  if (resumed) from = ResumedStep{resumed->step_dir, resumed->metadata.global_step};
  rank0_decides(control_, [&] { return save_directory_problem(settings_.dir, identity_, from); });
}

std::map<std::string, torch::Tensor> Checkpointer::load(const ResumePoint& point) {
  std::map<std::string, torch::Tensor> tensors;
  std::string error;
  try {
    const std::string name = layout::shard_name(control_.rank());
    CheckpointMetadata mine = point.metadata;
    mine.files.erase(
        std::remove_if(mine.files.begin(), mine.files.end(), [&](const CheckpointFile& f) { return f.name != name; }),
        mine.files.end());
    if (mine.files.empty()) throw CheckpointError("'" + point.step_dir.string() + "' lists no " + name);
    check_file_sizes(point.step_dir, mine);
    // One read: the file's SHA-256 is checked as its bytes come in.
    for (auto& named : read_shard_file(point.step_dir / name, mine.files.front().sha256)) {
      tensors[named.name] = std::move(named.tensor);
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  all_ranks_or_none(control_, error);
  return tensors;
}

std::map<std::string, torch::Tensor> Checkpointer::load_resharded(const ResumePoint& point,
                                                                  const ReshardTarget& target) {
  std::map<std::string, torch::Tensor> tensors;
  std::string error;
  try {
    tensors = load_resharded_state(point.step_dir, target);
  } catch (const std::exception& e) {
    error = e.what();
  }
  all_ranks_or_none(control_, error);
  return tensors;
}

}  // namespace mt

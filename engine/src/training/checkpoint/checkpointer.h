// Distributed checkpoints with an atomic publish protocol, retention and exact resume.
// Save (collective): every rank writes its shard into ROOT/.step_N.tmp/ and fsyncs it; ranks
// meet; rank 0 checks that every expected file is there, writes metadata.json (every file's size
// and SHA-256) and READY, fsyncs, renames the directory into place, fsyncs ROOT, atomically
// replaces ROOT/latest, and only then prunes beyond --keep-last. A crash at any moment leaves
// either the previous published steps or the new one, never a READY step that fails checking.
// Resume (collective): `latest` (the step ROOT/latest names if READY, else the newest READY
// step; none: start fresh) or a step directory; rank 0 decides and checks the identity, each rank
// loads and checks its own shard, and any problem on any rank stops every rank with exit 2. A
// checkpoint of the same math saved by another strategy or world size is resharded: rank 0 checks
// every file's SHA-256, then each rank reads the slices its own layout needs.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "training/checkpoint/metadata.h"
#include "training/checkpoint/reshard.h"
#include "training/checkpoint/shard_file.h"
#include "core/comm/control_channel.h"
#include "training/faults/faults.h"

namespace mt {

struct CheckpointSettings {
  std::filesystem::path dir;  // empty: no checkpoints
  int64_t save_every = 0;     // steps between saves; 0: never
  int64_t keep_last = 0;      // published steps kept; 0: all
  std::string resume;         // "", "latest", or a step directory
  bool async = false;         // writes in the background (start_async_save / finish_async_save)
};

struct SaveStats {
  int64_t step = 0;
  double ms = 0;       // what training waited for: the whole protocol, or an async save's copy and publication
  uint64_t bytes = 0;  // every rank's shards together
  bool async = false;
  double background_ms = 0;  // async: this rank's write, digest and fsync in the background
  double total_ms = 0;       // async: from the copy to publication
};

struct ResumePoint {
  std::filesystem::path step_dir;
  CheckpointMetadata metadata;
  bool reshard = false;  // saved by another strategy or world size: load with load_resharded()
};

// Every rank passes its own problem ("" for none); when any rank has one, every rank throws
// CheckpointError (the failing rank its own message, the others naming it). A rank alone must not
// leave the others waiting in a collective.
void all_ranks_or_none(ControlChannel& control, const std::string& local_error);

// Rank 0 evaluates `problem` ("" for none); when it finds one, every rank throws CheckpointError
// with rank 0's message (collective).
void rank0_decides(ControlChannel& control, const std::function<std::string()>& problem);

class Checkpointer {
 public:
  Checkpointer(CheckpointSettings settings, ControlChannel& control, CheckpointIdentity identity,
               const FaultPlan& faults);

  bool saving() const { return !settings_.dir.empty() && settings_.save_every > 0; }
  bool due(int64_t completed_steps) const { return saving() && completed_steps % settings_.save_every == 0; }

  // What every save records beside the shards: the settings behind the fingerprint and where each
  // parameter lives (rank 0's copy is the one written).
  void describe_contents(nlohmann::json settings, CheckpointLayout layout, nlohmann::json gemm_backends);

  ~Checkpointer();

  // The whole save now (collective).
  SaveStats save(int64_t global_step, int64_t tokens_seen, const std::vector<NamedTensor>& tensors);
  // An asynchronous save (collective): the host copy of this rank's tensors and the temporary
  // directory now (the returned ms are all training waits for), the write, digest and fsync in a
  // background thread. At most one save is in flight.
  double start_async_save(int64_t global_step, int64_t tokens_seen, const std::vector<NamedTensor>& tensors);
  bool save_in_flight() const { return async_ != nullptr; }
  // Collective, at a step boundary: publishes the save in flight (READY, `latest`, pruning, as a
  // synchronous save does) once every rank's write has finished, or after waiting for it when
  // `wait`. Nothing when none was in flight or it is still being written.
  std::optional<SaveStats> finish_async_save(bool wait);

  // Where to resume from; nothing when there is nothing to resume (no --resume, or `latest` in an
  // empty directory). Throws CheckpointError on every rank when the choice is unusable.
  std::optional<ResumePoint> resume_point();
  // Before the first save (collective): throws CheckpointError on every rank when the checkpoint
  // directory holds steps this run, resumed from `resumed` or from step 0, must not overwrite
  // (save_directory.h). Nothing when not saving.
  void check_save_directory(const std::optional<ResumePoint>& resumed);
  // This rank's tensors of a resume point, by name. Throws CheckpointError on every rank when any
  // rank's shard is missing or damaged.
  std::map<std::string, torch::Tensor> load(const ResumePoint& point);
  // The same for a checkpoint of another layout (see reshard.h); throws on every rank alike.
  std::map<std::string, torch::Tensor> load_resharded(const ResumePoint& point, const ReshardTarget& target);

 private:
  struct AsyncSave;
  std::filesystem::path begin_step(int64_t global_step);  // the temporary directory, on every rank
  WrittenFile write_own_shard(const std::filesystem::path& temp, int64_t global_step,
                              const std::vector<NamedTensor>& tensors) const;
  uint64_t publish_step(int64_t global_step, int64_t tokens_seen, const WrittenFile& written);

  CheckpointSettings settings_;
  ControlChannel& control_;
  CheckpointIdentity identity_;
  const FaultPlan& faults_;
  nlohmann::json contents_settings_;
  std::optional<CheckpointLayout> contents_layout_;
  nlohmann::json contents_gemm_backends_;
  std::unique_ptr<AsyncSave> async_;
};

}  // namespace mt

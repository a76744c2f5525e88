// Whether a checkpoint directory may receive this run's saves. Publishing step N replaces step_N/
// and points `latest` at it, so saving into a directory that holds another run's steps overwrites
// them, leaves that run's newer steps beside this one's (--keep-last counts both) and moves
// `latest` back: the other run can no longer resume. Torch-free; rank 0 asks, before any save.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "training/checkpoint/metadata.h"

namespace mt {

// The checkpoint step a run resumes from.
struct ResumedStep {
  std::filesystem::path dir;
  int64_t step = 0;
};

// Why a training run (`resumed`: from that step; nothing: from step 0) must not save into `root`,
// or "": a fresh run refuses any published step (of another configuration: name what differs; of
// its own: a rerun must say --resume latest), a resumed one refuses steps of another configuration
// and steps of its own newer than the one it resumes from (a branch from an older step would
// overwrite them and move `latest` back), unless it resumes from the step `latest` names there:
// newer steps beside that one are a save cut short before `latest` moved, recomputed alike.
std::string save_directory_problem(const std::filesystem::path& root, const CheckpointIdentity& run,
                                   const std::optional<ResumedStep>& resumed);

// Why `reshard` must not write step `step` of `source_step` into `root`, or "": the destination
// lies inside a checkpoint step (the source's or another's), or it already holds that step or a
// newer one (overwritten in place, or `latest` moved back).
std::string reshard_destination_problem(const std::filesystem::path& root, int64_t step,
                                        const std::filesystem::path& source_step);

}  // namespace mt

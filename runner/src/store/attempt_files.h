#pragma once
// Which files of an attempt's run directory the database keeps, so reports can link them without
// the run directory: a profiled attempt's Chrome traces (one per rank) and its profile summary,
// from the first repeat of each configuration. What a trial writes there is read with bounds:
// regular files only (no links), each at most kMaxKeptFileBytes, at most kMaxKeptBytes in all;
// a file past them is not kept, and the attempt's outcome does not change.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "experiment/trial.h"
#include "store/store.h"

namespace mt {

inline constexpr std::uintmax_t kMaxKeptFileBytes = 16u << 20;
inline constexpr std::uintmax_t kMaxKeptBytes = 128u << 20;

// The files to keep with this attempt: none unless the trial is profiled, it is its
// configuration's first repeat and the attempt succeeded.
std::vector<AttemptFile> files_to_keep(const Trial& trial, const AttemptOutcome& outcome,
                                       const std::filesystem::path& run_dir);

// RUN_DIR/profile/rank_NNNNN.trace.json and RUN_DIR/profile/profile.json, by name, within the
// bounds above; named "profile/…" relative to the run directory.
std::vector<AttemptFile> profile_files(const std::filesystem::path& run_dir);

}  // namespace mt

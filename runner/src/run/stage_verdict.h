#pragma once
// Whether a stage of a chain did what it expected: its outcome, the rank, exit code and step it
// ended with, its output, its result file (resumed_from_step, exact_match) and the checkpoint
// directory it left behind, each compared with the expectation. A chain's verdict follows.
#include <filesystem>
#include <string>

#include "experiment/stage.h"
#include "store/store.h"

namespace mt {

// `expect` with templates expanded and checkpoint_dir resolved (stage_command.h).
StageVerdict judge_stage(const StageExpectation& expect, const AttemptOutcome& outcome,
                         const std::filesystem::path& log_file);

// "stage 2 'killed': expected crashed on rank 1, observed succeeded": why a chain failed.
std::string chain_failure_reason(std::size_t index, const Stage& stage, const StageVerdict& verdict);

}  // namespace mt

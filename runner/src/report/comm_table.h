#pragma once
// The communication section, for `comm` results: from result rows where the results carry them
// (comm_rows_section.h), and for results of one measurement per trial from these result fields
// (numbers go to the metrics table):
//   operation     string  all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, …
//   bytes         number  message size per rank, bytes
//   latency_us    number  mean time per call, microseconds
//   algbw_gbps    number  algorithm bandwidth, bytes ÷ time, GB/s
//   wrong_values  number  elements that failed the output check (must be 0)
// Bus bandwidth is derived here with the nccl-tests factors, so it is comparable across rank counts.
#include <optional>
#include <string>
#include <vector>

#include "report/groups.h"
#include "report/provenance_check.h"

namespace mt {

// busbw = algbw × factor: all_reduce 2(n−1)/n; all_gather, reduce_scatter, all_to_all (n−1)/n;
// broadcast and reduce 1. nullopt for an operation without a known factor.
std::optional<double> busbw_factor(const std::string& operation, int ranks);

std::string render_comm_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance);

}  // namespace mt

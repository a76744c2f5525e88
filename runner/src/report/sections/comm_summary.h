#pragma once
// What the report's summary says about collective benchmarks from result rows (comm_rows.h): per
// engine study and peer, the busbw ratios from 1 MiB against the peer's goal, per rank count; the
// cliffs; and the warnings that qualify them (oversubscribed rank counts, few repeats).
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

struct CommSummary {
  std::string headline;               // a paragraph; empty without an engine study and a peer
  std::vector<std::string> warnings;  // one line each
};

// `groups` all carry rows (has_result_rows).
CommSummary summarize_comm_rows(const std::vector<const Group*>& groups);

}  // namespace mt

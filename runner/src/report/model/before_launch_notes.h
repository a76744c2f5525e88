#pragma once
// What mtrun did before launching the attempts a report's numbers come from (`run --settle`,
// `--wait-quiet`; docs/measurement.md): a reader can tell settled trials from back-to-back ones,
// and see how often the machine was busy when a trial was due. Nothing for campaigns that did
// neither, or were recorded before schema version 11, so their reports read as they did.
#include <optional>
#include <string>
#include <vector>

#include "report/model/results_source.h"

namespace mt {

// One paragraph per campaign that settled or looked before any measured attempt; "" when none did.
std::string before_launch_notes(const ReportData& data);

// "Settling before launch differs: …" when two sets of measured attempts were settled differently
// (one not at all, in part, or for other seconds), else nullopt: on a VM a trial started right after
// another can run slower for it, so a ratio between them may include that. `a` and `b` are each one
// campaign's trials; attempts recorded before schema version 11 count as not recorded as settled.
std::optional<std::string> settling_difference(const std::string& a_name, const std::vector<ReportTrial>& a,
                                               const std::string& b_name, const std::vector<ReportTrial>& b);

}  // namespace mt

#pragma once
// What mtrun did before launching the attempts a report's numbers come from (`run --settle`,
// `--wait-quiet`; docs/measurement.md): a reader can tell settled trials from back-to-back ones,
// and see how often the machine was busy when a trial was due. Nothing for campaigns that did
// neither, or were recorded before schema version 11, so their reports read as they did.
#include <string>

#include "report/model/results_source.h"

namespace mt {

// One paragraph per campaign that settled or looked before any measured attempt; "" when none did.
std::string before_launch_notes(const ReportData& data);

}  // namespace mt

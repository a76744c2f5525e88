#pragma once
// Attempts whose ranks all ran on other hosts than mtrun's (a cluster's compute nodes, mtrun on a
// login node): the machine figures recorded with them are mtrun's host's, so their verdicts rest on
// what the ranks measured themselves, their hosts' load included (host_loads.h). A reader should know
// which verdicts those are.
#include <string>

#include "report/model/results_source.h"

namespace mt {

// One sentence per campaign with such measured attempts; "" when none had any (or none recorded
// where their ranks ran: schema version 12).
std::string elsewhere_notes(const ReportData& data);

}  // namespace mt

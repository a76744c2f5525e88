#pragma once
// The report's sections in the order the document shows them: each one says whether it applies to
// a report (the model holds training runs, collectives, a references file…) and renders itself,
// appending its markdown, plots and kept files. Adding a section is one function and one line of
// the table in report_sections.cpp.
#include <vector>

#include "report/report.h"
#include "report/model/report_model.h"

namespace mt {

struct ReportSection {
  const char* name;  // what it is, for readers of the table
  bool (*applies)(const ReportModel& model);
  void (*render)(const ReportModel& model, RenderedReport& report);
};

const std::vector<ReportSection>& report_sections();

}  // namespace mt

#include "report/report.h"

#include "report/model/report_model.h"
#include "report/sections/report_sections.h"

namespace mt {

RenderedReport render_report(const ReportData& data, const ReportOptions& options) {
  const ReportModel model = build_report_model(data, options);
  RenderedReport report;
  for (const auto& section : report_sections()) {
    if (section.applies(model)) section.render(model, report);
  }
  std::string& md = report.markdown;
  while (md.size() >= 2 && md[md.size() - 1] == '\n' && md[md.size() - 2] == '\n') md.pop_back();
  return report;
}

}  // namespace mt

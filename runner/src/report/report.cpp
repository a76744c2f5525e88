#include "report/report.h"

#include <fmt/format.h>

#include "report/model/campaign_drift.h"
#include "report/model/report_model.h"
#include "report/render/cells.h"
#include "report/sections/answers_section.h"
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

std::string render_answers_text(const ReportData& data) {
  const ProvenanceAnalysis provenance = analyse_provenance(data.trials);
  if (provenance.mixed()) {
    return fmt::format(
        "answers: none here: the results come from {}; `mtrun report --allow-mixed` answers them, saying which "
        "rows come from where\n",
        mixed_description(provenance));
  }
  const ReportOptions defaults;  // the model points to it: it must outlive the model
  const ReportModel model = build_report_model(data, defaults);
  const AnswerInputs inputs = answer_inputs(model);
  std::string out = answers_as_text(inputs);
  // A drift every configuration shared moves the summary's figures, not their interleaved ratios.
  for (const auto& drift : campaign_drifts(inputs.groups)) {
    if (!drift.marked()) continue;
    out += fmt::format(
        "{}: {}: the summary's figures depend on when they ran; ratios between interleaved configurations hold "
        "(`mtrun report`, Measurement conditions)\n",
        kCampaignDriftMark, campaign_drift_text(drift, false));
  }
  return out;
}

}  // namespace mt

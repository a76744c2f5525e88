#include "report/sections/comm_table.h"

#include "report/model/comm_rows.h"
#include "report/sections/comm_rows_section.h"
#include "report/sections/metric_sections.h"

namespace mt {

std::string render_comm_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance,
                                const std::string& figures) {
  std::vector<const Group*> with_rows, without_rows;
  for (const Group* g : groups) (has_result_rows(*g) ? with_rows : without_rows).push_back(g);
  std::string out;
  if (!with_rows.empty()) out += "## Communication\n\n" + render_comm_rows(with_rows, provenance, figures);
  if (!without_rows.empty()) {
    out += render_metric_section(
        "Communication without result rows",
        "Collective benchmarks whose results carry no `rows` (as `mtengine comm` and its peers write them), shown "
        "metric by metric as they reported them.",
        without_rows, provenance);
  }
  return out;
}

}  // namespace mt

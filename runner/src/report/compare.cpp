#include "report/compare.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "report/cells.h"
#include "report/contrast.h"
#include "report/disturbance_summary.h"
#include "report/detail_table.h"
#include "report/groups.h"
#include "report/machine_context.h"
#include "report/markdown_table.h"
#include "report/provenance_check.h"

namespace mt {
namespace {

std::string revisions(const ReportData& data) {
  ProvenanceAnalysis p = analyse_provenance(data.trials);
  std::string out;
  for (const auto& [rev, n] : p.revisions) out += (out.empty() ? "" : ", ") + code(rev);
  return out.empty() ? "unknown" : out;
}

std::string describe(const char* letter, const ReportData& data) {
  const Campaign& c = data.campaigns.front();
  return fmt::format("- **{}**: campaign {} of {}, created {}, built from {}\n", letter, code(c.id),
                     code(c.experiment), c.created_at, revisions(data));
}

}  // namespace

std::string render_comparison(const ReportData& a, const ReportData& b) {
  std::vector<Group> groups_a = group_trials(a.trials, a.keep_disturbed),
                     groups_b = group_trials(b.trials, b.keep_disturbed);
  std::map<std::string, const Group*> by_key_b;
  for (const auto& g : groups_b) by_key_b[g.key] = &g;

  std::vector<ContrastRow> rows;
  std::set<std::string> matched;
  for (const auto& ga : groups_a) {
    auto it = by_key_b.find(ga.key);
    if (it == by_key_b.end()) continue;
    const Group& gb = *it->second;
    matched.insert(ga.key);
    std::string name = group_name(ga);
    if (core_use(ga).oversubscribed() || core_use(gb).oversubscribed()) name += std::string(" ") + kOversubscribedMark;
    for (const auto& m : key_metrics(ga, gb)) {
      auto va = ga.sample(m.name).values, vb = gb.sample(m.name).values;
      if (va.empty() && vb.empty()) continue;
      // B against A: the ratio reads B ÷ A.
      rows.push_back({name, &gb, &ga, m, contrast(vb, va), std::nullopt, ""});
    }
  }
  rows = decide(std::move(rows));

  std::string out = "# Comparison\n\n" + describe("A", a) + describe("B", b) + "\n";
  const std::string& id_a = a.campaigns.front().id;
  const std::string& id_b = b.campaigns.front().id;
  if (auto w = calibration_difference("A", calibrations_of(a.trials, id_a), "B", calibrations_of(b.trials, id_b))) {
    out += "**" + *w + "**\n\n";
  }
  out += fmt::format("Groups are the same parameters in both campaigns. Ratio = mean B ÷ mean A; the verdict says how B "
                     "compares with A. {}\n\n",
                     verdict_rules(tested_count(rows)));
  out += rows.empty() ? "The two campaigns have no group in common.\n\n"
                      : render_contrasts(rows, {"group", "B mean ± std (n)", "A mean ± std (n)", "B/A"}) + "\n" +
                            kCellLegend + "\n\n";
  std::string only;
  for (const auto& g : groups_a) {
    if (!matched.count(g.key)) only += fmt::format("- only in A: {}\n", group_name(g));
  }
  for (const auto& g : groups_b) {
    if (!matched.count(g.key)) only += fmt::format("- only in B: {}\n", group_name(g));
  }
  if (!only.empty()) out += "Groups with successful trials in one campaign only:\n\n" + only + "\n";
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace mt

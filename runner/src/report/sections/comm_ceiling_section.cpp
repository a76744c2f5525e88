#include "report/sections/comm_ceiling_section.h"

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/markdown_table.h"
#include "stats.h"

namespace mt {
namespace {

constexpr int kCeilingDecimals = 2;

// The largest size of a curve at which some study has a busbw.
const std::map<size_t, CommPoint>* largest_measured(const CommCurve& curve, double& bytes) {
  for (auto it = curve.rbegin(); it != curve.rend(); ++it) {
    for (const auto& [study, point] : it->second) {
      if (point.busbw_gbps.empty()) continue;
      bytes = it->first;
      return &it->second;
    }
  }
  return nullptr;
}

std::string share_cell(const std::map<size_t, CommPoint>& points, size_t study, double ceiling) {
  auto it = points.find(study);
  if (it == points.end() || it->second.busbw_gbps.empty()) return "-";
  const double busbw = mean(it->second.busbw_gbps);
  return fmt::format("{} ({})", fixed(busbw, kCeilingDecimals), percent(busbw / ceiling, 0));
}

}  // namespace

double busbw_ceiling_gbps(double copy_gbps_per_thread) { return copy_gbps_per_thread / 2; }

std::string render_memory_ceiling(const CommData& data) {
  std::vector<Column> columns = {
      {"operation"}, {"variant"}, {"ranks", Align::Right}, {"size", Align::Right}, {"ceiling GB/s", Align::Right}};
  for (const auto& s : data.studies) columns.push_back({code(s.label) + " busbw GB/s (share)", Align::Right});
  MarkdownTable table(columns);
  for (const auto& [key, curve] : data.series) {
    auto copy = data.copy_gbps_per_thread.find(key.ranks);
    if (copy == data.copy_gbps_per_thread.end() || data.oversubscribes(key.ranks)) continue;
    double bytes = 0;
    const auto* points = largest_measured(curve, bytes);
    if (!points) continue;
    const double ceiling = busbw_ceiling_gbps(median(copy->second));
    std::vector<std::string> row = {key.operation, key.variant, std::to_string(key.ranks), size_text(bytes),
                                    fixed(ceiling, kCeilingDecimals)};
    for (size_t s = 0; s < data.studies.size(); ++s) row.push_back(share_cell(*points, s, ceiling));
    table.add_row(std::move(row));
  }
  if (table.empty()) return "";
  return "### Against the memory-copy ceiling\n\nOn one node a collective's bytes move through memory, so a rank's "
         "busbw cannot exceed half the memory copy rate of one thread: the engine's probe at the start of every "
         "job counts bytes read plus bytes written (`environment.memory_copy_gbps_per_thread`: a copy out of memory, "
         "not cache, best of 3), "
         "and a shared-memory transport copies every byte of bus traffic at least once. The ceiling is the median "
         "over the engine's jobs at each rank count (peers do not probe; they ran on the same machine in the same "
         "campaign). Each curve at the largest size it measured: smaller messages stay in cache and can pass the "
         "ceiling. Rank counts that oversubscribed the cores are left out: there ranks share a core's copy "
         "rate.\n\n" +
         table.render() + "\n";
}

}  // namespace mt

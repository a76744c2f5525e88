#include "report/model/elsewhere_notes.h"

#include <fmt/format.h>

namespace mt {

std::string elsewhere_notes(const ReportData& data) {
  std::string out;
  for (const auto& campaign : data.campaigns) {
    std::size_t measured = 0, elsewhere = 0;
    for (const auto& t : data.trials) {
      if (t.campaign_id != campaign.id || !t.succeeded()) continue;
      ++measured;
      if (t.job_ranks_here == 0) ++elsewhere;
    }
    if (elsewhere == 0) continue;
    const std::string which = elsewhere == measured
                                  ? fmt::format("All {} measured attempts", measured)
                                  : fmt::format("{} of the {} measured attempts", elsewhere, measured);
    const std::string whose = data.campaigns.size() == 1 ? "" : fmt::format(" of campaign `{}`", campaign.id);
    out += fmt::format(
        "{}{} ran no rank on the host mtrun ran on. The load mtrun records with an attempt is its own host's "
        "(other processes' CPU, steal, CPU pressure), so for these it was not judged: their verdicts rest on "
        "what the ranks measured themselves (their hosts' load where the engine reports it, SGEMM calibration, "
        "memory bandwidth, all-reduce latency, per-step times).\n\n",
        which, whose);
  }
  return out;
}

}  // namespace mt

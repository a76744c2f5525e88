#include "report/model/before_launch_notes.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/quiet_machine.h"

namespace mt {
namespace {

// "10 s", "1.5 s", "2–4 s": measured waits to a tenth, without a trailing ".0".
std::string seconds_text(double s) {
  std::string text = fmt::format("{:.1f}", s);
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

std::string seconds_range(const std::vector<double>& values) {
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const std::string a = seconds_text(*lo), b = seconds_text(*hi);
  return (a == b ? a : a + "–" + b) + " s";
}

// "each of the 120" or "60 of the 120".
std::string how_many(std::size_t k, std::size_t n) {
  return k == n ? fmt::format("each of the {}", n) : fmt::format("{} of the {}", k, n);
}

// "each of the 120 measured attempts", "60 of the 120 measured attempts", "the one measured attempt";
// `whose`: "the" or "its".
std::string measured_attempts(std::size_t k, std::size_t n, const char* whose = "the") {
  if (k == 1 && n == 1) return fmt::format("{} one measured attempt", whose);
  return k == n ? fmt::format("each of {} {} measured attempts", whose, n)
                : fmt::format("{} of {} {} measured attempts", k, whose, n);
}

// How a campaign's measured attempts were settled: how many of them, and for how long.
struct Settling {
  std::size_t settled = 0, measured = 0;
  std::vector<double> waited;  // each settled attempt's settle, in seconds
  std::string seconds;         // "10 s", "2.5–5 s"; "" when none was settled

  explicit Settling(const std::vector<const ReportTrial*>& measured_trials) : measured(measured_trials.size()) {
    for (const ReportTrial* t : measured_trials) {
      if (t->before.settle_s) waited.push_back(*t->before.settle_s);
    }
    settled = waited.size();
    if (!waited.empty()) seconds = seconds_range(waited);
  }
  // What a comparison looks at: none, all or some, and the seconds; not how many attempts there were.
  bool all() const { return settled == measured; }
  bool same_as(const Settling& other) const {
    return (settled == 0) == (other.settled == 0) && all() == other.all() && seconds == other.seconds;
  }
  // "each of its 120 measured attempts settled 10 s", "60 of its 120 …", "none of its 120 … recorded as settled".
  std::string text() const {
    if (settled == 0) {
      return measured == 1 ? "its one measured attempt not recorded as settled"
                           : fmt::format("none of its {} measured attempts recorded as settled", measured);
    }
    return fmt::format("{} settled {}", measured_attempts(settled, measured, "its"), seconds);
  }
};

// The trials of `trials` that gave numbers (a succeeded attempt), of `campaign_id` or, when empty, any.
std::vector<const ReportTrial*> measured_trials(const std::vector<ReportTrial>& trials,
                                                const std::string& campaign_id = "") {
  std::vector<const ReportTrial*> measured;
  for (const auto& t : trials) {
    if (t.succeeded() && (campaign_id.empty() || t.campaign_id == campaign_id)) measured.push_back(&t);
  }
  return measured;
}

// Who looked, following the sentence on settling: "Then it" when the same attempts did both.
std::string quiet_lead(std::size_t looked, std::size_t settled, std::size_t both, std::size_t measured) {
  if (settled == 0) return fmt::format("Before {} mtrun", measured_attempts(looked, measured));
  if (both == looked && both == settled) return "Then it";
  return fmt::format("Before {} it", how_many(looked, measured));
}

// Where a wait came from: the experiment's own key when every attempt waited as it asked (a flag
// could have asked for the same), else the flag. `asked`: the experiment's value, 0 for none.
std::string wait_source(const std::vector<double>& waited, double asked, const char* key, const char* flag) {
  const bool as_asked = asked > 0 && !waited.empty() && std::all_of(waited.begin(), waited.end(), [&](double w) {
                          return w >= asked - 0.05 && w < asked + 1;
                        });
  return as_asked ? fmt::format("the experiment's `{}`", key) : fmt::format("`{}`", flag);
}

// " on the allocation's nodes" where every look was recorded with where it was taken ("on mtrun's
// host or the allocation's nodes" where they differ); "" where any was not (attempts recorded
// before schema version 13), so that nothing is claimed of them.
std::string where_looked(const std::vector<const ReportTrial*>& measured) {
  std::vector<std::string> places;
  for (const ReportTrial* t : measured) {
    if (!t->before.quiet_wait_s) continue;
    const std::string words = quiet_where_words(t->before.quiet_where);
    if (words.empty()) return "";
    if (std::find(places.begin(), places.end(), words) == places.end()) places.push_back(words);
  }
  return places.empty() ? "" : fmt::format(" on {}", fmt::join(places, " or "));
}

std::string campaign_note(const std::vector<const ReportTrial*>& measured, const ConditionsThresholds& asked) {
  const Settling settling(measured);
  std::vector<double> quiet_at_once, quiet_after, busy, unknown;
  std::size_t settled_and_looked = 0;
  for (const ReportTrial* t : measured) {
    const BeforeLaunch& b = t->before;
    if (!b.quiet_wait_s) continue;
    if (b.settle_s) ++settled_and_looked;
    // One look takes a little over kQuietProbeSeconds: only a second look can take twice that.
    if (b.quiet_found == "busy") {
      busy.push_back(*b.quiet_wait_s);
    } else if (b.quiet_found != "quiet") {
      unknown.push_back(*b.quiet_wait_s);
    } else if (*b.quiet_wait_s < 2 * kQuietProbeSeconds) {
      quiet_at_once.push_back(*b.quiet_wait_s);
    } else {
      quiet_after.push_back(*b.quiet_wait_s);
    }
  }
  const std::size_t looked = quiet_at_once.size() + quiet_after.size() + busy.size() + unknown.size();
  if (settling.settled == 0 && looked == 0) return "";
  std::vector<std::string> sentences;
  if (settling.settled > 0) {
    sentences.push_back(fmt::format("Before {} mtrun waited {} with nothing running ({}){}.",
                                    measured_attempts(settling.settled, settling.measured), settling.seconds,
                                    wait_source(settling.waited, asked.settle_s, "settle_s", "run --settle"),
                                    settling.all() ? "" : "; the others without settling"));
  }
  if (looked > 0) {
    std::vector<std::string> found;
    if (!quiet_at_once.empty()) found.push_back(fmt::format("quiet at the first look ({})", quiet_at_once.size()));
    if (!quiet_after.empty())
      found.push_back(fmt::format("quiet after {} ({})", seconds_range(quiet_after), quiet_after.size()));
    if (!busy.empty())
      found.push_back(fmt::format("still busy when the wait ran out after {} ({})", seconds_range(busy), busy.size()));
    if (!unknown.empty()) found.push_back(fmt::format("not measurable here ({})", unknown.size()));
    // A look lasts as long as it takes to find the machine quiet, so only whether the experiment
    // asked for one is known, not for how long: every attempt looked, and it asked.
    const bool asked_to_look = asked.wait_quiet_s > 0 && looked == measured.size();
    sentences.push_back(
        fmt::format("{} looked for a quiet machine{} ({}): {}.",
                    quiet_lead(looked, settling.settled, settled_and_looked, measured.size()), where_looked(measured),
                    asked_to_look ? "the experiment's `wait_quiet_s`" : "`run --wait-quiet`", fmt::join(found, ", ")));
  }
  return fmt::format("{}", fmt::join(sentences, " "));
}

}  // namespace

std::optional<std::string> settling_difference(const std::string& a_name, const std::vector<ReportTrial>& a,
                                               const std::string& b_name, const std::vector<ReportTrial>& b) {
  const Settling settling_a(measured_trials(a)), settling_b(measured_trials(b));
  if (settling_a.same_as(settling_b)) return std::nullopt;
  return fmt::format(
      "Settling before launch differs: {} {}, {} {} (`run --settle`). On a VM a trial started right after "
      "another can lose CPU time to what that one left behind (docs/measurement.md, \"Settling between "
      "trials\"); ratios between them may include that.",
      a_name, settling_a.text(), b_name, settling_b.text());
}

std::string before_launch_notes(const ReportData& data) {
  std::string out;
  for (const auto& campaign : data.campaigns) {
    const auto asked = data.campaign_conditions.find(campaign.id);
    const std::string note =
        campaign_note(measured_trials(data.trials, campaign.id),
                      asked == data.campaign_conditions.end() ? ConditionsThresholds{} : asked->second);
    if (note.empty()) continue;
    out += data.campaigns.size() == 1 ? note : fmt::format("Campaign `{}`: {}", campaign.id, note);
    out += "\n\n";
  }
  return out;
}

}  // namespace mt

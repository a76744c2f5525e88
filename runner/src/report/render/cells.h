#pragma once
// How numbers appear in reports. Fixed decimals and no locale, so the same database always gives
// the same bytes; weak evidence is marked in the cell itself, where a reader cannot miss it.
#include <optional>
#include <string>
#include <vector>

#include "stats.h"
#include "table_cell.h"

namespace mt {

// Markers, explained by kCellLegend wherever they can appear. Fewer successful repeats than
// kRepeatsForSpread make a spread, an interval and a p rough.
inline constexpr int kRepeatsForSpread = 3;
inline constexpr const char* kFewRepeatsMark = "⚠n<3";
inline constexpr const char* kOutlierMark = "⚑";
extern const char* const kCellLegend;
// How the machine qualifies a row: more ranks × threads than cores, no
// more cores than the 1-rank baseline had, fewer measured steps than a stable mean needs. The
// legends explain the first two wherever they appear.
inline constexpr const char* kOversubscribedMark = "⚠oversubscribed";
inline constexpr const char* kSameCoresMark = "⚠same cores";
inline constexpr const char* kShortWindowMark = "⚠short window";
// The step time still moved one way over the measured window, in every repeat alike: faster
// (warm-up not over) or slower (measurement_window.h).
inline constexpr const char* kWarmingMark = "⚠warming";
inline constexpr const char* kSlowingMark = "⚠slowing";
// Every configuration's step time moved one way over the campaign (campaign_drift.h).
inline constexpr const char* kCampaignDriftMark = "⚠campaign drift";
extern const char* const kOversubscribedLegend;
extern const char* const kOversubscribedScalingNote;  // after kOversubscribedLegend, in training tables only
extern const char* const kSameCoresLegend;

// Beyond this magnitude fixed() writes a number with an exponent ("1e+300"), not its digits.
inline constexpr double kFixedLimit = 1e15;
// `value` with `decimals` digits after the point ("-0.0" is printed as "0.0"); "1.235e+20" from
// kFixedLimit up; "inf", "-inf" or "nan" for a value that is not finite.
std::string fixed(double value, int decimals);
// Decimals chosen by magnitude (auto_decimals, table_cell.h), for metrics whose scale the report
// does not know.
std::string auto_number(double value);
// "12.5 %" of a ratio 0.125; "+3.1 %" with sign.
std::string percent(double ratio, int decimals = 1);
std::string signed_percent(double ratio, int decimals = 1);

// "1234.5 ± 6.7", with kFewRepeatsMark when n < 3 and "⚑k" when k values are outliers;
// "-" when there are no values.
std::string mean_std_cell(const Summary& s, int decimals);
// "[1220.1, 1248.9]" or "-" for n < 2.
std::string interval_cell(const std::optional<Interval>& ci, int decimals);
std::string optional_percent(const std::optional<double>& ratio);
// "4" when every value agrees, else mean ± std: runtime facts should be constant, and it shows when
// not; "-" when there are none.
std::string constant_or_mean(const std::vector<double>& values);

// First 12 characters of a trial identity, as `mtrun status` shows it.
std::string short_id(const std::string& identity);

}  // namespace mt

#include "report/model/contrast.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/markdown_table.h"

namespace mt {
namespace {

std::string sample_cell(const Summary& s, int decimals) {
  if (s.n == 0) return "-";
  return fmt::format("{} ({})", mean_std_cell(s, decimals), s.n);
}

std::string verdict(const ContrastRow& r) {
  switch (r.metric.role) {
    case MetricRole::SameMeasurement: return "same measurement as " + r.metric.restates;
    case MetricRole::Context: return "context, not tested";
    case MetricRole::Tested: break;
  }
  switch (untested(r)) {
    case Untested::No: break;
    case Untested::FewRepeats: return "too few repeats";
    case Untested::ZeroMean: return "no ratio (mean 0)";
    case Untested::NotFinite: return "not finite";
  }
  if (*r.adjusted_p >= kNoiseThreshold) return "within noise";
  bool higher = *r.contrast.ratio > 1;
  if (r.metric.higher_is_better) return higher ? "faster" : "slower";
  if (r.metric.better != Better::Unknown) return higher == (r.metric.better == Better::Higher) ? "better" : "worse";
  return higher ? "higher" : "lower";
}

}  // namespace

Untested untested(const ContrastRow& r) {
  if (r.adjusted_p && r.contrast.ratio) return Untested::No;
  const Summary &a = r.contrast.a, &b = r.contrast.b;
  if (a.n < 2 || b.n < 2) return Untested::FewRepeats;
  const bool finite = std::isfinite(a.mean) && std::isfinite(a.std) && std::isfinite(b.mean) && std::isfinite(b.std);
  if (finite && b.mean == 0) return Untested::ZeroMean;
  return Untested::NotFinite;  // a mean, a spread, the ratio or the test overflowed
}

std::string untested_text(Untested why) {
  switch (why) {
    case Untested::No: break;
    case Untested::FewRepeats: return "fewer than two successful repeats on a side";
    case Untested::ZeroMean: return "the mean divided by is 0, so there is no ratio";
    case Untested::NotFinite:
      return "values beyond a double's range: a mean, spread, ratio or test is not finite (infinite or NaN)";
  }
  return "";
}

KeyMetric catalogue_metric(const std::string& name, MetricRole role, std::string restates) {
  const auto info = known_metric(name);
  KeyMetric m{name, 2, role, false, std::move(restates), Better::Unknown};
  if (info) {
    m.decimals = info->decimals;
    m.better = info->better;
  }
  m.higher_is_better = role == MetricRole::Tested && m.better == Better::Higher;
  return m;
}

Better metric_direction(const std::string& metric, const Group& a, const Group& b) {
  if (auto info = known_metric(metric)) return info->better;
  for (const Group* g : {&a, &b}) {
    for (const ReportTrial* t : g->succeeded) {
      auto it = t->declared_better.find(metric);
      if (it == t->declared_better.end()) continue;
      if (auto better = better_from_text(it->second)) return *better;
    }
  }
  return Better::Unknown;
}

std::vector<KeyMetric> key_metrics(const Group& a, const Group& b) {
  if (a.kind == "train") {
    return {catalogue_metric("tokens_per_sec"),
            catalogue_metric("step_time_ms", MetricRole::SameMeasurement, "tokens_per_sec"),
            catalogue_metric("peak_memory_mb", MetricRole::Context)};
  }
  if (a.kind == "comm") {
    return {catalogue_metric("algbw_gbps"), catalogue_metric("latency_us", MetricRole::SameMeasurement, "algbw_gbps")};
  }
  std::set<std::string> names_a, both;
  for (const ReportTrial* t : a.succeeded) {
    for (const auto& [name, v] : t->metrics) names_a.insert(name);
  }
  for (const ReportTrial* t : b.succeeded) {
    for (const auto& [name, v] : t->metrics) {
      if (names_a.count(name) && is_measurement(name)) both.insert(name);
    }
  }
  std::vector<KeyMetric> out;
  for (const auto& name : both) out.push_back({name, 2, MetricRole::Tested, false, "", metric_direction(name, a, b)});
  return out;
}

Contrast contrast(const std::vector<double>& a, const std::vector<double>& b) {
  Contrast out;
  out.a = summarize(a);
  out.b = summarize(b);
  if (out.a.n && out.b.n && out.b.mean != 0 && std::isfinite(out.a.mean / out.b.mean)) {
    out.ratio = out.a.mean / out.b.mean;
  }
  out.test = welch_t_test(a, b);
  return out;
}

std::vector<ContrastRow> decide(std::vector<ContrastRow> rows) {
  std::vector<size_t> tested;
  std::vector<double> p;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].metric.role == MetricRole::Tested && rows[i].contrast.test) {
      tested.push_back(i);
      p.push_back(rows[i].contrast.test->p);
    }
  }
  std::vector<double> adjusted = holm_adjust(p);
  for (size_t k = 0; k < tested.size(); ++k) rows[tested[k]].adjusted_p = adjusted[k];
  for (auto& r : rows) r.verdict = verdict(r);
  return rows;
}

int tested_count(const std::vector<ContrastRow>& rows) {
  int n = 0;
  for (const auto& r : rows) n += r.adjusted_p ? 1 : 0;
  return n;
}

std::string verdict_rules(int tested) {
  return fmt::format(
      "Each pair gets one verdict per measurement: training tests tokens/s (step ms is the same measurement "
      "seen the other way, peak MiB is context), collectives test algbw (latency restates it), other workloads "
      "test every metric. p is the two-sided Welch t-test (unequal variances, Welch–Satterthwaite degrees of "
      "freedom); {} made here, so p (Holm) corrects for making them together (Holm–Bonferroni) and decides the "
      "verdict: *within noise* at p (Holm) ≥ {:.2f}. A test needs two successful repeats a side.",
      tested == 1 ? "1 test was" : fmt::format("{} tests were", tested), kNoiseThreshold);
}

std::string p_text(double p) { return p < 0.001 ? "< 0.001" : fixed(p, 3); }

std::string p_relation(double p) { return p < 0.001 ? "< 0.001" : "= " + fixed(p, 3); }

std::string render_contrasts(const std::vector<ContrastRow>& rows, const ContrastColumns& columns) {
  MarkdownTable table({{columns.pair},
                       {"metric"},
                       {columns.a, Align::Right},
                       {columns.b, Align::Right},
                       {columns.ratio, Align::Right},
                       {"p", Align::Right},
                       {"p (Holm)", Align::Right},
                       {"verdict"}});
  for (const auto& r : rows) {
    const bool tested = r.metric.role == MetricRole::Tested;
    table.add_row({r.pair, r.metric.name, sample_cell(r.contrast.a, r.metric.decimals),
                   sample_cell(r.contrast.b, r.metric.decimals), r.contrast.ratio ? fixed(*r.contrast.ratio, 3) : "-",
                   tested && r.contrast.test ? p_text(r.contrast.test->p) : "-",
                   r.adjusted_p ? p_text(*r.adjusted_p) : "-", r.verdict});
  }
  return table.render();
}

}  // namespace mt

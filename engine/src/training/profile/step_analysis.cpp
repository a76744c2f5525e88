#include "training/profile/step_analysis.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

namespace mt {
namespace {

nlohmann::json stats(const std::vector<double>& values) {
  if (values.empty()) return {{"n", 0}};
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / values.size();
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  const double std = values.size() > 1 ? std::sqrt(squares / (values.size() - 1)) : 0.0;
  return {{"n", values.size()},
          {"mean", mean},
          {"std", std},
          {"min", *std::min_element(values.begin(), values.end())},
          {"max", *std::max_element(values.begin(), values.end())}};
}

}  // namespace

std::vector<StepProfile> profile_steps(const std::vector<TraceSpan>& spans, int64_t first_measured) {
  std::map<int64_t, StepProfile> steps;
  std::map<int64_t, std::vector<Interval>> communication, compute, waits;
  for (const auto& s : spans) {
    if (s.step < first_measured) continue;
    StepProfile& p = steps[s.step];
    p.step = s.step;
    const double ms = (s.end_us - s.start_us) / 1000.0;
    const Interval interval{s.start_us, s.end_us};
    if (s.category == "step") p.step_ms += ms;
    else if (s.category == "data") p.data_ms += ms;
    else if (s.category == "compute_phase") p.compute_ms += ms, compute[s.step].push_back(interval);
    else if (s.category == "optimizer_phase") p.optimizer_ms += ms, compute[s.step].push_back(interval);
    else if (s.category == "wait") waits[s.step].push_back(interval);
    else if (s.category == "collective") communication[s.step].push_back(interval), ++p.collectives;
  }
  std::vector<StepProfile> out;
  for (auto& [step, p] : steps) {
    if (p.step_ms <= 0) continue;  // a step without its boundary span (cut short) is not a step
    p.exposure = exposure(communication[step], subtracted(compute[step], waits[step]));
    out.push_back(p);
  }
  return out;
}

nlohmann::json summarize_steps(const std::vector<StepProfile>& steps) {
  auto collect = [&](const std::function<double(const StepProfile&)>& f) {
    std::vector<double> values;
    for (const auto& s : steps) values.push_back(f(s));
    return stats(values);
  };
  return {{"steps", steps.size()},
          {"step_ms", collect([](const StepProfile& s) { return s.step_ms; })},
          {"data_ms", collect([](const StepProfile& s) { return s.data_ms; })},
          {"forward_backward_ms", collect([](const StepProfile& s) { return s.compute_ms; })},
          {"optimizer_ms", collect([](const StepProfile& s) { return s.optimizer_ms; })},
          {"communication_ms", collect([](const StepProfile& s) { return s.exposure.communication_us / 1000; })},
          {"exposed_communication_ms", collect([](const StepProfile& s) { return s.exposure.exposed_us / 1000; })},
          {"overlap_fraction", collect([](const StepProfile& s) { return s.exposure.overlap_fraction; })},
          {"collectives_per_step", collect([](const StepProfile& s) { return static_cast<double>(s.collectives); })}};
}

}  // namespace mt

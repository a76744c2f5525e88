#include "matrix.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "identity.h"

namespace mt {
namespace {

std::string canonical_text(const Trial& t) {
  std::string text = fmt::format("study={}\nworkload={}\n", t.study, t.workload);
  for (const auto& p : t.params) text += fmt::format("{}={}\n", p.name, p.value);
  for (const auto& a : t.engine_args) text += fmt::format("arg={}\n", a);
  for (const auto& e : t.environment) text += fmt::format("env.{}={}\n", e.name, e.value);
  return text;
}

Trial make_trial(const Study& study, const std::map<std::string, std::string>& values, int repeat) {
  Trial t;
  t.study = study.name;
  t.workload = study.workload;
  t.repeat_index = repeat;
  t.timeout_s = study.timeout_s;
  for (const auto& [name, value] : values) t.params.push_back({name, value});  // std::map: sorted
  for (const auto& axis : study.axes) t.axis_names.push_back(axis.name);
  t.engine_args = study.engine_args;
  t.ranks = std::stoi(t.param("ranks", "1"));
  std::string text = canonical_text(t);
  t.group_key = content_hash(text);
  t.identity = content_hash(text + fmt::format("repeat={}\n", repeat));
  return t;
}

void expand_study(const Study& study, std::vector<Trial>& out) {
  std::map<std::string, std::string> base;
  for (const auto& d : study.defaults) base[d.name] = d.value.text;
  // Odometer over axis value indices; the last axis turns fastest.
  std::vector<std::map<std::string, std::string>> combinations;
  std::vector<size_t> index(study.axes.size(), 0);
  while (true) {
    auto values = base;
    for (size_t a = 0; a < study.axes.size(); ++a) values[study.axes[a].name] = study.axes[a].values[index[a]].text;
    combinations.push_back(std::move(values));
    size_t a = study.axes.size();
    while (a > 0 && ++index[a - 1] == study.axes[a - 1].values.size()) {
      index[a - 1] = 0;
      --a;
    }
    if (a == 0) break;  // every axis wrapped: all combinations done
  }
  for (int r = 0; r < study.repeat; ++r) {
    for (const auto& values : combinations) out.push_back(make_trial(study, values, r));
  }
}

}  // namespace

std::string Trial::param(const std::string& name, const std::string& fallback) const {
  for (const auto& p : params) {
    if (p.name == name) return p.value;
  }
  return fallback;
}

std::string Trial::axes_label() const {
  std::string label;
  for (const auto& axis : axis_names) {
    if (!label.empty()) label += ' ';
    label += fmt::format("{}={}", axis, param(axis));
  }
  return label;
}

std::vector<Trial> expand_experiment(const Experiment& experiment) {
  std::vector<Trial> trials;
  for (const auto& study : experiment.studies) expand_study(study, trials);
  return trials;
}

std::string plan_hash(const std::vector<Trial>& trials) {
  std::string text;
  for (const auto& t : trials) text += t.identity + '\n';
  return content_hash(text);
}

}  // namespace mt

#pragma once
// A named value of a trial: a parameter, an environment variable, a derived value.
#include <algorithm>
#include <string>
#include <vector>

namespace mt {

struct Param {
  std::string name;
  std::string value;
};

// Sets `name` in a list kept sorted by name (a trial's parameters).
inline void set_param(std::vector<Param>& params, const std::string& name, const std::string& value) {
  auto it = std::lower_bound(params.begin(), params.end(), name,
                             [](const Param& p, const std::string& n) { return p.name < n; });
  if (it != params.end() && it->name == name) {
    it->value = value;
  } else {
    params.insert(it, {name, value});
  }
}

}  // namespace mt

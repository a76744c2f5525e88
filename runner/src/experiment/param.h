#pragma once
// A named value of a trial: a parameter, an environment variable, a derived value.
#include <string>

namespace mt {

struct Param {
  std::string name;
  std::string value;
};

}  // namespace mt

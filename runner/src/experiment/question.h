#pragma once
// A question an experiment exists to answer: how `metric` of each value of the axis `compare`
// stands against its `baseline` value, separately at each value of the `within` axes. Reports open
// with their answers (report/model/answers.h); a study may scope a question to its own trials.
#include <string>
#include <vector>

#include "experiment/diagnostic.h"

namespace mt {

// Not a parameter: the axis that tells studies apart ("compare: study, baseline: mtengine").
inline constexpr const char* kStudyAxis = "study";

struct Question {
  std::string metric;               // as stored: "tokens_per_sec"
  std::string compare;              // an axis (a parameter, or "study")
  std::string baseline;             // one of its values
  std::vector<std::string> within;  // axes whose values are held equal on both sides
  std::string better;               // "higher" or "lower" when declared; "" when the catalogue knows
  std::string study;                // the study that declared it; "" for the whole experiment
  SourcePos pos;
  // The configurations it looks at: an expression over axes (experiment/expression.h), e.g.
  // "bytes >= 1048576"; a configuration lacking an axis it names is left out. "": all of them.
  std::string where;
};

}  // namespace mt

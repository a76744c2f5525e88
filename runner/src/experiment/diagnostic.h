#pragma once
// A message about user input that points at the place it came from: file, line, column.
#include <string>
#include <vector>

#include "experiment/suggestion.h"  // did_you_mean, for the messages

namespace mt {

// 1-based position in a source file; line 0 means "no position known".
struct SourcePos {
  int line = 0;
  int column = 0;
};

struct Diagnostic {
  std::string file;
  SourcePos pos;
  std::string message;
};

// "FILE:LINE:COL: message" followed by the offending source line and a caret under the column,
// when the file can be read and the position is known; where the place is inside a YAML anchor's
// value that aliases use again, a "FILE:LINE:COL: note: alias *b ..." line at each of them
// (experiment/yaml_anchors.h).
std::string format_diagnostic(const Diagnostic& d);
// Each in turn, the same problem at the same place inside an aliased anchor said once; past 50,
// the rest are counted.
std::string format_diagnostics(const std::vector<Diagnostic>& ds);

}  // namespace mt

#pragma once
// A message about user input that points at the place it came from: file, line, column.
#include <string>
#include <vector>

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
// when the file can be read and the position is known.
std::string format_diagnostic(const Diagnostic& d);
std::string format_diagnostics(const std::vector<Diagnostic>& ds);

// The candidate closest to `word` by edit distance, or "" when none is close enough to be a typo.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" — ready to append to a message.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace mt

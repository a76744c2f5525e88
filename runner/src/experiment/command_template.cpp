#include "experiment/command_template.h"

#include <fmt/format.h>

namespace mt {

const std::vector<std::string> kTemplateBuiltins = {"result_file",  "run_dir", "experiment_dir",
                                                    "repeat_index", "ranks",   "trial"};

std::optional<std::string> expand_template(const std::string& word, const TemplateLookup& lookup, std::string& error) {
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    char c = word[i];
    if ((c == '{' || c == '}') && i + 1 < word.size() && word[i + 1] == c) {
      out += c;
      ++i;
    } else if (c == '{') {
      size_t close = word.find('}', i);
      if (close == std::string::npos) {
        error = fmt::format("'{}' has a '{{' without '}}' (write '{{{{' for a literal brace)", word);
        return std::nullopt;
      }
      std::string name = word.substr(i + 1, close - i - 1);
      auto value = lookup(name);
      if (!value) {
        error = fmt::format("'{}' uses '{{{}}}', which is not a parameter of this study", word, name);
        return std::nullopt;
      }
      out += *value;
      i = close;
    } else if (c == '}') {
      error = fmt::format("'{}' has a '}}' without '{{' (write '}}}}' for a literal brace)", word);
      return std::nullopt;
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> template_names(const std::string& word) {
  std::vector<std::string> names;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '{' && i + 1 < word.size() && word[i + 1] == '{') {
      ++i;
    } else if (word[i] == '{') {
      size_t close = word.find('}', i);
      if (close == std::string::npos) break;
      names.push_back(word.substr(i + 1, close - i - 1));
      i = close;
    }
  }
  return names;
}

}  // namespace mt

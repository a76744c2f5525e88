#include <doctest/doctest.h>

#include <map>

#include "experiment/command_template.h"

using namespace mt;

namespace {
std::string expand(const std::string& word) {
  std::map<std::string, std::string> values = {{"batch_size", "4"}, {"label", "$(rm -rf /); echo"}};
  std::string error;
  auto out = expand_template(
      word,
      [&](const std::string& name) -> std::optional<std::string> {
        auto it = values.find(name);
        return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      error);
  return out ? *out : "error: " + error;
}
}  // namespace

TEST_CASE("placeholders are replaced inside one word, braces can be escaped") {
  CHECK(expand("--batch={batch_size}") == "--batch=4");
  CHECK(expand("{batch_size}{batch_size}") == "44");
  CHECK(expand("{{literal}}") == "{literal}");
  CHECK(expand("{label}") == "$(rm -rf /); echo");  // one argv word, never interpreted
}

TEST_CASE("unknown names and stray braces are errors") {
  CHECK(expand("{nope}") == "error: '{nope}' uses '{nope}', which is not a parameter of this study");
  CHECK(expand("{open") == "error: '{open' has a '{' without '}' (write '{{' for a literal brace)");
  CHECK(expand("close}") == "error: 'close}' has a '}' without '{' (write '}}' for a literal brace)");
  CHECK(template_names("a{x}b{{c}}{y}") == std::vector<std::string>{"x", "y"});
}

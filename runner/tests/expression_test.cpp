#include <doctest/doctest.h>

#include <map>

#include "experiment/expression.h"

using namespace mt;

namespace {

// Evaluates `source` over `params`; returns the value's parameter text or "error: …".
std::string eval(const std::string& source, const std::map<std::string, std::string>& params = {}) {
  std::string error;
  int column = 0;
  auto e = Expression::parse(source, error, column);
  if (!e) return "parse error at " + std::to_string(column) + ": " + error;
  auto v = e->evaluate(
      [&](const std::string& name) -> std::optional<std::string> {
        auto it = params.find(name);
        return it == params.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      error);
  return v ? v->to_param() : "error: " + error;
}

}  // namespace

TEST_CASE("arithmetic, precedence and comparison") {
  CHECK(eval("1 + 2 * 3") == "7");
  CHECK(eval("(1 + 2) * 3") == "9");
  CHECK(eval("7 % 4 - -1") == "4");
  CHECK(eval("3 / 2") == "1.5");
  CHECK(eval("batch_size * ranks", {{"batch_size", "4"}, {"ranks", "2"}}) == "8");
  CHECK(eval("ranks >= 2 and strategy == 'fsdp'", {{"ranks", "2"}, {"strategy", "fsdp"}}) == "1");
  CHECK(eval("not (ranks == 1) or false", {{"ranks", "1"}}) == "0");
  CHECK(eval("flag == true", {{"flag", "true"}}) == "1");
  CHECK(eval("'a' + 'b' == \"ab\"") == "1");
}

TEST_CASE("errors name what went wrong and where") {
  CHECK(eval("1 +") == "parse error at 4: expression ends too early");
  CHECK(eval("(1 + 2") == "parse error at 7: expected ')'");
  CHECK(eval("1 # 2") == "parse error at 3: unexpected character '#'");
  CHECK(eval("'open") == "parse error at 1: unterminated string");
  CHECK(eval("x + 1") == "error: 'x' is not defined for this trial");
  CHECK(eval("1 / 0") == "error: division by zero");
  CHECK(eval("s < 2", {{"s", "ddp"}}) == "error: '<' needs two numbers or two texts, got 'ddp' and 2");
}

TEST_CASE("names lists every identifier used") {
  std::string error;
  int column = 0;
  auto e = Expression::parse("a * b + (c == 'x')", error, column);
  REQUIRE(e);
  CHECK(e->names() == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("nesting deeper than the limit is a positioned error, not a stack overflow") {
  auto repeated = [](const std::string& piece, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += piece;
    return out;
  };
  const std::string limit = std::to_string(kMaxExpressionDepth);
  CHECK(eval(repeated("(", 10000) + "1" + repeated(")", 10000)) ==
        "parse error at 101: expression nests deeper than " + limit + " levels");
  CHECK(eval(repeated("not ", 200000) + "1") ==
        "parse error at 401: expression nests deeper than " + limit + " levels");
  CHECK(eval(repeated("-", 100000) + "1") == "parse error at 101: expression nests deeper than " + limit + " levels");
  // Chains recurse when evaluated, not when parsed: the operator that makes one too deep is named.
  CHECK(eval("1" + repeated(" + 1", 100000)) ==
        "parse error at 399: expression nests deeper than " + limit + " levels");
  CHECK(eval("x" + repeated(" and x", 5000), {{"x", "1"}}) ==
        "parse error at 597: expression nests deeper than " + limit + " levels");
  // Up to the limit everything still works.
  CHECK(eval(repeated("(", kMaxExpressionDepth - 1) + "2" + repeated(")", kMaxExpressionDepth - 1)) == "2");
  CHECK(eval("1" + repeated(" + 1", kMaxExpressionDepth - 1)) == std::to_string(kMaxExpressionDepth));
  CHECK(eval(repeated("not ", kMaxExpressionDepth - 1) + "0") == "1");
}

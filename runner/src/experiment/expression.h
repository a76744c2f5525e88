#pragma once
// A small expression language for experiment files: `where` filters and derived values.
//   where: "ranks * batch_size <= 64 and not (strategy == 'fsdp' and ranks == 1)"
//   derived: {global_batch: "batch_size * ranks"}
// Numbers, 'strings', true/false, parameter names; + - * / %; == != < <= > >=; and or not; ( ).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mt {

// Deepest nesting of parentheses, `not`, `-` and chained operators an expression may have; deeper
// ones are refused with a positioned error instead of exhausting the stack.
constexpr int kMaxExpressionDepth = 100;

struct ExprValue {
  bool is_number = true;
  double number = 0;
  std::string text;

  static ExprValue of_number(double n) { return {true, n, {}}; }
  static ExprValue of_text(std::string s) { return {false, 0, std::move(s)}; }
  // A parameter's text as the language sees it: numbers and true/false become numbers.
  static ExprValue from_param(const std::string& text);
  bool truthy() const { return is_number ? number != 0 : !text.empty(); }
  // Back to parameter text: integral numbers without a decimal point.
  std::string to_param() const;
};

struct ExprNode;

class Expression {
 public:
  // Parses `source`; on error returns nullopt and sets `error` and the 1-based `error_column`.
  static std::optional<Expression> parse(const std::string& source, std::string& error, int& error_column);

  // Looks a name up; nullopt when the name is not defined for this trial.
  using Lookup = std::function<std::optional<std::string>(const std::string&)>;
  // Evaluates; on error (unknown name, wrong types, division by zero) returns nullopt and sets `error`.
  std::optional<ExprValue> evaluate(const Lookup& lookup, std::string& error) const;

  // Every name the expression refers to.
  std::vector<std::string> names() const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::shared_ptr<const ExprNode> root_;
};

}  // namespace mt

#include "experiment/expression_reader.h"

#include <fmt/format.h>

#include "experiment/expression.h"

namespace mt {
namespace {

// Position of an expression's first character: a quoted scalar starts one column later.
SourcePos expression_pos(const YAML::Node& node) {
  SourcePos pos = pos_of(node);
  if (node.Tag() == "!") pos.column += 1;
  return pos;
}

}  // namespace

std::optional<ExpressionText> read_expression(YamlReader& r, const YAML::Node& node, const std::string& what) {
  auto text = r.scalar(node, what);
  if (!text) return std::nullopt;
  ExpressionText e{*text, expression_pos(node)};
  std::string error;
  int column = 0;
  if (!Expression::parse(e.text, error, column)) {
    r.error({e.pos.line, e.pos.column + column - 1}, fmt::format("{}: {}", what, error));
    return std::nullopt;
  }
  return e;
}

}  // namespace mt

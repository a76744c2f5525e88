#include "experiment/expression.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace mt {

struct ExprNode {
  enum Kind { Number, Text, Name, Unary, Binary } kind;
  std::string op;  // operator, or the name / text
  double number = 0;
  std::shared_ptr<const ExprNode> left, right;
  int height = 1;  // levels below and including this node: what evaluating it recurses through
};

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;

struct Token {
  enum Kind { Number, Text, Name, Op, End } kind;
  std::string text;
  double number = 0;
  int column = 0;  // 1-based
};

struct ParseError {
  std::string message;
  int column;
};

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    int column = int(i) + 1;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(s[i + 1]))) {
      char* end = nullptr;
      double v = std::strtod(s.c_str() + i, &end);
      size_t len = size_t(end - (s.c_str() + i));
      tokens.push_back({Token::Number, s.substr(i, len), v, column});
      i += len;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.')) ++j;
      tokens.push_back({Token::Name, s.substr(i, j - i), 0, column});
      i = j;
    } else if (c == '\'' || c == '"') {
      size_t j = s.find(c, i + 1);
      if (j == std::string::npos) throw ParseError{"unterminated string", column};
      tokens.push_back({Token::Text, s.substr(i + 1, j - i - 1), 0, column});
      i = j + 1;
    } else {
      static const char* two[] = {"==", "!=", "<=", ">="};
      std::string op(1, c);
      for (const char* t : two) {
        if (s.compare(i, 2, t) == 0) op = t;
      }
      if (std::string("+-*/%<>()").find(c) == std::string::npos && op.size() == 1) {
        throw ParseError{fmt::format("unexpected character '{}'", c), column};
      }
      tokens.push_back({Token::Op, op, 0, column});
      i += op.size();
    }
  }
  tokens.push_back({Token::End, "", 0, int(s.size()) + 1});
  return tokens;
}

// Parsing and evaluation recurse once per level of nesting; beyond this a file could crash mtrun.
constexpr int kMaxDepth = kMaxExpressionDepth;

ParseError too_deep(int column) {
  return ParseError{fmt::format("expression nests deeper than {} levels", kMaxDepth), column};
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  NodePtr parse() {
    NodePtr e = parse_or();
    if (peek().kind != Token::End) throw ParseError{fmt::format("unexpected '{}'", peek().text), peek().column};
    return e;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  bool accept_word(const char* word) {
    if (peek().kind == Token::Name && peek().text == word) return ++pos_, true;
    return false;
  }
  bool accept_op(const std::string& op) {
    if (peek().kind == Token::Op && peek().text == op) return ++pos_, true;
    return false;
  }
  // Column of the token just accepted: where a too-deep operator is reported.
  int last_column() const { return tokens_[pos_ - 1].column; }

  // Counts the recursion of a nested '(', 'not' or '-' before it happens.
  class Nesting {
   public:
    Nesting(Parser& parser, int column) : parser_(parser) {
      if (++parser_.depth_ > kMaxDepth) throw too_deep(column);
    }
    ~Nesting() { --parser_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& parser_;
  };

  static NodePtr unary(std::string op, NodePtr operand, int column) {
    const int height = operand->height + 1;
    if (height > kMaxDepth) throw too_deep(column);
    return std::make_shared<ExprNode>(ExprNode{ExprNode::Unary, std::move(op), 0, std::move(operand), {}, height});
  }
  // Chains such as a + b + c + … grow the tree without recursing while parsing; evaluation would.
  static NodePtr binary(std::string op, NodePtr l, NodePtr r, int column) {
    const int height = std::max(l->height, r->height) + 1;
    if (height > kMaxDepth) throw too_deep(column);
    return std::make_shared<ExprNode>(ExprNode{ExprNode::Binary, std::move(op), 0, std::move(l), std::move(r), height});
  }

  NodePtr parse_or() {
    NodePtr l = parse_and();
    while (accept_word("or")) {
      const int column = last_column();
      l = binary("or", l, parse_and(), column);
    }
    return l;
  }
  NodePtr parse_and() {
    NodePtr l = parse_not();
    while (accept_word("and")) {
      const int column = last_column();
      l = binary("and", l, parse_not(), column);
    }
    return l;
  }
  NodePtr parse_not() {
    if (!accept_word("not")) return parse_comparison();
    const int column = last_column();
    Nesting nesting(*this, column);
    return unary("not", parse_not(), column);
  }
  NodePtr parse_comparison() {
    NodePtr l = parse_sum();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (accept_op(op)) {
        const int column = last_column();
        return binary(op, l, parse_sum(), column);
      }
    }
    return l;
  }
  // Left-associative operators of one precedence level: `ops` over operands from `next`.
  template <typename Next>
  NodePtr parse_chain(std::initializer_list<const char*> ops, Next next) {
    NodePtr l = (this->*next)();
    while (true) {
      const char* matched = nullptr;
      for (const char* op : ops) {
        if (!matched && accept_op(op)) matched = op;
      }
      if (!matched) return l;
      const int column = last_column();
      l = binary(matched, l, (this->*next)(), column);
    }
  }
  NodePtr parse_sum() { return parse_chain({"+", "-"}, &Parser::parse_product); }
  NodePtr parse_product() { return parse_chain({"*", "/", "%"}, &Parser::parse_unary); }
  NodePtr parse_unary() {
    if (!accept_op("-")) return parse_primary();
    const int column = last_column();
    Nesting nesting(*this, column);
    return unary("-", parse_unary(), column);
  }
  NodePtr parse_primary() {
    const Token t = peek();
    switch (t.kind) {
      case Token::Number:
        ++pos_;
        return std::make_shared<ExprNode>(ExprNode{ExprNode::Number, t.text, t.number, {}, {}, 1});
      case Token::Text: ++pos_; return std::make_shared<ExprNode>(ExprNode{ExprNode::Text, t.text, 0, {}, {}, 1});
      case Token::Name:
        if (t.text == "and" || t.text == "or" || t.text == "not") break;
        ++pos_;
        if (t.text == "true" || t.text == "false") {
          return std::make_shared<ExprNode>(
              ExprNode{ExprNode::Number, t.text, t.text == "true" ? 1.0 : 0.0, {}, {}, 1});
        }
        return std::make_shared<ExprNode>(ExprNode{ExprNode::Name, t.text, 0, {}, {}, 1});
      case Token::Op:
        if (t.text == "(") {
          ++pos_;
          Nesting nesting(*this, t.column);
          NodePtr e = parse_or();
          if (!accept_op(")")) throw ParseError{"expected ')'", peek().column};
          return e;
        }
        break;
      case Token::End: throw ParseError{"expression ends too early", t.column};
    }
    throw ParseError{fmt::format("unexpected '{}'", t.text), t.column};
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;  // nested '(', 'not' and '-' being parsed
};

struct EvalError {
  std::string message;
};

ExprValue eval(const ExprNode& n, const Expression::Lookup& lookup) {
  switch (n.kind) {
    case ExprNode::Number: return ExprValue::of_number(n.number);
    case ExprNode::Text: return ExprValue::of_text(n.op);
    case ExprNode::Name: {
      auto v = lookup(n.op);
      if (!v) throw EvalError{fmt::format("'{}' is not defined for this trial", n.op)};
      return ExprValue::from_param(*v);
    }
    case ExprNode::Unary: {
      ExprValue v = eval(*n.left, lookup);
      if (n.op == "not") return ExprValue::of_number(v.truthy() ? 0 : 1);
      if (!v.is_number) throw EvalError{fmt::format("cannot negate text '{}'", v.text)};
      return ExprValue::of_number(-v.number);
    }
    case ExprNode::Binary: break;
  }
  if (n.op == "and") return ExprValue::of_number(eval(*n.left, lookup).truthy() && eval(*n.right, lookup).truthy());
  if (n.op == "or") return ExprValue::of_number(eval(*n.left, lookup).truthy() || eval(*n.right, lookup).truthy());
  ExprValue a = eval(*n.left, lookup), b = eval(*n.right, lookup);
  if (n.op == "==" || n.op == "!=") {
    bool equal = a.is_number == b.is_number && (a.is_number ? a.number == b.number : a.text == b.text);
    return ExprValue::of_number((n.op == "==") == equal);
  }
  auto show = [](const ExprValue& v) { return v.is_number ? v.to_param() : "'" + v.text + "'"; };
  const bool arithmetic = std::string("+-*/%").find(n.op) != std::string::npos;
  if (arithmetic && !(a.is_number && b.is_number) && !(n.op == "+" && !a.is_number && !b.is_number)) {
    throw EvalError{fmt::format("'{}' needs numbers, got {} and {}", n.op, show(a), show(b))};
  }
  if (a.is_number != b.is_number) {
    throw EvalError{fmt::format("'{}' needs two numbers or two texts, got {} and {}", n.op, show(a), show(b))};
  }
  if (n.op == "<") return ExprValue::of_number(a.is_number ? a.number < b.number : a.text < b.text);
  if (n.op == "<=") return ExprValue::of_number(a.is_number ? a.number <= b.number : a.text <= b.text);
  if (n.op == ">") return ExprValue::of_number(a.is_number ? a.number > b.number : a.text > b.text);
  if (n.op == ">=") return ExprValue::of_number(a.is_number ? a.number >= b.number : a.text >= b.text);
  if (!a.is_number) return ExprValue::of_text(a.text + b.text);  // text + text
  if (n.op == "+") return ExprValue::of_number(a.number + b.number);
  if (n.op == "-") return ExprValue::of_number(a.number - b.number);
  if (n.op == "*") return ExprValue::of_number(a.number * b.number);
  if (b.number == 0) throw EvalError{"division by zero"};
  if (n.op == "/") return ExprValue::of_number(a.number / b.number);
  return ExprValue::of_number(std::fmod(a.number, b.number));
}

void collect_names(const ExprNode& n, std::vector<std::string>& out) {
  if (n.kind == ExprNode::Name) out.push_back(n.op);
  if (n.left) collect_names(*n.left, out);
  if (n.right) collect_names(*n.right, out);
}

}  // namespace

ExprValue ExprValue::from_param(const std::string& text) {
  if (text == "true") return of_number(1);
  if (text == "false") return of_number(0);
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return of_number(v);
  return of_text(text);
}

std::string ExprValue::to_param() const {
  if (!is_number) return text;
  if (std::isfinite(number) && number == std::floor(number) && std::fabs(number) < 1e15) {
    return fmt::format("{}", static_cast<long long>(number));
  }
  return fmt::format("{}", number);
}

std::optional<Expression> Expression::parse(const std::string& source, std::string& error, int& error_column) {
  try {
    Expression e;
    e.source_ = source;
    e.root_ = Parser(tokenize(source)).parse();
    return e;
  } catch (const ParseError& p) {
    error = p.message;
    error_column = p.column;
    return std::nullopt;
  }
}

std::optional<ExprValue> Expression::evaluate(const Lookup& lookup, std::string& error) const {
  try {
    return eval(*root_, lookup);
  } catch (const EvalError& e) {
    error = e.message;
    return std::nullopt;
  }
}

std::vector<std::string> Expression::names() const {
  std::vector<std::string> out;
  collect_names(*root_, out);
  return out;
}

}  // namespace mt

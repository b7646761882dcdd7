#include "task/expression.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <utility>

namespace kernelarc::task {

namespace {

constexpr std::size_t kMaxShownTextLength = 200;

std::string shown_text(std::string_view text) {
  if (text.size() <= kMaxShownTextLength) return std::string(text);
  return std::string(text.substr(0, kMaxShownTextLength)) + "...";
}

std::string format_number(double value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string build_message(std::string_view text, std::size_t column, std::string_view problem) {
  return "expression \"" + shown_text(text) + "\", column " + std::to_string(column) + ": " +
         std::string(problem);
}

}  // namespace

ExpressionError::ExpressionError(std::string_view expression_text, std::size_t column,
                                 std::string_view problem)
    : std::runtime_error(build_message(expression_text, column, problem)), column_(column) {}

namespace expression_detail {

enum class UnaryOperator { Negate, Identity, Not };

enum class BinaryOperator {
  Or,
  And,
  Equal,
  NotEqual,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  Add,
  Subtract,
  Multiply,
  Divide,
  FloorDivide,
  Modulo,
  Power,
};

enum class Function { Min, Max, CeilDiv, Floor, Ceil, Abs, Sqrt, Log2 };

struct Node {
  enum class Kind { Number, Variable, Unary, Binary, Call };

  Kind kind = Kind::Number;
  std::size_t column = 0;
  double number = 0.0;
  std::string name;  // variable or function name
  UnaryOperator unary_operator = UnaryOperator::Identity;
  BinaryOperator binary_operator = BinaryOperator::Add;
  Function function = Function::Min;
  std::vector<std::unique_ptr<const Node>> operands;
};

using NodePtr = std::unique_ptr<const Node>;

}  // namespace expression_detail

struct Expression::Compiled {
  std::string text;
  expression_detail::NodePtr root;
  std::vector<std::string> variables;
};

namespace expression_detail {
namespace {

// ---------------------------------------------------------------------------------------------
// Tokens

struct Token {
  enum class Kind { Number, Identifier, Symbol, End };

  Kind kind = Kind::End;
  std::string_view lexeme;
  std::size_t column = 0;
  double number = 0.0;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_identifier_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_identifier_char(char c) { return is_identifier_start(c) || is_digit(c); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

constexpr std::array<std::string_view, 8> kTwoCharSymbols = {"**", "//", "==", "!=", "<=", ">=", "&&", "||"};
constexpr std::string_view kOneCharSymbols = "+-*/%<>!(),";

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : text_(text) {}

  std::vector<Token> tokenize() {
    std::vector<Token> tokens;
    while (position_ < text_.size()) {
      const char c = text_[position_];
      if (is_space(c)) {
        ++position_;
      } else if (is_digit(c) || (c == '.' && position_ + 1 < text_.size() && is_digit(text_[position_ + 1]))) {
        tokens.push_back(read_number());
      } else if (is_identifier_start(c)) {
        tokens.push_back(read_identifier());
      } else {
        tokens.push_back(read_symbol());
      }
    }
    tokens.push_back(Token{Token::Kind::End, {}, text_.size(), 0.0});
    return tokens;
  }

 private:
  [[noreturn]] void fail(std::size_t column, std::string_view problem) const {
    throw ExpressionError(text_, column, problem);
  }

  void skip_digits() {
    while (position_ < text_.size() && is_digit(text_[position_])) ++position_;
  }

  Token read_number() {
    const std::size_t start = position_;
    skip_digits();
    if (position_ < text_.size() && text_[position_] == '.') {
      ++position_;
      skip_digits();
    }
    if (position_ < text_.size() && (text_[position_] == 'e' || text_[position_] == 'E')) {
      ++position_;
      if (position_ < text_.size() && (text_[position_] == '+' || text_[position_] == '-')) ++position_;
      if (position_ >= text_.size() || !is_digit(text_[position_])) {
        fail(start, "malformed number '" + std::string(text_.substr(start, position_ - start)) +
                        "': exponent needs digits");
      }
      skip_digits();
    }
    const std::string_view lexeme = text_.substr(start, position_ - start);
    double value = 0.0;
    const auto result = std::from_chars(lexeme.data(), lexeme.data() + lexeme.size(), value);
    if (result.ec == std::errc::result_out_of_range || (result.ec == std::errc() && !std::isfinite(value))) {
      fail(start, "number '" + std::string(lexeme) + "' is out of range");
    }
    if (result.ec != std::errc() || result.ptr != lexeme.data() + lexeme.size()) {
      fail(start, "malformed number '" + std::string(lexeme) + "'");
    }
    return Token{Token::Kind::Number, lexeme, start, value};
  }

  Token read_identifier() {
    const std::size_t start = position_;
    while (position_ < text_.size() && is_identifier_char(text_[position_])) ++position_;
    return Token{Token::Kind::Identifier, text_.substr(start, position_ - start), start, 0.0};
  }

  Token read_symbol() {
    const std::size_t start = position_;
    const std::string_view rest = text_.substr(start);
    for (const std::string_view symbol : kTwoCharSymbols) {
      if (rest.starts_with(symbol)) {
        position_ += symbol.size();
        return Token{Token::Kind::Symbol, rest.substr(0, symbol.size()), start, 0.0};
      }
    }
    const char c = rest.front();
    if (kOneCharSymbols.find(c) != std::string_view::npos) {
      ++position_;
      return Token{Token::Kind::Symbol, rest.substr(0, 1), start, 0.0};
    }
    switch (c) {
      case '=': fail(start, "unexpected '='; use '==' to compare");
      case '&': fail(start, "unexpected '&'; use '&&' or 'and'");
      case '|': fail(start, "unexpected '|'; use '||' or 'or'");
      default: break;
    }
    const bool printable = c >= 0x20 && c < 0x7f;
    fail(start, printable ? "unexpected character '" + std::string(1, c) + "'"
                          : "unexpected byte " + std::to_string(static_cast<unsigned char>(c)));
  }

  std::string_view text_;
  std::size_t position_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Parser

struct FunctionInfo {
  std::string_view name;
  Function function;
  std::size_t min_arguments;
  std::size_t max_arguments;
};

constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

constexpr std::array<FunctionInfo, 8> kFunctions = {{
    {"min", Function::Min, 2, kUnlimited},
    {"max", Function::Max, 2, kUnlimited},
    {"ceil_div", Function::CeilDiv, 2, 2},
    {"floor", Function::Floor, 1, 1},
    {"ceil", Function::Ceil, 1, 1},
    {"abs", Function::Abs, 1, 1},
    {"sqrt", Function::Sqrt, 1, 1},
    {"log2", Function::Log2, 1, 1},
}};

constexpr std::array<std::string_view, 7> kKeywords = {"and", "or", "not", "True", "False", "true", "false"};

bool is_keyword(std::string_view name) {
  return std::find(kKeywords.begin(), kKeywords.end(), name) != kKeywords.end();
}

std::string describe(const Token& token) {
  if (token.kind == Token::Kind::End) return "end of expression";
  return "'" + std::string(token.lexeme) + "'";
}

std::string plural_arguments(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " argument" : " arguments");
}

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens) : text_(text), tokens_(std::move(tokens)) {}

  NodePtr parse_whole() {
    if (peek().kind == Token::Kind::End) fail(0, "expression is empty");
    NodePtr root = parse_or();
    if (peek().kind != Token::Kind::End) fail(peek().column, "unexpected " + describe(peek()) + " after a complete expression");
    return root;
  }

  std::vector<std::string> variables() const { return {variables_.begin(), variables_.end()}; }

 private:
  // Counts one level of nesting for as long as it lives; the limit keeps recursion shallow.
  class NestingGuard {
   public:
    NestingGuard(Parser& parser, std::size_t column) : parser_(parser) {
      if (parser_.depth_ >= Expression::kMaxNestingDepth) {
        parser_.fail(column, "expression nests deeper than " + std::to_string(Expression::kMaxNestingDepth) + " levels");
      }
      ++parser_.depth_;
    }
    ~NestingGuard() { --parser_.depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Parser& parser_;
  };

  [[noreturn]] void fail(std::size_t column, std::string_view problem) const {
    throw ExpressionError(text_, column, problem);
  }

  const Token& peek() const { return tokens_[index_]; }
  const Token& peek_next() const { return tokens_[std::min(index_ + 1, tokens_.size() - 1)]; }

  Token advance() {
    const Token token = tokens_[index_];
    if (token.kind != Token::Kind::End) ++index_;
    return token;
  }

  bool at_symbol(std::string_view symbol) const {
    return peek().kind == Token::Kind::Symbol && peek().lexeme == symbol;
  }
  bool at_keyword(std::string_view keyword) const {
    return peek().kind == Token::Kind::Identifier && peek().lexeme == keyword;
  }

  static NodePtr make_binary(BinaryOperator op, NodePtr left, NodePtr right, std::size_t column) {
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Binary;
    node->binary_operator = op;
    node->column = column;
    node->operands.push_back(std::move(left));
    node->operands.push_back(std::move(right));
    return node;
  }

  static NodePtr make_unary(UnaryOperator op, NodePtr operand, std::size_t column) {
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Unary;
    node->unary_operator = op;
    node->column = column;
    node->operands.push_back(std::move(operand));
    return node;
  }

  static NodePtr make_number(double value, std::size_t column) {
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Number;
    node->number = value;
    node->column = column;
    return node;
  }

  NodePtr parse_or() {
    NodePtr left = parse_and();
    while (at_symbol("||") || at_keyword("or")) {
      const std::size_t column = advance().column;
      left = make_binary(BinaryOperator::Or, std::move(left), parse_and(), column);
    }
    return left;
  }

  NodePtr parse_and() {
    NodePtr left = parse_not();
    while (at_symbol("&&") || at_keyword("and")) {
      const std::size_t column = advance().column;
      left = make_binary(BinaryOperator::And, std::move(left), parse_not(), column);
    }
    return left;
  }

  NodePtr parse_not() {
    if (at_symbol("!") || at_keyword("not")) {
      const std::size_t column = peek().column;
      NestingGuard guard(*this, column);
      advance();
      return make_unary(UnaryOperator::Not, parse_not(), column);
    }
    return parse_comparison();
  }

  std::optional<BinaryOperator> comparison_at_cursor() const {
    if (peek().kind != Token::Kind::Symbol) return std::nullopt;
    const std::string_view symbol = peek().lexeme;
    if (symbol == "==") return BinaryOperator::Equal;
    if (symbol == "!=") return BinaryOperator::NotEqual;
    if (symbol == "<") return BinaryOperator::Less;
    if (symbol == "<=") return BinaryOperator::LessEqual;
    if (symbol == ">") return BinaryOperator::Greater;
    if (symbol == ">=") return BinaryOperator::GreaterEqual;
    return std::nullopt;
  }

  NodePtr parse_comparison() {
    NodePtr left = parse_additive();
    const auto op = comparison_at_cursor();
    if (!op) return left;
    const std::size_t column = advance().column;
    NodePtr result = make_binary(*op, std::move(left), parse_additive(), column);
    if (comparison_at_cursor()) {
      fail(peek().column, "chained comparisons are not supported; combine them with 'and'");
    }
    return result;
  }

  NodePtr parse_additive() {
    NodePtr left = parse_multiplicative();
    while (at_symbol("+") || at_symbol("-")) {
      const Token token = advance();
      const BinaryOperator op = token.lexeme == "+" ? BinaryOperator::Add : BinaryOperator::Subtract;
      left = make_binary(op, std::move(left), parse_multiplicative(), token.column);
    }
    return left;
  }

  NodePtr parse_multiplicative() {
    NodePtr left = parse_unary();
    while (at_symbol("*") || at_symbol("/") || at_symbol("//") || at_symbol("%")) {
      const Token token = advance();
      BinaryOperator op = BinaryOperator::Modulo;
      if (token.lexeme == "*") op = BinaryOperator::Multiply;
      if (token.lexeme == "/") op = BinaryOperator::Divide;
      if (token.lexeme == "//") op = BinaryOperator::FloorDivide;
      left = make_binary(op, std::move(left), parse_unary(), token.column);
    }
    return left;
  }

  NodePtr parse_unary() {
    if (at_symbol("-") || at_symbol("+")) {
      const Token token = peek();
      NestingGuard guard(*this, token.column);
      advance();
      const UnaryOperator op = token.lexeme == "-" ? UnaryOperator::Negate : UnaryOperator::Identity;
      return make_unary(op, parse_unary(), token.column);
    }
    return parse_power();
  }

  // Python: power ::= primary ["**" u_expr], so the exponent may carry its own sign and
  // `a ** b ** c` groups to the right.
  NodePtr parse_power() {
    NodePtr base = parse_primary();
    if (!at_symbol("**")) return base;
    const std::size_t column = peek().column;
    NestingGuard guard(*this, column);
    advance();
    return make_binary(BinaryOperator::Power, std::move(base), parse_unary(), column);
  }

  NodePtr parse_primary() {
    const Token& token = peek();
    switch (token.kind) {
      case Token::Kind::Number: {
        advance();
        return make_number(token.number, token.column);
      }
      case Token::Kind::Identifier:
        return parse_identifier();
      case Token::Kind::Symbol:
        if (token.lexeme == "(") return parse_parenthesized();
        break;
      case Token::Kind::End:
        break;
    }
    fail(token.column, "unexpected " + describe(token) + "; expected a number, name or '('");
  }

  NodePtr parse_parenthesized() {
    const std::size_t open_column = peek().column;
    NestingGuard guard(*this, open_column);
    advance();
    NodePtr inner = parse_or();
    expect_closing_parenthesis(open_column);
    return inner;
  }

  void expect_closing_parenthesis(std::size_t open_column) {
    if (at_symbol(")")) {
      advance();
      return;
    }
    fail(peek().column, "expected ')' to close '(' at column " + std::to_string(open_column) + " but found " +
                            describe(peek()));
  }

  NodePtr parse_identifier() {
    const Token token = advance();
    const std::string_view name = token.lexeme;
    if (name == "True" || name == "true") return make_number(1.0, token.column);
    if (name == "False" || name == "false") return make_number(0.0, token.column);
    if (is_keyword(name)) fail(token.column, "unexpected keyword '" + std::string(name) + "'");
    if (at_symbol("(")) return parse_call(token);

    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Variable;
    node->name = std::string(name);
    node->column = token.column;
    variables_.insert(node->name);
    return node;
  }

  NodePtr parse_call(const Token& name_token) {
    const auto info = std::find_if(kFunctions.begin(), kFunctions.end(),
                                   [&](const FunctionInfo& candidate) { return candidate.name == name_token.lexeme; });
    if (info == kFunctions.end()) fail(name_token.column, "unknown function '" + std::string(name_token.lexeme) + "'");

    const std::size_t open_column = peek().column;
    NestingGuard guard(*this, open_column);
    advance();

    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Call;
    node->function = info->function;
    node->name = std::string(info->name);
    node->column = name_token.column;
    if (!at_symbol(")")) {
      node->operands.push_back(parse_or());
      while (at_symbol(",")) {
        advance();
        node->operands.push_back(parse_or());
      }
    }
    expect_closing_parenthesis(open_column);

    const std::size_t count = node->operands.size();
    if (count < info->min_arguments || count > info->max_arguments) {
      const std::string expected = info->max_arguments == kUnlimited
                                       ? "at least " + plural_arguments(info->min_arguments)
                                       : plural_arguments(info->min_arguments);
      fail(name_token.column, "function '" + node->name + "' expects " + expected + ", got " + std::to_string(count));
    }
    return node;
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  std::size_t index_ = 0;
  int depth_ = 0;
  std::set<std::string> variables_;
};

// ---------------------------------------------------------------------------------------------
// Evaluation

double as_boolean(bool value) { return value ? 1.0 : 0.0; }

struct FloorDivision {
  double quotient;
  double remainder;
};

// Python's divmod for floats: the remainder takes the divisor's sign. fmod is exact, so the
// quotient of (dividend - remainder) / divisor is an integer up to rounding.
FloorDivision floor_divide(double dividend, double divisor) {
  double remainder = std::fmod(dividend, divisor);
  double quotient = (dividend - remainder) / divisor;
  if (remainder != 0.0 && ((divisor < 0.0) != (remainder < 0.0))) {
    remainder += divisor;
    quotient -= 1.0;
  }
  double floored = std::floor(quotient);
  if (quotient - floored > 0.5) floored += 1.0;
  return {floored, remainder};
}

std::string_view symbol_of(BinaryOperator op) {
  switch (op) {
    case BinaryOperator::Or: return "or";
    case BinaryOperator::And: return "and";
    case BinaryOperator::Equal: return "==";
    case BinaryOperator::NotEqual: return "!=";
    case BinaryOperator::Less: return "<";
    case BinaryOperator::LessEqual: return "<=";
    case BinaryOperator::Greater: return ">";
    case BinaryOperator::GreaterEqual: return ">=";
    case BinaryOperator::Add: return "+";
    case BinaryOperator::Subtract: return "-";
    case BinaryOperator::Multiply: return "*";
    case BinaryOperator::Divide: return "/";
    case BinaryOperator::FloorDivide: return "//";
    case BinaryOperator::Modulo: return "%";
    case BinaryOperator::Power: return "**";
  }
  return "?";
}

class Evaluator {
 public:
  Evaluator(std::string_view text, const Bindings& bindings) : text_(text), bindings_(bindings) {}

  double evaluate(const Node& node) const {
    switch (node.kind) {
      case Node::Kind::Number: return node.number;
      case Node::Kind::Variable: return lookup(node);
      case Node::Kind::Unary: return evaluate_unary(node);
      case Node::Kind::Binary: return evaluate_binary(node);
      case Node::Kind::Call: return evaluate_call(node);
    }
    fail(node, "internal error: unknown node kind");
  }

 private:
  [[noreturn]] void fail(const Node& node, std::string_view problem) const {
    throw ExpressionError(text_, node.column, problem);
  }

  double finite(double value, const Node& node, std::string_view operation) const {
    if (!std::isfinite(value)) fail(node, "result of '" + std::string(operation) + "' is not a finite number");
    return value;
  }

  double lookup(const Node& node) const {
    const auto found = bindings_.find(node.name);
    if (found == bindings_.end()) fail(node, "unknown variable '" + node.name + "'");
    if (!std::isfinite(found->second)) fail(node, "variable '" + node.name + "' is bound to a non-finite value");
    return found->second;
  }

  double evaluate_unary(const Node& node) const {
    const double operand = evaluate(*node.operands[0]);
    switch (node.unary_operator) {
      case UnaryOperator::Negate: return -operand;
      case UnaryOperator::Identity: return operand;
      case UnaryOperator::Not: return as_boolean(operand == 0.0);
    }
    fail(node, "internal error: unknown unary operator");
  }

  double evaluate_binary(const Node& node) const {
    const Node& left_node = *node.operands[0];
    const Node& right_node = *node.operands[1];
    const BinaryOperator op = node.binary_operator;
    if (op == BinaryOperator::Or) return as_boolean(evaluate(left_node) != 0.0 || evaluate(right_node) != 0.0);
    if (op == BinaryOperator::And) return as_boolean(evaluate(left_node) != 0.0 && evaluate(right_node) != 0.0);

    const double left = evaluate(left_node);
    const double right = evaluate(right_node);
    const std::string_view symbol = symbol_of(op);
    switch (op) {
      case BinaryOperator::Equal: return as_boolean(left == right);
      case BinaryOperator::NotEqual: return as_boolean(left != right);
      case BinaryOperator::Less: return as_boolean(left < right);
      case BinaryOperator::LessEqual: return as_boolean(left <= right);
      case BinaryOperator::Greater: return as_boolean(left > right);
      case BinaryOperator::GreaterEqual: return as_boolean(left >= right);
      case BinaryOperator::Add: return finite(left + right, node, symbol);
      case BinaryOperator::Subtract: return finite(left - right, node, symbol);
      case BinaryOperator::Multiply: return finite(left * right, node, symbol);
      case BinaryOperator::Divide:
        if (right == 0.0) fail(node, "division by zero");
        return finite(left / right, node, symbol);
      case BinaryOperator::FloorDivide:
        if (right == 0.0) fail(node, "floor division by zero");
        return finite(floor_divide(left, right).quotient, node, symbol);
      case BinaryOperator::Modulo:
        if (right == 0.0) fail(node, "modulo by zero");
        return finite(floor_divide(left, right).remainder, node, symbol);
      case BinaryOperator::Power:
        if (left == 0.0 && right < 0.0) fail(node, "zero raised to a negative power");
        return finite(std::pow(left, right), node, symbol);
      case BinaryOperator::Or:
      case BinaryOperator::And:
        break;
    }
    fail(node, "internal error: unhandled binary operator");
  }

  double evaluate_call(const Node& node) const {
    std::vector<double> arguments;
    arguments.reserve(node.operands.size());
    for (const auto& operand : node.operands) arguments.push_back(evaluate(*operand));

    switch (node.function) {
      case Function::Min: return *std::min_element(arguments.begin(), arguments.end());
      case Function::Max: return *std::max_element(arguments.begin(), arguments.end());
      case Function::CeilDiv:
        if (arguments[1] == 0.0) fail(node, "division by zero in ceil_div");
        return finite(-floor_divide(-arguments[0], arguments[1]).quotient, node, node.name);
      case Function::Floor: return std::floor(arguments[0]);
      case Function::Ceil: return std::ceil(arguments[0]);
      case Function::Abs: return std::fabs(arguments[0]);
      case Function::Sqrt:
        if (arguments[0] < 0.0) fail(node, "sqrt of a negative number (" + format_number(arguments[0]) + ")");
        return std::sqrt(arguments[0]);
      case Function::Log2:
        if (arguments[0] <= 0.0) fail(node, "log2 of a non-positive number (" + format_number(arguments[0]) + ")");
        return std::log2(arguments[0]);
    }
    fail(node, "internal error: unknown function");
  }

  std::string_view text_;
  const Bindings& bindings_;
};

}  // namespace
}  // namespace expression_detail

Expression::Expression(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}

Expression Expression::parse(std::string_view text) {
  if (text.size() > kMaxTextLength) {
    throw ExpressionError(text, kMaxTextLength,
                          "expression is longer than " + std::to_string(kMaxTextLength) + " characters");
  }
  expression_detail::Parser parser(text, expression_detail::Tokenizer(text).tokenize());
  auto compiled = std::make_shared<Compiled>();
  compiled->root = parser.parse_whole();
  compiled->text = std::string(text);
  compiled->variables = parser.variables();
  return Expression(std::move(compiled));
}

double Expression::evaluate(const Bindings& vars) const {
  return expression_detail::Evaluator(compiled_->text, vars).evaluate(*compiled_->root);
}

std::int64_t Expression::evaluate_integer(const Bindings& vars) const {
  const double value = evaluate(vars);
  if (std::trunc(value) != value) {
    throw ExpressionError(compiled_->text, 0, "value " + format_number(value) + " is not an integer");
  }
  constexpr double kTwoToThe63 = 9223372036854775808.0;
  if (value < -kTwoToThe63 || value >= kTwoToThe63) {
    throw ExpressionError(compiled_->text, 0, "value " + format_number(value) + " is outside the 64-bit integer range");
  }
  return static_cast<std::int64_t>(value);
}

bool Expression::evaluate_condition(const Bindings& vars) const { return evaluate(vars) != 0.0; }

std::vector<std::string> Expression::variables() const { return compiled_->variables; }

const std::string& Expression::text() const { return compiled_->text; }

}  // namespace kernelarc::task

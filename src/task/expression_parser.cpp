// The parser of the grammar in expression.h: tokens into a syntax tree, with every name it uses.
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include "task/expression_syntax.h"
#include "task/expression_tokenizer.h"

namespace kernelarc::task::expression_detail {
namespace {

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

}  // namespace

SyntaxTree parse_syntax(std::string_view text) {
  Parser parser(text, tokenize(text));
  SyntaxTree tree;
  tree.root = parser.parse_whole();
  tree.variables = parser.variables();
  return tree;
}

}  // namespace kernelarc::task::expression_detail

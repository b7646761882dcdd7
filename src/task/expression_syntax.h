// The parsed form of an expression (src/task/expression.h), shared by the parser and the evaluator: a tree of
// numbers, variables, operators and calls, each node with the column it came from.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "task/expression.h"

namespace kernelarc::task::expression_detail {

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

struct SyntaxTree {
  NodePtr root;
  std::vector<std::string> variables;  // sorted, unique
};

// Tokenizes and parses `text` (expression_parser.cpp); throws ExpressionError.
SyntaxTree parse_syntax(std::string_view text);

// The value of `root`, parsed from `text`, over `bindings` (expression_evaluator.cpp); throws ExpressionError.
double evaluate_syntax(std::string_view text, const Node& root, const Bindings& bindings);

// The shortest text that reads back as `value` (expression.cpp).
std::string format_number(double value);

}  // namespace kernelarc::task::expression_detail

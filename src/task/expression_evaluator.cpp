// The evaluator of a syntax tree over bound variables, with Python's arithmetic (floor division, modulo, power).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "task/expression_syntax.h"

namespace kernelarc::task::expression_detail {
namespace {

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

double evaluate_syntax(std::string_view text, const Node& root, const Bindings& bindings) {
  return Evaluator(text, bindings).evaluate(root);
}

}  // namespace kernelarc::task::expression_detail

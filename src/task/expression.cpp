#include "task/expression.h"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "task/expression_syntax.h"

namespace kernelarc::task {

namespace {

constexpr std::size_t kMaxShownTextLength = 200;

std::string shown_text(std::string_view text) {
  if (text.size() <= kMaxShownTextLength) return std::string(text);
  return std::string(text.substr(0, kMaxShownTextLength)) + "...";
}

std::string build_message(std::string_view text, std::size_t column, std::string_view problem) {
  return "expression \"" + shown_text(text) + "\", column " + std::to_string(column) + ": " +
         std::string(problem);
}

}  // namespace

namespace expression_detail {

std::string format_number(double value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace expression_detail

ExpressionError::ExpressionError(std::string_view expression_text, std::size_t column,
                                 std::string_view problem)
    : std::runtime_error(build_message(expression_text, column, problem)), column_(column) {}

struct Expression::Compiled {
  std::string text;
  expression_detail::NodePtr root;
  std::vector<std::string> variables;
};

using expression_detail::format_number;

Expression::Expression(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}

Expression Expression::parse(std::string_view text) {
  if (text.size() > kMaxTextLength) {
    throw ExpressionError(text, kMaxTextLength,
                          "expression is longer than " + std::to_string(kMaxTextLength) + " characters");
  }
  expression_detail::SyntaxTree tree = expression_detail::parse_syntax(text);
  auto compiled = std::make_shared<Compiled>();
  compiled->root = std::move(tree.root);
  compiled->text = std::string(text);
  compiled->variables = std::move(tree.variables);
  return Expression(std::move(compiled));
}

double Expression::evaluate(const Bindings& vars) const {
  return expression_detail::evaluate_syntax(compiled_->text, *compiled_->root, vars);
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

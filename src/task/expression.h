// Safe arithmetic/boolean expressions for task definitions: axis formulas, constraints and
// roofline formulas. Parsed once into an immutable tree, evaluated many times; never runs a
// shell or an interpreter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kernelarc::task {

// A syntax or evaluation problem. what() names the problem, the 0-based column and the
// expression text.
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::string_view expression_text, std::size_t column, std::string_view problem);

  std::size_t column() const noexcept { return column_; }

 private:
  std::size_t column_;
};

using Bindings = std::map<std::string, double, std::less<>>;  // variable name -> value

// Grammar, lowest precedence first (Python-like):
//   or / ||   and / &&   not / ! (unary)   == != < <= > >= (not chained)
//   + -   * / // %   unary + -   ** (right-associative; -2**2 == -4)
//   numbers, identifiers, parentheses, True/False/true/false,
//   min(a, b, ...) max(a, b, ...) ceil_div(a, b) floor(x) ceil(x) abs(x) sqrt(x) log2(x)
// Comparisons and boolean operators yield 1.0 or 0.0; `and`/`or` short-circuit.
class Expression {
 public:
  static constexpr std::size_t kMaxTextLength = 4096;
  static constexpr int kMaxNestingDepth = 64;  // parentheses, calls and unary operators

  // Throws ExpressionError on bad syntax, unknown functions or wrong argument counts.
  static Expression parse(std::string_view text);

  // Throws ExpressionError on an unknown or non-finite variable, division or modulo by zero,
  // and non-finite results.
  double evaluate(const Bindings& vars) const;

  // As evaluate, but the value must be an exact integer within int64 range.
  std::int64_t evaluate_integer(const Bindings& vars) const;

  // Non-zero is true.
  bool evaluate_condition(const Bindings& vars) const;

  // Sorted, unique names of the variables referenced.
  std::vector<std::string> variables() const;

  const std::string& text() const;

 private:
  struct Compiled;

  explicit Expression(std::shared_ptr<const Compiled> compiled);

  std::shared_ptr<const Compiled> compiled_;  // shared: copies are cheap
};

}  // namespace kernelarc::task

#include "report/expression_printer.h"

#include <array>
#include <charconv>
#include <stdexcept>
#include <vector>

namespace kernelarc::report {

namespace {

// The expression was parsed by task::Expression already, so this parser follows the same grammar without
// repeating its diagnostics: it only has to produce the same tree, printed instead of evaluated.
struct Token {
  enum class Kind { number, identifier, symbol, end };
  Kind kind = Kind::end;
  std::string text;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_identifier_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  std::size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    const std::size_t start = at;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++at;
      continue;
    }
    if (is_digit(c) || (c == '.' && at + 1 < text.size() && is_digit(text[at + 1]))) {
      while (at < text.size() && is_digit(text[at])) ++at;
      if (at < text.size() && text[at] == '.') {
        ++at;
        while (at < text.size() && is_digit(text[at])) ++at;
      }
      if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
        ++at;
        if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
        while (at < text.size() && is_digit(text[at])) ++at;
      }
      tokens.push_back({Token::Kind::number, std::string(text.substr(start, at - start))});
    } else if (is_identifier_start(c)) {
      while (at < text.size() && (is_identifier_start(text[at]) || is_digit(text[at]))) ++at;
      tokens.push_back({Token::Kind::identifier, std::string(text.substr(start, at - start))});
    } else {
      static constexpr std::array<std::string_view, 8> kTwoChar = {"**", "//", "==", "!=", "<=", ">=", "&&", "||"};
      std::size_t length = 1;
      for (const auto symbol : kTwoChar)
        if (text.substr(at).starts_with(symbol)) length = 2;
      at += length;
      tokens.push_back({Token::Kind::symbol, std::string(text.substr(start, length))});
    }
  }
  tokens.push_back({Token::Kind::end, ""});
  return tokens;
}

// A double literal C++ reads back as the same value: "2" would be an int, and 2 / 3 would be 0.
std::string double_literal(const std::string& lexeme) {
  double value = 0;
  std::from_chars(lexeme.data(), lexeme.data() + lexeme.size(), value);
  std::array<char, 64> buffer{};
  const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
  std::string text(buffer.data(), end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string truth(const std::string& condition) { return "((" + condition + ") ? 1.0 : 0.0)"; }

class Printer {
 public:
  Printer(const task::Expression& expression, const CppNames& names)
      : text_(expression.text()), tokens_(tokenize(expression.text())), names_(names) {}

  std::string print() { return parse_or(); }

 private:
  const Token& peek() const { return tokens_[index_]; }
  Token advance() { return tokens_[index_ < tokens_.size() - 1 ? index_++ : index_]; }
  bool at_symbol(std::string_view symbol) const { return peek().kind == Token::Kind::symbol && peek().text == symbol; }
  bool at_keyword(std::string_view word) const { return peek().kind == Token::Kind::identifier && peek().text == word; }

  std::string parse_or() {
    std::string left = parse_and();
    while (at_symbol("||") || at_keyword("or")) {
      advance();
      left = truth("(" + left + ") != 0.0 || (" + parse_and() + ") != 0.0");
    }
    return left;
  }

  std::string parse_and() {
    std::string left = parse_not();
    while (at_symbol("&&") || at_keyword("and")) {
      advance();
      left = truth("(" + left + ") != 0.0 && (" + parse_not() + ") != 0.0");
    }
    return left;
  }

  std::string parse_not() {
    if (at_symbol("!") || at_keyword("not")) {
      advance();
      return truth("(" + parse_not() + ") == 0.0");
    }
    return parse_comparison();
  }

  std::string parse_comparison() {
    std::string left = parse_additive();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (!at_symbol(op)) continue;
      advance();
      return truth("(" + left + ") " + op + " (" + parse_additive() + ")");
    }
    return left;
  }

  std::string parse_additive() {
    std::string left = parse_multiplicative();
    while (at_symbol("+") || at_symbol("-")) {
      const std::string op = advance().text;
      left = "(" + left + " " + op + " " + parse_multiplicative() + ")";
    }
    return left;
  }

  std::string parse_multiplicative() {
    std::string left = parse_unary();
    while (at_symbol("*") || at_symbol("/") || at_symbol("//") || at_symbol("%")) {
      const std::string op = advance().text;
      const std::string right = parse_unary();
      if (op == "//") left = "kernelarc_expr_floor_div(" + left + ", " + right + ")";
      else if (op == "%") left = "kernelarc_expr_mod(" + left + ", " + right + ")";
      else left = "(" + left + " " + op + " " + right + ")";
    }
    return left;
  }

  std::string parse_unary() {
    if (at_symbol("-") || at_symbol("+")) {
      const std::string op = advance().text;
      return "(" + op + "(" + parse_unary() + "))";
    }
    return parse_power();
  }

  std::string parse_power() {
    std::string base = parse_primary();
    if (!at_symbol("**")) return base;
    advance();
    return "pow(" + base + ", " + parse_unary() + ")";
  }

  std::string parse_primary() {
    const Token token = advance();
    if (token.kind == Token::Kind::number) return double_literal(token.text);
    if (token.kind == Token::Kind::symbol && token.text == "(") {
      std::string inner = parse_or();
      advance();  // ")"
      return "(" + inner + ")";
    }
    if (token.kind != Token::Kind::identifier) throw std::invalid_argument("expression \"" + text_ + "\" cannot be printed as C++");
    if (token.text == "True" || token.text == "true") return "1.0";
    if (token.text == "False" || token.text == "false") return "0.0";
    if (at_symbol("(")) return parse_call(token.text);
    const auto found = names_.find(token.text);
    if (found == names_.end())
      throw std::invalid_argument("expression \"" + text_ + "\" uses \"" + token.text + "\", which is neither an axis nor a knob");
    return "((double)(" + found->second + "))";
  }

  std::string parse_call(const std::string& function) {
    advance();  // "("
    std::vector<std::string> arguments;
    if (!at_symbol(")")) {
      arguments.push_back(parse_or());
      while (at_symbol(",")) {
        advance();
        arguments.push_back(parse_or());
      }
    }
    advance();  // ")"
    if (function == "min" || function == "max") {
      // Nested, right to left: fmin(a, fmin(b, c)).
      std::string folded = arguments.back();
      for (std::size_t i = arguments.size() - 1; i-- > 0;) folded = std::string(function == "min" ? "fmin(" : "fmax(") + arguments[i] + ", " + folded + ")";
      return folded;
    }
    if (function == "ceil_div") return "kernelarc_expr_ceil_div(" + arguments.at(0) + ", " + arguments.at(1) + ")";
    if (function == "abs") return "fabs(" + arguments.at(0) + ")";
    if (function == "floor" || function == "ceil" || function == "sqrt" || function == "log2") return function + "(" + arguments.at(0) + ")";
    throw std::invalid_argument("expression \"" + text_ + "\" calls \"" + function + "\", which has no C++ form here");
  }

  std::string text_;
  std::vector<Token> tokens_;
  std::size_t index_ = 0;
  const CppNames& names_;
};

}  // namespace

std::string expression_to_cpp(const task::Expression& expression, const CppNames& names) { return Printer(expression, names).print(); }

std::string_view expression_helpers_cpp() {
  return R"(/* Python's // and % on doubles (the remainder takes the divisor's sign), as KernelArc's expressions compute them. */
static inline double kernelarc_expr_floor_div(double a, double b) {
  double remainder = fmod(a, b);
  double quotient = (a - remainder) / b;
  if (remainder != 0.0 && ((b < 0.0) != (remainder < 0.0))) quotient -= 1.0;
  double floored = floor(quotient);
  if (quotient - floored > 0.5) floored += 1.0;
  return floored;
}
static inline double kernelarc_expr_mod(double a, double b) {
  double remainder = fmod(a, b);
  if (remainder != 0.0 && ((b < 0.0) != (remainder < 0.0))) remainder += b;
  return remainder;
}
static inline double kernelarc_expr_ceil_div(double a, double b) { return -kernelarc_expr_floor_div(-a, b); }
/* A launch dimension: an exact integer within [low, high], or false. */
static inline int kernelarc_expr_dimension(double value, long long low, long long high, long long* out) {
  if (!(value == trunc(value)) || value < (double)low || value > (double)high) return 0;
  *out = (long long)value;
  return 1;
}
)";
}

}  // namespace kernelarc::report

#include "task/expression_tokenizer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "task/expression.h"

namespace kernelarc::task::expression_detail {
namespace {

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

}  // namespace

std::vector<Token> tokenize(std::string_view text) { return Tokenizer(text).tokenize(); }

}  // namespace kernelarc::task::expression_detail

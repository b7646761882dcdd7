// The tokens of an expression's text: numbers, identifiers and operator symbols, each with its column.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace kernelarc::task::expression_detail {

struct Token {
  enum class Kind { Number, Identifier, Symbol, End };

  Kind kind = Kind::End;
  std::string_view lexeme;
  std::size_t column = 0;
  double number = 0.0;
};

// The tokens of `text`, ending with an End token; throws ExpressionError at a malformed number or a stray character.
std::vector<Token> tokenize(std::string_view text);

}  // namespace kernelarc::task::expression_detail

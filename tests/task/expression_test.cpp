// Unit tests for the task expression evaluator.
#include "task/expression.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace kernelarc::task {
namespace {

using ::testing::HasSubstr;

double eval(std::string_view text, const Bindings& vars = {}) { return Expression::parse(text).evaluate(vars); }

// Parses (or evaluates, when parsing succeeds) and returns the error; fails the test if none.
ExpressionError error_of(std::string_view text, const Bindings& vars = {}) {
  try {
    Expression::parse(text).evaluate(vars);
  } catch (const ExpressionError& error) {
    return error;
  }
  ADD_FAILURE() << "expected an ExpressionError for \"" << text << "\"";
  return ExpressionError(text, 0, "no error");
}

ExpressionError parse_error_of(std::string_view text) {
  try {
    Expression::parse(text);
  } catch (const ExpressionError& error) {
    return error;
  }
  ADD_FAILURE() << "expected a parse error for \"" << text << "\"";
  return ExpressionError(text, 0, "no error");
}

// --- literals --------------------------------------------------------------------------------

TEST(ExpressionTest, IntegerLiteral) { EXPECT_EQ(eval("42"), 42.0); }

TEST(ExpressionTest, DecimalAndExponentLiterals) {
  EXPECT_EQ(eval("1.5"), 1.5);
  EXPECT_EQ(eval(".5"), 0.5);
  EXPECT_EQ(eval("2."), 2.0);
  EXPECT_EQ(eval("1e-5"), 1e-5);
  EXPECT_EQ(eval("2.5E+3"), 2500.0);
  EXPECT_EQ(eval("3e2"), 300.0);
}

TEST(ExpressionTest, BooleanLiterals) {
  EXPECT_EQ(eval("True"), 1.0);
  EXPECT_EQ(eval("true"), 1.0);
  EXPECT_EQ(eval("False"), 0.0);
  EXPECT_EQ(eval("false"), 0.0);
  EXPECT_EQ(eval("True + True"), 2.0);
}

TEST(ExpressionTest, IntegersUpToTwoToThe53AreExact) {
  EXPECT_EQ(Expression::parse("9007199254740991 + 1").evaluate_integer({}), 9007199254740992LL);
  EXPECT_EQ(Expression::parse("2 ** 53").evaluate_integer({}), 9007199254740992LL);
  EXPECT_EQ(Expression::parse("9007199254740993 // 1 - 9007199254740992").evaluate_integer({}), 0);
}

TEST(ExpressionTest, WhitespaceIsIgnored) { EXPECT_EQ(eval(" \t 1 +\n2 "), 3.0); }

// --- precedence and associativity ------------------------------------------------------------

TEST(ExpressionTest, MultiplicationBindsTighterThanAddition) {
  EXPECT_EQ(eval("2 + 3 * 4"), 14.0);
  EXPECT_EQ(eval("2 * 3 + 4"), 10.0);
  EXPECT_EQ(eval("10 - 6 / 2"), 7.0);
}

TEST(ExpressionTest, ParenthesesOverridePrecedence) {
  EXPECT_EQ(eval("(2 + 3) * 4"), 20.0);
  EXPECT_EQ(eval("((((7))))"), 7.0);
}

TEST(ExpressionTest, SubtractionAndDivisionAreLeftAssociative) {
  EXPECT_EQ(eval("10 - 4 - 3"), 3.0);
  EXPECT_EQ(eval("64 / 4 / 2"), 8.0);
  EXPECT_EQ(eval("100 // 7 // 2"), 7.0);
  EXPECT_EQ(eval("100 % 7 % 2"), 0.0);
}

TEST(ExpressionTest, MultiplicativeOperatorsShareOneLevel) {
  EXPECT_EQ(eval("2 * 7 // 3 % 3"), 1.0);  // ((2*7)//3)%3 = 4 % 3
  EXPECT_EQ(eval("12 % 5 * 3"), 6.0);
  EXPECT_EQ(eval("9 / 3 * 3"), 9.0);
}

TEST(ExpressionTest, PowerIsRightAssociative) {
  EXPECT_EQ(eval("2 ** 3 ** 2"), 512.0);
  EXPECT_EQ(eval("(2 ** 3) ** 2"), 64.0);
}

TEST(ExpressionTest, PowerBindsTighterThanUnaryMinusOnItsLeft) {
  EXPECT_EQ(eval("-2 ** 2"), -4.0);
  EXPECT_EQ(eval("(-2) ** 2"), 4.0);
  EXPECT_EQ(eval("2 ** -1"), 0.5);
  EXPECT_EQ(eval("-2 ** -2"), -0.25);
  EXPECT_EQ(eval("2 * 3 ** 2"), 18.0);
}

TEST(ExpressionTest, UnaryOperatorsStack) {
  EXPECT_EQ(eval("--3"), 3.0);
  EXPECT_EQ(eval("-+-3"), 3.0);
  EXPECT_EQ(eval("+5"), 5.0);
  EXPECT_EQ(eval("4 - -2"), 6.0);
}

TEST(ExpressionTest, ComparisonBindsLooserThanArithmetic) {
  EXPECT_EQ(eval("1 + 1 == 2"), 1.0);
  EXPECT_EQ(eval("2 * 3 > 5"), 1.0);
  EXPECT_EQ(eval("2 * 3 > 6"), 0.0);
}

TEST(ExpressionTest, BooleanPrecedence) {
  EXPECT_EQ(eval("1 or 1 and 0"), 1.0);   // 1 or (1 and 0)
  EXPECT_EQ(eval("0 and 1 or 1"), 1.0);   // (0 and 1) or 1
  EXPECT_EQ(eval("not 1 or 1"), 1.0);     // (not 1) or 1
  EXPECT_EQ(eval("not 1 == 2"), 1.0);     // not (1 == 2)
  EXPECT_EQ(eval("not 0 and 0"), 0.0);    // (not 0) and 0
  EXPECT_EQ(eval("!(1 && 0) || 0"), 1.0);
}

// --- arithmetic semantics --------------------------------------------------------------------

TEST(ExpressionTest, TrueDivision) {
  EXPECT_EQ(eval("7 / 2"), 3.5);
  EXPECT_EQ(eval("-7 / 2"), -3.5);
}

TEST(ExpressionTest, FloorDivisionFollowsPython) {
  EXPECT_EQ(eval("7 // 2"), 3.0);
  EXPECT_EQ(eval("-7 // 2"), -4.0);
  EXPECT_EQ(eval("7 // -2"), -4.0);
  EXPECT_EQ(eval("-7 // -2"), 3.0);
  EXPECT_EQ(eval("6 // 3"), 2.0);
  EXPECT_EQ(eval("-6 // 3"), -2.0);
  EXPECT_EQ(eval("7.5 // 2"), 3.0);
  EXPECT_EQ(eval("-7.5 // 2"), -4.0);
}

TEST(ExpressionTest, ModuloSignFollowsDivisor) {
  EXPECT_EQ(eval("7 % 3"), 1.0);
  EXPECT_EQ(eval("-7 % 3"), 2.0);
  EXPECT_EQ(eval("7 % -3"), -2.0);
  EXPECT_EQ(eval("-7 % -3"), -1.0);
  EXPECT_EQ(eval("6 % 3"), 0.0);
  EXPECT_EQ(eval("5.5 % 2"), 1.5);
  EXPECT_EQ(eval("-5.5 % 2"), 0.5);
}

TEST(ExpressionTest, Power) {
  EXPECT_EQ(eval("2 ** 10"), 1024.0);
  EXPECT_EQ(eval("4 ** 0.5"), 2.0);
  EXPECT_EQ(eval("5 ** 0"), 1.0);
  EXPECT_EQ(eval("0 ** 0"), 1.0);
}

// --- comparisons and booleans ----------------------------------------------------------------

TEST(ExpressionTest, ComparisonsYieldOneOrZero) {
  EXPECT_EQ(eval("3 == 3"), 1.0);
  EXPECT_EQ(eval("3 == 4"), 0.0);
  EXPECT_EQ(eval("3 != 4"), 1.0);
  EXPECT_EQ(eval("3 != 3"), 0.0);
  EXPECT_EQ(eval("3 < 4"), 1.0);
  EXPECT_EQ(eval("4 < 4"), 0.0);
  EXPECT_EQ(eval("4 <= 4"), 1.0);
  EXPECT_EQ(eval("5 <= 4"), 0.0);
  EXPECT_EQ(eval("5 > 4"), 1.0);
  EXPECT_EQ(eval("4 > 4"), 0.0);
  EXPECT_EQ(eval("4 >= 4"), 1.0);
  EXPECT_EQ(eval("3 >= 4"), 0.0);
}

TEST(ExpressionTest, BooleanOperatorsYieldOneOrZero) {
  EXPECT_EQ(eval("1 and 0"), 0.0);
  EXPECT_EQ(eval("5 && 2"), 1.0);
  EXPECT_EQ(eval("0 or 3"), 1.0);
  EXPECT_EQ(eval("0 || 0"), 0.0);
  EXPECT_EQ(eval("not 0"), 1.0);
  EXPECT_EQ(eval("!5"), 0.0);
  EXPECT_EQ(eval("not not 7"), 1.0);
}

TEST(ExpressionTest, BooleanOperatorsShortCircuit) {
  const Expression guarded_or = Expression::parse("x == 0 or 10 / x > 1");
  EXPECT_TRUE(guarded_or.evaluate_condition({{"x", 0}}));
  EXPECT_TRUE(guarded_or.evaluate_condition({{"x", 5}}));
  EXPECT_FALSE(guarded_or.evaluate_condition({{"x", 20}}));

  const Expression guarded_and = Expression::parse("x != 0 && 10 % x == 0");
  EXPECT_FALSE(guarded_and.evaluate_condition({{"x", 0}}));
  EXPECT_TRUE(guarded_and.evaluate_condition({{"x", 5}}));

  EXPECT_EQ(eval("1 or missing"), 1.0);
  EXPECT_EQ(eval("0 and missing"), 0.0);
}

TEST(ExpressionTest, EvaluateCondition) {
  EXPECT_TRUE(Expression::parse("0.5").evaluate_condition({}));
  EXPECT_TRUE(Expression::parse("-1").evaluate_condition({}));
  EXPECT_FALSE(Expression::parse("0").evaluate_condition({}));
  EXPECT_FALSE(Expression::parse("1 - 1").evaluate_condition({}));
}

// --- functions -------------------------------------------------------------------------------

TEST(ExpressionTest, MinAndMax) {
  EXPECT_EQ(eval("min(3, 1, 2)"), 1.0);
  EXPECT_EQ(eval("max(3, 1, 2)"), 3.0);
  EXPECT_EQ(eval("min(4, -4)"), -4.0);
  EXPECT_EQ(eval("max(min(10, 20), 5) * 2"), 20.0);
  EXPECT_EQ(eval("max(1 + 1, 2 * 2, 3)"), 4.0);
}

TEST(ExpressionTest, CeilDiv) {
  EXPECT_EQ(eval("ceil_div(7, 2)"), 4.0);
  EXPECT_EQ(eval("ceil_div(8, 2)"), 4.0);
  EXPECT_EQ(eval("ceil_div(1, 128)"), 1.0);
  EXPECT_EQ(eval("ceil_div(0, 5)"), 0.0);
  EXPECT_EQ(eval("ceil_div(-7, 2)"), -3.0);
  EXPECT_EQ(Expression::parse("ceil_div(2 ** 53 - 1, 2)").evaluate_integer({}), 4503599627370496LL);
}

TEST(ExpressionTest, RoundingAndMathFunctions) {
  EXPECT_EQ(eval("floor(2.7)"), 2.0);
  EXPECT_EQ(eval("floor(-2.5)"), -3.0);
  EXPECT_EQ(eval("ceil(2.1)"), 3.0);
  EXPECT_EQ(eval("ceil(-2.5)"), -2.0);
  EXPECT_EQ(eval("abs(-4.5)"), 4.5);
  EXPECT_EQ(eval("abs(3)"), 3.0);
  EXPECT_EQ(eval("sqrt(16)"), 4.0);
  EXPECT_EQ(eval("log2(1024)"), 10.0);
  EXPECT_EQ(eval("log2(1)"), 0.0);
}

// --- variables -------------------------------------------------------------------------------

TEST(ExpressionTest, VariablesAreLookedUp) {
  EXPECT_EQ(eval("batch_size * seq_len", {{"batch_size", 4}, {"seq_len", 128}}), 512.0);
  EXPECT_EQ(eval("_x1 + X", {{"_x1", 1}, {"X", 2}}), 3.0);
}

TEST(ExpressionTest, SameParsedExpressionWithDifferentBindings) {
  const Expression flops = Expression::parse("2 * M * N * K");
  EXPECT_EQ(flops.evaluate({{"M", 1}, {"N", 1}, {"K", 1}}), 2.0);
  EXPECT_EQ(flops.evaluate({{"M", 128}, {"N", 256}, {"K", 64}}), 4194304.0);
  EXPECT_EQ(flops.evaluate_integer({{"M", 4096}, {"N", 4096}, {"K", 4096}}), 137438953472LL);
  EXPECT_EQ(flops.evaluate({{"M", 3}, {"N", 5}, {"K", 7}, {"unused", 9}}), 210.0);
}

TEST(ExpressionTest, CopiesEvaluateIdentically) {
  const Expression original = Expression::parse("a - b");
  const Expression copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.text(), "a - b");
  EXPECT_EQ(copy.evaluate({{"a", 10}, {"b", 3}}), 7.0);
  EXPECT_EQ(original.evaluate({{"a", 1}, {"b", 3}}), -2.0);
}

TEST(ExpressionTest, RooflineBytesFormula) {
  const Expression bytes = Expression::parse("(M*K + K*N + M*N) * 2");
  EXPECT_EQ(bytes.evaluate_integer({{"M", 2}, {"N", 3}, {"K", 4}}), 52);
  EXPECT_EQ(bytes.evaluate_integer({{"M", 1}, {"N", 1}, {"K", 1}}), 6);
}

TEST(ExpressionTest, ConstraintExamples) {
  const Expression heads = Expression::parse("H_qo == H_kv * G");
  EXPECT_TRUE(heads.evaluate_condition({{"H_qo", 32}, {"H_kv", 8}, {"G", 4}}));
  EXPECT_FALSE(heads.evaluate_condition({{"H_qo", 32}, {"H_kv", 8}, {"G", 2}}));

  const Expression aligned = Expression::parse("hidden % 8 == 0 and M >= 1");
  EXPECT_TRUE(aligned.evaluate_condition({{"hidden", 4096}, {"M", 1}}));
  EXPECT_FALSE(aligned.evaluate_condition({{"hidden", 4100}, {"M", 1}}));
  EXPECT_FALSE(aligned.evaluate_condition({{"hidden", 4096}, {"M", 0}}));
}

TEST(ExpressionTest, VariablesAreSortedAndUnique) {
  EXPECT_EQ(Expression::parse("b * a + b - c_1").variables(), (std::vector<std::string>{"a", "b", "c_1"}));
  EXPECT_EQ(Expression::parse("min(x, True) + ceil_div(y, 2) and not z").variables(),
            (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(Expression::parse("Z + a").variables(), (std::vector<std::string>{"Z", "a"}));
  EXPECT_TRUE(Expression::parse("1 + 2").variables().empty());
}

TEST(ExpressionTest, TextIsPreservedVerbatim) {
  EXPECT_EQ(Expression::parse("  M *  N ").text(), "  M *  N ");
}

// --- evaluate_integer ------------------------------------------------------------------------

TEST(ExpressionTest, EvaluateIntegerReturnsExactValues) {
  EXPECT_EQ(Expression::parse("7 // 2").evaluate_integer({}), 3);
  EXPECT_EQ(Expression::parse("-8 / 2").evaluate_integer({}), -4);
  EXPECT_EQ(Expression::parse("-(2 ** 63)").evaluate_integer({}), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(Expression::parse("2 ** 62").evaluate_integer({}), 4611686018427387904LL);
}

TEST(ExpressionTest, EvaluateIntegerRejectsFractions) {
  const Expression half = Expression::parse("n / 2");
  EXPECT_EQ(half.evaluate_integer({{"n", 8}}), 4);
  try {
    half.evaluate_integer({{"n", 7}});
    FAIL() << "expected an error";
  } catch (const ExpressionError& error) {
    EXPECT_THAT(error.what(), HasSubstr("3.5"));
    EXPECT_THAT(error.what(), HasSubstr("not an integer"));
  }
}

TEST(ExpressionTest, EvaluateIntegerRejectsOutOfRange) {
  EXPECT_THROW(Expression::parse("2 ** 63").evaluate_integer({}), ExpressionError);
  EXPECT_THROW(Expression::parse("-(2 ** 64)").evaluate_integer({}), ExpressionError);
  EXPECT_THROW(Expression::parse("1e300").evaluate_integer({}), ExpressionError);
}

// --- errors ----------------------------------------------------------------------------------

TEST(ExpressionTest, UnknownVariableIsNamed) {
  const Expression expression = Expression::parse("a + missing_axis");
  try {
    expression.evaluate({{"a", 1}});
    FAIL() << "expected an error";
  } catch (const ExpressionError& error) {
    EXPECT_THAT(error.what(), HasSubstr("unknown variable 'missing_axis'"));
    EXPECT_EQ(error.column(), 4u);
  }
}

TEST(ExpressionTest, NonFiniteBindingIsRejected) {
  const Expression expression = Expression::parse("x + 1");
  EXPECT_THROW(expression.evaluate({{"x", std::numeric_limits<double>::infinity()}}), ExpressionError);
  EXPECT_THROW(expression.evaluate({{"x", std::numeric_limits<double>::quiet_NaN()}}), ExpressionError);
}

TEST(ExpressionTest, UnknownFunctionIsAParseError) {
  const ExpressionError error = parse_error_of("2 + frobnicate(x)");
  EXPECT_THAT(error.what(), HasSubstr("unknown function 'frobnicate'"));
  EXPECT_EQ(error.column(), 4u);
  EXPECT_THROW(Expression::parse("Min(1, 2)"), ExpressionError);  // names are case-sensitive
}

TEST(ExpressionTest, WrongArgumentCountIsAParseError) {
  const ExpressionError too_few = parse_error_of("1 + ceil_div(8)");
  EXPECT_THAT(too_few.what(), HasSubstr("'ceil_div' expects 2 arguments, got 1"));
  EXPECT_EQ(too_few.column(), 4u);
  EXPECT_THAT(parse_error_of("floor(1, 2)").what(), HasSubstr("expects 1 argument, got 2"));
  EXPECT_THAT(parse_error_of("min(1)").what(), HasSubstr("expects at least 2 arguments, got 1"));
  EXPECT_THAT(parse_error_of("sqrt()").what(), HasSubstr("got 0"));
  EXPECT_THROW(Expression::parse("ceil_div(1, 2, 3)"), ExpressionError);
  EXPECT_THROW(Expression::parse("max(1, 2,)"), ExpressionError);
}

TEST(ExpressionTest, DivisionByZero) {
  const ExpressionError divide = error_of("1 / 0");
  EXPECT_THAT(divide.what(), HasSubstr("division by zero"));
  EXPECT_EQ(divide.column(), 2u);
  EXPECT_THAT(error_of("10 // 0").what(), HasSubstr("floor division by zero"));
  EXPECT_THAT(error_of("10 % 0").what(), HasSubstr("modulo by zero"));
  EXPECT_THAT(error_of("ceil_div(1, 0)").what(), HasSubstr("division by zero"));

  const Expression ratio = Expression::parse("x / y");
  EXPECT_EQ(ratio.evaluate({{"x", 6}, {"y", 3}}), 2.0);
  const ExpressionError by_variable = error_of("x / y", {{"x", 6}, {"y", 0}});
  EXPECT_EQ(by_variable.column(), 2u);
}

TEST(ExpressionTest, NonFiniteResultsAreErrors) {
  EXPECT_THAT(error_of("1e308 * 10").what(), HasSubstr("not a finite number"));
  EXPECT_THAT(error_of("0 ** -1").what(), HasSubstr("zero raised to a negative power"));
  EXPECT_THAT(error_of("(-8) ** 0.5").what(), HasSubstr("not a finite number"));
  EXPECT_THAT(error_of("sqrt(-1)").what(), HasSubstr("sqrt of a negative number"));
  EXPECT_THAT(error_of("log2(0)").what(), HasSubstr("log2 of a non-positive number"));
  EXPECT_THAT(error_of("10 ** 400").what(), HasSubstr("'**'"));
  EXPECT_THROW(Expression::parse("1e999"), ExpressionError);
}

TEST(ExpressionTest, UnbalancedParentheses) {
  const ExpressionError unclosed = parse_error_of("(1 + 2");
  EXPECT_THAT(unclosed.what(), HasSubstr("expected ')' to close '(' at column 0"));
  EXPECT_EQ(unclosed.column(), 6u);

  const ExpressionError extra_close = parse_error_of("1 + 2)");
  EXPECT_EQ(extra_close.column(), 5u);

  EXPECT_EQ(parse_error_of("((1)").column(), 4u);
  EXPECT_EQ(parse_error_of(")").column(), 0u);
  EXPECT_EQ(parse_error_of("min(1, 2").column(), 8u);
  EXPECT_EQ(parse_error_of("()").column(), 1u);
}

TEST(ExpressionTest, TrailingTokens) {
  EXPECT_EQ(parse_error_of("1 2").column(), 2u);
  EXPECT_EQ(parse_error_of("x y").column(), 2u);
  EXPECT_EQ(parse_error_of("2x").column(), 1u);
  EXPECT_EQ(parse_error_of("1, 2").column(), 1u);
  EXPECT_THAT(parse_error_of("M * N K").what(), HasSubstr("unexpected 'K' after a complete expression"));
}

TEST(ExpressionTest, MissingOperand) {
  const ExpressionError dangling = parse_error_of("1 +");
  EXPECT_THAT(dangling.what(), HasSubstr("end of expression"));
  EXPECT_EQ(dangling.column(), 3u);
  EXPECT_EQ(parse_error_of("* 2").column(), 0u);
  EXPECT_EQ(parse_error_of("1 * * 2").column(), 4u);
  EXPECT_EQ(parse_error_of("1 and").column(), 5u);
}

TEST(ExpressionTest, EmptyExpression) {
  const ExpressionError empty = parse_error_of("");
  EXPECT_THAT(empty.what(), HasSubstr("empty"));
  EXPECT_EQ(empty.column(), 0u);
  EXPECT_THAT(parse_error_of("   ").what(), HasSubstr("empty"));
}

TEST(ExpressionTest, TooLong) {
  std::string longest = "1";
  while (longest.size() + 2 <= Expression::kMaxTextLength) longest += "+1";
  longest.resize(Expression::kMaxTextLength, ' ');
  ASSERT_EQ(longest.size(), 4096u);
  EXPECT_EQ(eval(longest), 2048.0);

  const ExpressionError error = parse_error_of(longest + " ");
  EXPECT_THAT(error.what(), HasSubstr("longer than 4096 characters"));
  EXPECT_EQ(error.column(), 4096u);
}

TEST(ExpressionTest, TooDeep) {
  const auto nested = [](int depth) { return std::string(depth, '(') + "1" + std::string(depth, ')'); };
  EXPECT_EQ(eval(nested(64)), 1.0);

  const ExpressionError parentheses = parse_error_of(nested(65));
  EXPECT_THAT(parentheses.what(), HasSubstr("deeper than 64"));
  EXPECT_EQ(parentheses.column(), 64u);

  EXPECT_THROW(Expression::parse(nested(2000)), ExpressionError);  // never recurses past the limit
  EXPECT_THROW(Expression::parse(std::string(4000, '-') + "1"), ExpressionError);
  EXPECT_THROW(Expression::parse(std::string(2000, '!') + "1"), ExpressionError);

  std::string calls = "1";
  for (int i = 0; i < 100; ++i) calls = "abs(" + calls + ")";
  EXPECT_THROW(Expression::parse(calls), ExpressionError);

  std::string powers = "1";
  for (int i = 0; i < 100; ++i) powers += "**1";
  EXPECT_THROW(Expression::parse(powers), ExpressionError);
}

TEST(ExpressionTest, UnexpectedCharacters) {
  const ExpressionError dollar = parse_error_of("1 $ 2");
  EXPECT_THAT(dollar.what(), HasSubstr("unexpected character '$'"));
  EXPECT_EQ(dollar.column(), 2u);

  const ExpressionError assignment = parse_error_of("a = b");
  EXPECT_THAT(assignment.what(), HasSubstr("'=='"));
  EXPECT_EQ(assignment.column(), 2u);

  EXPECT_EQ(parse_error_of("a & b").column(), 2u);
  EXPECT_EQ(parse_error_of("a | b").column(), 2u);
  EXPECT_EQ(parse_error_of("0x10").column(), 1u);  // hex is not supported: 'x10' trails
}

TEST(ExpressionTest, MalformedNumbers) {
  EXPECT_THAT(parse_error_of("1e").what(), HasSubstr("malformed number"));
  EXPECT_EQ(parse_error_of("2 + 1e+").column(), 4u);
  EXPECT_THROW(Expression::parse("1.2.3"), ExpressionError);
}

TEST(ExpressionTest, ChainedComparisonsAreRejected) {
  const ExpressionError error = parse_error_of("1 < x < 3");
  EXPECT_THAT(error.what(), HasSubstr("chained comparisons"));
  EXPECT_EQ(error.column(), 6u);
  EXPECT_EQ(eval("1 < x and x < 3", {{"x", 2}}), 1.0);
}

TEST(ExpressionTest, KeywordsCannotBeOperands) {
  EXPECT_THAT(parse_error_of("and + 1").what(), HasSubstr("unexpected keyword 'and'"));
  EXPECT_THROW(Expression::parse("1 + or"), ExpressionError);
  EXPECT_THROW(Expression::parse("1 == not 0"), ExpressionError);
}

TEST(ExpressionTest, MessageIncludesTextAndColumn) {
  const ExpressionError error = parse_error_of("M * (N + )");
  EXPECT_EQ(error.column(), 9u);
  EXPECT_THAT(error.what(), HasSubstr("column 9"));
  EXPECT_THAT(error.what(), HasSubstr("\"M * (N + )\""));
}

}  // namespace
}  // namespace kernelarc::task

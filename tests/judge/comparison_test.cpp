#include "judge/comparison.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace kernelarc::judge {
namespace {

using task::DType;
using task::Tolerance;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<std::byte> f32(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<std::byte> bf16(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t bits = task::float_to_bf16(values[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);
  }
  return bytes;
}

Tolerance tolerance(double atol, double rtol, double ratio = 1.0) {
  Tolerance t;
  t.max_atol = atol;
  t.max_rtol = rtol;
  t.required_matched_ratio = ratio;
  return t;
}

Comparison compare(const std::vector<float>& actual, const std::vector<float>& expected, const Tolerance& tol,
                   std::vector<std::int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<std::int64_t>(actual.size())};
  const auto a = f32(actual), e = f32(expected);
  return compare_output("y", DType::float32, shape, a.data(), e.data(), tol);
}

// ---- the element rule ----

TEST(ComparisonTest, ElementRuleBoundary) {
  // atol 0.5 + rtol 0.25 * |2| = 1 exactly (all binary-exact values).
  const Tolerance tol = tolerance(0.5, 0.25);
  EXPECT_TRUE(compare({3.0f}, {2.0f}, tol).passed);
  EXPECT_TRUE(compare({1.0f}, {2.0f}, tol).passed);
  EXPECT_TRUE(compare({-3.0f}, {-2.0f}, tol).passed);  // |y| for a negative reference
  const auto above = compare({std::nextafter(3.0f, 4.0f)}, {2.0f}, tol);
  EXPECT_FALSE(above.passed);
  EXPECT_EQ(above.mismatched, 1);
  EXPECT_EQ(above.first_bad_index, 0);
  EXPECT_FALSE(compare({std::nextafter(1.0f, 0.0f)}, {2.0f}, tol).passed);
  EXPECT_FALSE(compare({std::nextafter(-3.0f, -4.0f)}, {-2.0f}, tol).passed);
  // rtol scales with the reference, not the candidate: |x - y| = 1.5 is within 0.5 + 0.25 * 4 = 1.5.
  EXPECT_TRUE(compare({2.5f}, {4.0f}, tol).passed);
  EXPECT_FALSE(compare({4.0f}, {2.5f}, tol).passed);  // 0.5 + 0.25 * 2.5 = 1.125 < 1.5
  // atol alone at y = 0.
  EXPECT_TRUE(compare({0.5f, 1.0f}, {0.0f, 1.0f}, tol).passed);
  EXPECT_FALSE(compare({0.5000001f, 1.0f}, {0.0f, 1.0f}, tol).passed);
}

TEST(ComparisonTest, StatisticsAreReported) {
  const auto result = compare({1.0f, 2.5f, 3.0f, 10.0f}, {1.0f, 2.0f, 3.0f, 8.0f}, tolerance(0.0, 0.0, 0.5));
  EXPECT_TRUE(result.passed);  // 2 of 4 matched, 0.5 required
  EXPECT_EQ(result.values, 4);
  EXPECT_EQ(result.mismatched, 2);
  EXPECT_EQ(result.first_bad_index, 1);
  EXPECT_DOUBLE_EQ(result.max_abs_error, 2.0);
  EXPECT_DOUBLE_EQ(result.max_rel_error, 0.25);
  EXPECT_DOUBLE_EQ(result.matched_ratio, 0.5);
  EXPECT_FALSE(result.unwritten);
  EXPECT_EQ(result.reason, "");
}

TEST(ComparisonTest, MatchedRatioExactlyAtTheRequirement) {
  // 100 values, default ratio 0.99: one bad value passes, two fail.
  std::vector<float> expected(100, 1.0f), actual(100, 1.0f);
  actual[17] = 5.0f;
  const Tolerance tol = tolerance(1e-3, 1e-3, 0.99);
  const auto one = compare(actual, expected, tol);
  EXPECT_TRUE(one.passed) << one.reason;
  EXPECT_DOUBLE_EQ(one.matched_ratio, 0.99);
  actual[42] = 5.0f;
  const auto two = compare(actual, expected, tol);
  EXPECT_FALSE(two.passed);
  EXPECT_EQ(two.mismatched, 2);
  EXPECT_THAT(two.reason, HasSubstr("2 of 100 values (2.00%)"));
  EXPECT_THAT(two.reason, HasSubstr("need 99.00% matched"));
  EXPECT_THAT(two.reason, HasSubstr("first bad [17]"));
}

TEST(ComparisonTest, MatchedRatioExactForRatiosThatRoundBadly) {
  // 1 - 93/100 is just below 0.07 in floating point, but 7 of 100 matched is exactly 0.07.
  std::vector<float> expected(100, 1.0f), actual(100, 9.0f);
  for (int i = 0; i < 7; ++i) actual[i] = 1.0f;
  EXPECT_TRUE(compare(actual, expected, tolerance(0.0, 0.0, 0.07)).passed);
  actual[6] = 9.0f;
  EXPECT_FALSE(compare(actual, expected, tolerance(0.0, 0.0, 0.07)).passed);
  // 1 of 10 against 0.1 (1 - 0.9 is 0.09999999999999998).
  std::vector<float> ten_expected(10, 1.0f), ten_actual(10, 9.0f);
  ten_actual[3] = 1.0f;
  EXPECT_TRUE(compare(ten_actual, ten_expected, tolerance(0.0, 0.0, 0.1)).passed);
}

TEST(ComparisonTest, MaxErrorCap) {
  Tolerance tol = tolerance(1.0, 0.0);
  tol.max_error_cap = 0.5;
  EXPECT_TRUE(compare({1.5f, 2.0f}, {1.0f, 2.0f}, tol).passed);  // exactly at the cap
  const auto over = compare({1.75f, 2.0f}, {1.0f, 2.0f}, tol);   // inside atol, over the cap
  EXPECT_FALSE(over.passed);
  EXPECT_EQ(over.mismatched, 0);
  EXPECT_THAT(over.reason, HasSubstr("output 'y'"));
  EXPECT_THAT(over.reason, HasSubstr("max abs error 0.75 is over the cap 0.5"));
  tol.max_error_cap.reset();
  EXPECT_TRUE(compare({1.75f, 2.0f}, {1.0f, 2.0f}, tol).passed);
}

// ---- NaN, Inf, zeros ----

TEST(ComparisonTest, NaNFailsEvenWhenTheRatioAllowsIt) {
  const auto result = compare({1.0f, kNaN, 3.0f, 4.0f}, {1.0f, 2.0f, 3.0f, 4.0f}, tolerance(0.1, 0.1, 0.5), {2, 2});
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.mismatched, 1);
  EXPECT_EQ(result.first_bad_index, 1);
  EXPECT_THAT(result.reason, HasSubstr("output 'y'"));
  EXPECT_THAT(result.reason, HasSubstr("NaN at [0, 1]"));
  // Even when required_matched_ratio is 0.
  EXPECT_FALSE(compare({kNaN}, {1.0f}, tolerance(1e9, 1e9, 0.0)).passed);
}

TEST(ComparisonTest, PositiveInfFails) {
  const auto result = compare({1.0f, 2.0f, kInf}, {1.0f, 2.0f, 3.0f}, tolerance(0.1, 0.1, 0.5));
  EXPECT_FALSE(result.passed);
  EXPECT_THAT(result.reason, HasSubstr("+inf at [2]"));
  // +inf is never allowed, not even against a +inf reference or with allow_negative_inf.
  Tolerance tol = tolerance(0.1, 0.1, 0.5);
  tol.allow_negative_inf = true;
  EXPECT_FALSE(compare({kInf, 1.0f}, {kInf, 1.0f}, tol).passed);
}

TEST(ComparisonTest, NegativeInfOnlyWhenAllowedAndMatched) {
  Tolerance allowed = tolerance(0.1, 0.1);
  allowed.allow_negative_inf = true;
  EXPECT_TRUE(compare({-kInf, 1.0f}, {-kInf, 1.0f}, allowed).passed);
  // Not allowed by the tolerance.
  const auto refused = compare({-kInf, 1.0f}, {-kInf, 1.0f}, tolerance(0.1, 0.1));
  EXPECT_FALSE(refused.passed);
  EXPECT_THAT(refused.reason, HasSubstr("-inf at [0]"));
  // Allowed, but the reference is finite there.
  const auto unmatched = compare({1.0f, -kInf}, {1.0f, -5.0f}, allowed);
  EXPECT_FALSE(unmatched.passed);
  EXPECT_THAT(unmatched.reason, HasSubstr("-inf at [1]"));
  // Allowed, but only where the reference has -inf: a finite value there is a mismatch.
  const auto finite = compare({1.0f, -1e30f}, {1.0f, -kInf}, allowed);
  EXPECT_FALSE(finite.passed);
  EXPECT_EQ(finite.mismatched, 1);
  // +inf against a -inf reference is not a match.
  EXPECT_FALSE(compare({kInf, 1.0f}, {-kInf, 1.0f}, allowed).passed);
}

TEST(ComparisonTest, AllZeroAgainstNonZeroReference) {
  // Every element is inside atol, but an all-zero output is not an answer.
  const auto result = compare({0.0f, 0.0f, -0.0f, 0.0f}, {1e-3f, 0.0f, 0.0f, -2e-3f}, tolerance(1e-2, 1e-2));
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.mismatched, 0);
  EXPECT_THAT(result.reason, HasSubstr("output 'y': every value is zero but the reference is not"));
  // All zero against all zero is right.
  EXPECT_TRUE(compare({0.0f, 0.0f, 0.0f}, {0.0f, -0.0f, 0.0f}, tolerance(1e-2, 1e-2)).passed);
  // One non-zero value is enough to not be "all zero".
  EXPECT_TRUE(compare({0.0f, 0.0f, 0.0f, 1e-3f}, {1e-3f, 0.0f, 0.0f, 0.0f}, tolerance(1e-2, 1e-2)).passed);
}

TEST(ComparisonTest, EveryValueNearZeroIsJudgedAtTheAbsoluteTolerance) {
  const auto near = [](std::vector<float> values, double atol) {
    return every_value_near_zero(task::DType::float32, {static_cast<std::int64_t>(values.size())},
                                 reinterpret_cast<const std::byte*>(values.data()), atol);
  };
  EXPECT_TRUE(near({1e-31f, -4e-27f, 0.0f, 1e-5f}, 1e-5));
  EXPECT_FALSE(near({1e-31f, -2e-5f, 0.0f}, 1e-5));
  EXPECT_FALSE(near({0.0f, std::numeric_limits<float>::quiet_NaN()}, 1e-5)) << "a NaN is not near anything";
  EXPECT_TRUE(near({}, 0));
}

TEST(ComparisonTest, EmptyOutputPasses) {
  const auto result = compare({}, {}, tolerance(0, 0), {0, 4});
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.values, 0);
}

// ---- dtypes ----

TEST(ComparisonTest, Bf16ComparedInFp32) {
  // 1.0078125 and 1.0 are neighbours in bf16 (0x3F81, 0x3F80): compared as values, not bits.
  const auto got = bf16({1.0078125f, 2.015625f}), want = bf16({1.0f, 2.0f});
  EXPECT_TRUE(compare_output("out", DType::bfloat16, {2}, got.data(), want.data(), tolerance(0.015625, 0.0)).passed);
  const auto fails = compare_output("out", DType::bfloat16, {2}, got.data(), want.data(), tolerance(0.0078125, 0.0));
  EXPECT_FALSE(fails.passed);
  EXPECT_EQ(fails.mismatched, 1);  // 0.0078125 is exactly at atol for [0]; [1] is 0.015625 away
  EXPECT_EQ(fails.first_bad_index, 1);
  EXPECT_DOUBLE_EQ(fails.max_abs_error, 0.015625);
  EXPECT_THAT(fails.reason, HasSubstr("output 'out'"));
  EXPECT_THAT(fails.reason, HasSubstr("[1]: got 2.0156"));
  EXPECT_THAT(fails.reason, HasSubstr(", expected 2;"));
  // rtol on the fp32 value of the reference: 2^-7 * 2 = 0.015625.
  EXPECT_TRUE(compare_output("out", DType::bfloat16, {2}, got.data(), want.data(), tolerance(0.0, 0.0078125)).passed);
}

TEST(ComparisonTest, PackedFp4IndexNamesTheValue) {
  // float4_e2m1fn_x2: byte 0x22 is {1.0, 1.0}; 0x12 is {1.0 (low), 0.5 (high)}.
  const std::vector<std::byte> want = {std::byte{0x22}, std::byte{0x22}};
  const std::vector<std::byte> got = {std::byte{0x22}, std::byte{0x12}};
  const auto result = compare_output("q", DType::float4_e2m1fn_x2, {2}, got.data(), want.data(), tolerance(0.25, 0.0));
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.values, 4);
  EXPECT_EQ(result.first_bad_index, 3);
  EXPECT_THAT(result.reason, HasSubstr("[1] value 1: got 0.5, expected 1"));
}

// ---- the reason text ----

TEST(ComparisonTest, ReasonNamesOutputIndexAndValues) {
  std::vector<float> expected(12, 2.0f), actual(12, 2.0f);
  actual[7] = 9.5f;
  const auto a = f32(actual), e = f32(expected);
  const auto result = compare_output("logits", DType::float32, {3, 4}, a.data(), e.data(), tolerance(0.01, 0.01));
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.first_bad_index, 7);
  EXPECT_THAT(result.reason, HasSubstr("output 'logits'"));
  EXPECT_THAT(result.reason, HasSubstr("[1, 3]: got 9.5, expected 2"));
  EXPECT_THAT(result.reason, HasSubstr("1 of 12 values"));
  EXPECT_THAT(result.reason, HasSubstr("max abs error 7.5"));
  EXPECT_THAT(result.reason, HasSubstr("atol 0.01 + rtol 0.01"));
}

// ---- unwritten outputs ----

TEST(ComparisonTest, UnwrittenDetectedWithPoisonByte) {
  const std::byte poison{0xFF};  // 0xFFFFFFFF is a NaN in fp32
  const std::vector<float> expected = {1, 2, 3, 4, 5, 6};
  const auto want = f32(expected);
  std::vector<std::byte> got(want.size(), poison);
  auto result = compare_output("y", DType::float32, {2, 3}, got.data(), want.data(), tolerance(0.01, 0.01), poison);
  EXPECT_FALSE(result.passed);
  EXPECT_TRUE(result.unwritten);
  EXPECT_EQ(result.mismatched, 6);
  EXPECT_THAT(result.reason, HasSubstr("output 'y': 6 of 6 values left unwritten"));
  EXPECT_THAT(result.reason, HasSubstr("first at [0, 0]"));

  // Everything written but one element.
  got = f32(expected);
  std::memset(got.data() + 4 * sizeof(float), 0xFF, sizeof(float));
  result = compare_output("y", DType::float32, {2, 3}, got.data(), want.data(), tolerance(0.01, 0.01), poison);
  EXPECT_FALSE(result.passed);
  EXPECT_TRUE(result.unwritten);
  EXPECT_THAT(result.reason, HasSubstr("1 of 6 values left unwritten"));
  EXPECT_THAT(result.reason, HasSubstr("first at [1, 1]"));

  // One unwritten and one plainly wrong: not "every bad value was unwritten".
  const float wrong = 100.0f;
  std::memcpy(got.data(), &wrong, sizeof wrong);
  result = compare_output("y", DType::float32, {2, 3}, got.data(), want.data(), tolerance(0.01, 0.01), poison);
  EXPECT_FALSE(result.passed);
  EXPECT_FALSE(result.unwritten);
  EXPECT_EQ(result.mismatched, 2);

  // Without the poison byte the same buffer is just a NaN.
  got.assign(want.size(), poison);
  result = compare_output("y", DType::float32, {2, 3}, got.data(), want.data(), tolerance(0.01, 0.01));
  EXPECT_FALSE(result.passed);
  EXPECT_FALSE(result.unwritten);
  EXPECT_THAT(result.reason, HasSubstr("NaN at [0, 0]"));
  EXPECT_THAT(result.reason, Not(HasSubstr("unwritten")));
}

TEST(ComparisonTest, FinitePoisonInBf16IsComparedAsAValue) {
  const std::byte poison{0x7F};  // 0x7F7F: a huge finite bf16, which a kernel may write
  const auto want = bf16({1, 2, 3, 4});
  std::vector<std::byte> got = bf16({1, 2, 3, 4});
  got[6] = got[7] = poison;
  const auto result = compare_output("o", DType::bfloat16, {4}, got.data(), want.data(), tolerance(0.01, 0.01), poison);
  EXPECT_FALSE(result.passed);
  EXPECT_FALSE(result.unwritten);
  EXPECT_EQ(result.mismatched, 1);
  EXPECT_THAT(result.reason, HasSubstr("1 of 4 values (25.00%) outside atol"));
  EXPECT_THAT(result.reason, Not(HasSubstr("unwritten")));
  const auto good = compare_output("o", DType::bfloat16, {4}, want.data(), want.data(), tolerance(0.01, 0.01), poison);
  EXPECT_TRUE(good.passed);
  EXPECT_FALSE(good.unwritten);
}

// ---- poison patterns that are legal values ----

TEST(ComparisonTest, PoisonIsFiniteForEveryDType) {
  struct Expected {
    DType dtype;
    bool ff, fe;
  };
  // 0xFF is NaN in every float format; 0xFE is NaN in fp16 and e5m2 only; every pattern is a value of the
  // integers, bool and fp4 (which has no NaN).
  const std::vector<Expected> table = {
      {DType::float64, false, true},       {DType::float32, false, true},     {DType::float16, false, false},
      {DType::bfloat16, false, true},      {DType::float8_e4m3fn, false, true}, {DType::float8_e5m2, false, false},
      {DType::float4_e2m1, true, true},    {DType::float4_e2m1fn_x2, true, true}, {DType::int64, true, true},
      {DType::int32, true, true},          {DType::int16, true, true},        {DType::int8, true, true},
      {DType::uint8, true, true},          {DType::boolean, true, true},
  };
  ASSERT_EQ(table.size(), task::all_dtypes().size());
  for (const auto& [dtype, ff, fe] : table) {
    EXPECT_EQ(poison_is_finite(dtype, std::byte{0xFF}), ff) << task::dtype_name(dtype);
    EXPECT_EQ(poison_is_finite(dtype, std::byte{0xFE}), fe) << task::dtype_name(dtype);
    EXPECT_TRUE(poison_is_finite(dtype, std::byte{0x00})) << task::dtype_name(dtype);
  }
  EXPECT_FALSE(poison_is_finite(DType::float8_e4m3fn, std::byte{0x7F}));
  EXPECT_TRUE(poison_is_finite(DType::float8_e5m2, std::byte{0x7B}));
  EXPECT_FALSE(poison_is_finite(DType::float8_e5m2, std::byte{0x7C}));  // +inf
}

// 100 fp8 e4m3 values; the largest of the row rounds one step away from the reference's, to -448 = 0xFE.
struct Fp8RowWithOneStep {
  std::vector<std::byte> got, want;
  Fp8RowWithOneStep() {
    for (int i = 0; i < 100; ++i) want.push_back(std::byte{task::float_to_fp8_e4m3fn(static_cast<float>(i % 7) - 3.0f)});
    want[40] = std::byte{task::float_to_fp8_e4m3fn(-416.0f)};
    got = want;
    got[40] = std::byte{0xFE};
  }
};

TEST(ComparisonTest, Fp8MinusFourFortyEightIsNotUnwritten) {
  EXPECT_EQ(task::fp8_e4m3fn_to_float(0xFE), -448.0f);
  const Fp8RowWithOneStep row;
  const auto passes = compare_output("y", DType::float8_e4m3fn, {4, 25}, row.got.data(), row.want.data(),
                                     tolerance(1e-2, 1e-2, 0.99), std::byte{0xFE});
  EXPECT_TRUE(passes.passed) << passes.reason;
  EXPECT_EQ(passes.mismatched, 1);
  EXPECT_FALSE(passes.unwritten);

  const auto fails = compare_output("y", DType::float8_e4m3fn, {4, 25}, row.got.data(), row.want.data(),
                                    tolerance(1e-2, 1e-2, 1.0), std::byte{0xFE});
  EXPECT_FALSE(fails.passed);
  EXPECT_FALSE(fails.unwritten);
  EXPECT_THAT(fails.reason, Not(HasSubstr("unwritten")));
  EXPECT_THAT(fails.reason, HasSubstr("1 of 100 values (1.00%) outside atol"));
  EXPECT_THAT(fails.reason, HasSubstr("[1, 15]: got -448, expected -416"));
}

TEST(ComparisonTest, Fp8NaNPoisonIsStillUnwritten) {
  Fp8RowWithOneStep row;
  row.got[40] = std::byte{0xFF};  // NaN in e4m3fn
  const auto result = compare_output("y", DType::float8_e4m3fn, {4, 25}, row.got.data(), row.want.data(),
                                     tolerance(1e-2, 1e-2, 0.99), std::byte{0xFF});
  EXPECT_FALSE(result.passed);
  EXPECT_TRUE(result.unwritten);
  EXPECT_THAT(result.reason, HasSubstr("1 of 100 values left unwritten"));
  EXPECT_THAT(result.reason, HasSubstr("first at [1, 15]"));
}

TEST(ComparisonTest, Fp32UnwrittenWithFirstPoisonAndComparedWithSecond) {
  const auto want = f32({1, 2, 3, 4});
  std::vector<std::byte> got = want;
  std::memset(got.data() + 8, 0xFF, 4);
  const auto nan = compare_output("y", DType::float32, {4}, got.data(), want.data(), tolerance(0.01, 0.01), std::byte{0xFF});
  EXPECT_FALSE(nan.passed);
  EXPECT_TRUE(nan.unwritten);
  EXPECT_THAT(nan.reason, HasSubstr("output 'y': 1 of 4 values left unwritten"));
  // 0xFEFEFEFE is -1.69e38 in fp32: a (wrong) value, not a sign of an unwritten element.
  std::memset(got.data() + 8, 0xFE, 4);
  const auto finite = compare_output("y", DType::float32, {4}, got.data(), want.data(), tolerance(0.01, 0.01), std::byte{0xFE});
  EXPECT_FALSE(finite.passed);
  EXPECT_FALSE(finite.unwritten);
  EXPECT_THAT(finite.reason, HasSubstr("1 of 4 values (25.00%) outside atol"));
  EXPECT_THAT(finite.reason, Not(HasSubstr("unwritten")));
}

std::vector<std::byte> i32(const std::vector<std::int32_t>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(std::int32_t));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(ComparisonTest, Int32PoisonPatternIsComparedNumerically) {
  // -1 is 0xFFFFFFFF: a right answer here (a "not found" index, say).
  const auto want = i32({3, -1, -1, 7});
  const auto right = compare_output("idx", DType::int32, {4}, want.data(), want.data(), tolerance(0, 0), std::byte{0xFF});
  EXPECT_TRUE(right.passed) << right.reason;
  EXPECT_FALSE(right.unwritten);
  // A -1 where the reference has 7 is a plain mismatch.
  const auto got = i32({3, -1, -1, -1});
  const auto wrong = compare_output("idx", DType::int32, {4}, got.data(), want.data(), tolerance(0, 0), std::byte{0xFF});
  EXPECT_FALSE(wrong.passed);
  EXPECT_FALSE(wrong.unwritten);
  EXPECT_THAT(wrong.reason, HasSubstr("[3]: got -1, expected 7"));
  EXPECT_THAT(wrong.reason, Not(HasSubstr("unwritten")));
}

// ---- an element holding the poison pattern after both runs ----

TEST(ComparisonTest, UnwrittenInBothInt32) {
  const std::byte p{0xFF}, q{0xFE};
  const auto first = i32({5, 6, -1, 8, -1, 10});
  auto second = i32({5, 6, 0, 8, -1, 10});
  std::memset(second.data() + 2 * 4, 0xFE, 4);  // [0, 2] held 0xFF... then 0xFE...
  const auto found = unwritten_in_both("y", DType::int32, {2, 3}, first.data(), p, second.data(), q);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, "output 'y': 1 of 6 values left unwritten (the poison pattern in both runs, 0xFF then 0xFE), first at [0, 2]");
  // [1, 1] is -1 in both runs: written, a legal value.
  const auto written = i32({5, 6, -1, 8, -1, 10});
  EXPECT_EQ(unwritten_in_both("y", DType::int32, {2, 3}, first.data(), p, written.data(), q), std::nullopt);
  // Only the second run holds its pattern.
  const auto other = i32({5, 6, 0, 8, -1, 10});
  EXPECT_EQ(unwritten_in_both("y", DType::int32, {2, 3}, other.data(), p, second.data(), q), std::nullopt);
  // Part of the element is not enough.
  auto partial = second;
  partial[2 * 4 + 3] = std::byte{0x00};
  EXPECT_EQ(unwritten_in_both("y", DType::int32, {2, 3}, first.data(), p, partial.data(), q), std::nullopt);
}

TEST(ComparisonTest, UnwrittenInBothFp8AndBf16) {
  const std::byte p{0xFF}, q{0xFE};
  std::vector<std::byte> first(8, std::byte{0x38}), second(8, std::byte{0x38});
  first[5] = first[6] = p;
  second[5] = second[6] = q;
  second[6] = std::byte{0x38};
  const auto fp8 = unwritten_in_both("q", DType::float8_e4m3fn, {8}, first.data(), p, second.data(), q);
  ASSERT_TRUE(fp8.has_value());
  EXPECT_THAT(*fp8, HasSubstr("output 'q': 1 of 8 values left unwritten"));
  EXPECT_THAT(*fp8, HasSubstr("first at [5]"));
  // -448 in both runs is written by the kernel: not the second poison after the first.
  std::vector<std::byte> both_fe(8, q);
  EXPECT_EQ(unwritten_in_both("q", DType::float8_e4m3fn, {8}, both_fe.data(), p, both_fe.data(), q), std::nullopt);

  // bf16 [2, 2]: 0xFFFF then 0xFEFE at [1, 0] and [1, 1].
  std::vector<std::byte> a = bf16({1, 2, 3, 4}), b = a;
  std::memset(a.data() + 4, 0xFF, 4);
  std::memset(b.data() + 4, 0xFE, 4);
  const auto halves = unwritten_in_both("h", DType::bfloat16, {2, 2}, a.data(), p, b.data(), q);
  ASSERT_TRUE(halves.has_value());
  EXPECT_THAT(*halves, HasSubstr("2 of 4 values left unwritten"));
  EXPECT_THAT(*halves, HasSubstr("first at [1, 0]"));
  EXPECT_EQ(unwritten_in_both("h", DType::bfloat16, {2, 2}, a.data(), p, a.data(), q), std::nullopt);
}

TEST(ComparisonTest, UnwrittenInBothFp4CountsNibbles) {
  const std::byte p{0xFF}, q{0xFE};  // low nibbles F then E; high nibbles F both times (-6, a legal value)
  // float4_e2m1, 5 values (odd): value 2 is the low nibble of byte 1.
  const std::vector<std::byte> first = {std::byte{0x22}, std::byte{0x2F}, std::byte{0x02}};
  const std::vector<std::byte> second = {std::byte{0x22}, std::byte{0x2E}, std::byte{0x02}};
  const auto found = unwritten_in_both("f", DType::float4_e2m1, {5}, first.data(), p, second.data(), q);
  ASSERT_TRUE(found.has_value());
  EXPECT_THAT(*found, HasSubstr("1 of 5 values left unwritten"));
  EXPECT_THAT(*found, HasSubstr("first at [2]"));
  EXPECT_EQ(unwritten_in_both("f", DType::float4_e2m1, {5}, first.data(), p, first.data(), q), std::nullopt);
  // -6 (nibble F) written in a high nibble in both runs matches both patterns there: not reported.
  const std::vector<std::byte> minus_six = {std::byte{0xF2}, std::byte{0xF2}, std::byte{0x02}};
  EXPECT_EQ(unwritten_in_both("f", DType::float4_e2m1, {5}, minus_six.data(), p, minus_six.data(), q), std::nullopt);
  // The nibble past the last value of an odd count is not a value.
  const std::vector<std::byte> tail_first = {std::byte{0x22}, std::byte{0x22}, std::byte{0x22}, std::byte{0x0F}};
  const std::vector<std::byte> tail_second = {std::byte{0x22}, std::byte{0x22}, std::byte{0x22}, std::byte{0x0E}};
  EXPECT_EQ(unwritten_in_both("f", DType::float4_e2m1, {6}, tail_first.data(), p, tail_second.data(), q), std::nullopt);
  EXPECT_TRUE(unwritten_in_both("f", DType::float4_e2m1, {7}, tail_first.data(), p, tail_second.data(), q).has_value());

  // float4_e2m1fn_x2 [2]: element 1's low value.
  const auto x2 = unwritten_in_both("f", DType::float4_e2m1fn_x2, {2}, first.data(), p, second.data(), q);
  ASSERT_TRUE(x2.has_value());
  EXPECT_THAT(*x2, HasSubstr("1 of 4 values left unwritten"));
  EXPECT_THAT(*x2, HasSubstr("first at [1] value 0"));
  // Poisons whose high nibbles differ check those too.
  const std::vector<std::byte> high_first = {std::byte{0x22}, std::byte{0xF2}}, high_second = {std::byte{0x22}, std::byte{0xE2}};
  const auto high = unwritten_in_both("f", DType::float4_e2m1fn_x2, {2}, high_first.data(), std::byte{0xFF}, high_second.data(), std::byte{0xEE});
  ASSERT_TRUE(high.has_value());
  EXPECT_THAT(*high, HasSubstr("first at [1] value 1"));
}

TEST(ComparisonTest, UnwrittenInBothNeedsTwoDifferentPoisons) {
  const auto values = i32({-1, -1});
  EXPECT_EQ(unwritten_in_both("y", DType::int32, {2}, values.data(), std::byte{0xFF}, values.data(), std::byte{0xFF}), std::nullopt);
}

TEST(ComparisonTest, UnwrittenInBothCountsAcrossChunksOfALargeOutput) {
  std::vector<std::int32_t> values(300000, 4);
  auto first = i32(values), second = first;
  for (const std::size_t at : {299999u, 250001u, 70000u}) {
    std::memset(first.data() + at * 4, 0xFF, 4);
    std::memset(second.data() + at * 4, 0xFE, 4);
  }
  std::memset(second.data() + 70000 * 4, 0x00, 4);  // written in the second run
  const auto found = unwritten_in_both("y", DType::int32, {3, 100000}, first.data(), std::byte{0xFF}, second.data(), std::byte{0xFE});
  ASSERT_TRUE(found.has_value());
  EXPECT_THAT(*found, HasSubstr("2 of 300000 values left unwritten"));
  EXPECT_THAT(*found, HasSubstr("first at [2, 50001]"));
}

// ---- the reference's own output ----

TEST(ComparisonTest, ReferenceOutputProblem) {
  const Tolerance plain = tolerance(0.01, 0.01);
  Tolerance negative_inf = plain;
  negative_inf.allow_negative_inf = true;
  auto values = f32({1, 2, 3, 4});
  EXPECT_EQ(reference_output_problem("y", DType::float32, {2, 2}, values.data(), plain), std::nullopt);
  values = f32({1, 2, kNaN, 4});
  EXPECT_EQ(reference_output_problem("y", DType::float32, {2, 2}, values.data(), negative_inf),
            std::optional<std::string>("reference output 'y' has NaN at [1, 0]"));
  values = f32({1, kInf, 3, 4});
  EXPECT_EQ(reference_output_problem("y", DType::float32, {2, 2}, values.data(), negative_inf),
            std::optional<std::string>("reference output 'y' has Inf at [0, 1]"));
  values = f32({1, -kInf, 3, 4});
  EXPECT_EQ(reference_output_problem("y", DType::float32, {2, 2}, values.data(), negative_inf), std::nullopt);
  const auto problem = reference_output_problem("y", DType::float32, {2, 2}, values.data(), plain);
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(*problem, HasSubstr("Inf at [0, 1]"));
  const auto halves = bf16({1, kNaN});
  EXPECT_TRUE(reference_output_problem("h", DType::bfloat16, {2}, halves.data(), plain).has_value());
}

// ---- nondeterminism ----

TEST(ComparisonTest, NondeterminismIdenticalRunsPass) {
  const auto a = f32({1.0f, -2.0f, kNaN, -kInf, 0.0f});
  const auto b = f32({1.0f, -2.0f, kNaN, -kInf, -0.0f});
  EXPECT_EQ(nondeterminism("y", DType::float32, {5}, a.data(), b.data(), tolerance(0.01, 0.01)), std::nullopt);
}

TEST(ComparisonTest, NondeterminismRoundingDifferencePasses) {
  const auto a = f32({1.0f, 1000.0f});
  const auto b = f32({std::nextafter(1.0f, 2.0f), std::nextafter(1000.0f, 0.0f)});
  EXPECT_EQ(nondeterminism("y", DType::float32, {2}, a.data(), b.data(), tolerance(1e-5, 1e-5)), std::nullopt);
  // The band is a tenth of the task's: atol 0.5 gives 0.05.
  const auto c = f32({1.0f}), d = f32({1.046875f}), e = f32({1.0625f});
  EXPECT_EQ(nondeterminism("y", DType::float32, {1}, c.data(), d.data(), tolerance(0.5, 0.0)), std::nullopt);
  EXPECT_NE(nondeterminism("y", DType::float32, {1}, c.data(), e.data(), tolerance(0.5, 0.0)), std::nullopt);
}

TEST(ComparisonTest, NondeterminismRealDifferenceFails) {
  const auto a = f32({1.0f, 2.0f, 3.0f, 4.0f}), b = f32({1.0f, 2.0f, 3.0f, 4.01f});
  const auto difference = nondeterminism("z", DType::float32, {2, 2}, a.data(), b.data(), tolerance(0.01, 0.01));
  ASSERT_TRUE(difference.has_value());
  EXPECT_THAT(*difference, HasSubstr("output 'z' differs between two runs on the same inputs at [1, 1]"));
  EXPECT_THAT(*difference, HasSubstr("4 then 4.01"));
  // A value within the task's tolerance but far beyond rounding is still a race.
  const auto c = f32({1.0f}), d = f32({1.015f});
  EXPECT_TRUE(nondeterminism("z", DType::float32, {1}, c.data(), d.data(), tolerance(0.01, 0.01)).has_value());
}

// Large outputs are checked in parallel chunks: the difference reported is the first in the output, wherever it is.
TEST(ComparisonTest, NondeterminismReportsTheFirstDifferenceOfALargeOutput) {
  std::vector<float> values(300000, 0.5f);
  auto a = f32(values), b = a;
  const auto change = [&](std::vector<std::byte>& bytes, std::size_t at, float value) { std::memcpy(bytes.data() + at * 4, &value, 4); };
  change(b, 299999, 7.0f);
  change(b, 200001, 3.0f);
  const auto difference = nondeterminism("y", DType::float32, {3, 100000}, a.data(), b.data(), tolerance(0.01, 0.01));
  ASSERT_TRUE(difference.has_value());
  EXPECT_THAT(*difference, HasSubstr("at [2, 1]: 0.5 then 3"));
  EXPECT_EQ(nondeterminism("y", DType::float32, {3, 100000}, a.data(), a.data(), tolerance(0.01, 0.01)), std::nullopt);
}

TEST(ComparisonTest, NondeterminismNonFiniteDifferencesFail) {
  const Tolerance tol = tolerance(0.01, 0.01);
  const auto nan = f32({kNaN}), one = f32({1.0f}), pos = f32({kInf}), neg = f32({-kInf}), big = f32({1e30f});
  EXPECT_TRUE(nondeterminism("y", DType::float32, {1}, nan.data(), one.data(), tol).has_value());
  EXPECT_TRUE(nondeterminism("y", DType::float32, {1}, one.data(), nan.data(), tol).has_value());
  EXPECT_TRUE(nondeterminism("y", DType::float32, {1}, pos.data(), neg.data(), tol).has_value());
  EXPECT_TRUE(nondeterminism("y", DType::float32, {1}, neg.data(), pos.data(), tol).has_value());
  EXPECT_TRUE(nondeterminism("y", DType::float32, {1}, big.data(), neg.data(), tol).has_value());
  EXPECT_TRUE(nondeterminism("y", DType::float32, {1}, big.data(), pos.data(), tol).has_value());
  EXPECT_TRUE(nondeterminism("y", DType::float32, {1}, neg.data(), one.data(), tol).has_value());
  EXPECT_FALSE(nondeterminism("y", DType::float32, {1}, neg.data(), neg.data(), tol).has_value());
}

// ---- format_index ----

TEST(ComparisonTest, FormatIndex) {
  EXPECT_EQ(format_index(0, {2, 3}, 1), "[0, 0]");
  EXPECT_EQ(format_index(5, {2, 3}, 1), "[1, 2]");
  EXPECT_EQ(format_index(3, {2, 3}, 1), "[1, 0]");
  EXPECT_EQ(format_index(23, {2, 3, 4}, 1), "[1, 2, 3]");
  EXPECT_EQ(format_index(13, {2, 3, 4}, 1), "[1, 0, 1]");
  EXPECT_EQ(format_index(4, {10}, 1), "[4]");
  EXPECT_EQ(format_index(0, {}, 1), "[]");
  EXPECT_EQ(format_index(7, {2, 2}, 2), "[1, 1] value 1");
  EXPECT_EQ(format_index(6, {2, 2}, 2), "[1, 1] value 0");
  EXPECT_EQ(format_index(1, {4}, 2), "[0] value 1");
}

}  // namespace
}  // namespace kernelarc::judge

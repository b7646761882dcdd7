#include "judge/tolerance_sanity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace kernelarc::judge {
namespace {

using task::DType;
using task::Tolerance;
using ::testing::HasSubstr;

Tolerance tolerance(double atol, double rtol, double ratio = 0.99) {
  Tolerance t;
  t.max_atol = atol;
  t.max_rtol = rtol;
  t.required_matched_ratio = ratio;
  return t;
}

// Uniform in [-spread, spread], the same on every platform.
std::vector<float> uniform(std::size_t count, float spread, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<float> values(count);
  for (auto& v : values) v = spread * (2.0f * static_cast<float>(random()) / 4294967296.0f - 1.0f);
  return values;
}

std::vector<float> softmax_rows(int rows, int columns, std::uint32_t seed) {
  auto values = uniform(static_cast<std::size_t>(rows) * columns, 3.0f, seed);
  for (int r = 0; r < rows; ++r) {
    float* row = values.data() + static_cast<std::size_t>(r) * columns;
    double sum = 0;
    for (int c = 0; c < columns; ++c) sum += std::exp(row[c]);
    for (int c = 0; c < columns; ++c) row[c] = static_cast<float>(std::exp(row[c]) / sum);
  }
  return values;
}

std::vector<std::byte> encode(DType dtype, const std::vector<float>& values) {
  const std::int64_t elements = static_cast<std::int64_t>(values.size()) / task::values_per_element(dtype);
  std::vector<std::byte> bytes(task::storage_bytes(dtype, elements));
  task::from_float32(dtype, values.data(), static_cast<std::int64_t>(values.size()), bytes.data());
  return bytes;
}

std::vector<DegenerateAnswer> check(DType dtype, const std::vector<std::int64_t>& shape, const std::vector<float>& reference,
                                    const Tolerance& tol, std::int64_t max_values = kToleranceSanityValues) {
  const auto bytes = encode(dtype, reference);
  return degenerate_answers_accepted("y", dtype, shape, bytes.data(), tol, max_values);
}

bool has_answer(const std::vector<DegenerateAnswer>& found, const std::string& text) {
  for (const auto& f : found)
    if (f.answer.find(text) != std::string::npos) return true;
  return false;
}

std::string answers(const std::vector<DegenerateAnswer>& found) {
  std::string text;
  for (const auto& f : found) text += f.answer + "; ";
  return text;
}

TEST(ToleranceSanityTest, LooseToleranceOnSoftmaxRowsAcceptsConstants) {
  const Tolerance loose = tolerance(1.0, 0.0);
  const auto found = check(DType::float32, {64, 256}, softmax_rows(64, 256, 1), loose);
  ASSERT_FALSE(found.empty());
  EXPECT_TRUE(has_answer(found, "zeros but for one value")) << answers(found);
  EXPECT_TRUE(has_answer(found, "the constant 1/256 (0.00390625, one over the row length)")) << answers(found);
  EXPECT_TRUE(has_answer(found, "(the one within tolerance of the most reference values)")) << answers(found);
  for (const auto& f : found) {
    EXPECT_EQ(f.output, "y");
    EXPECT_GE(f.matched_ratio, 0.99);
    EXPECT_EQ(f.values, 64 * 256);
    EXPECT_EQ(f.values_checked, 64 * 256);
    EXPECT_TRUE(f.sample.empty());
  }
  const std::string warning = tolerance_warning("w1", found.front());
  EXPECT_THAT(warning, HasSubstr("tolerance of workload w1 accepts a degenerate answer for output 'y': zeros"));
  EXPECT_THAT(warning, HasSubstr("matches 100.00% within atol 1 + rtol 0 (required 99%)"));
}

TEST(ToleranceSanityTest, TightToleranceOnSoftmaxRowsAcceptsNothing) {
  const auto found = check(DType::float32, {64, 256}, softmax_rows(64, 256, 2), tolerance(1e-5, 1e-3));
  EXPECT_TRUE(found.empty()) << answers(found);
}

// The task format's default (atol 1e-2, rtol 1e-2, 99%) on long softmax rows: every value is under atol.
TEST(ToleranceSanityTest, DefaultToleranceOnLongSoftmaxRowsAcceptsOneOverTheRowLength) {
  const auto found = check(DType::float32, {8, 4096}, softmax_rows(8, 4096, 3), Tolerance{});
  EXPECT_TRUE(has_answer(found, "the constant 1/4096 (0.000244141, one over the row length)")) << answers(found);
}

TEST(ToleranceSanityTest, ShiftedRowsAcceptedOnlyWhenRowsAreAlike) {
  const Tolerance tol = tolerance(1e-3, 1e-3);
  const int rows = 32, columns = 128;
  std::vector<float> alike(static_cast<std::size_t>(rows) * columns);
  const auto noise = uniform(alike.size(), 1e-4f, 4);
  for (std::size_t i = 0; i < alike.size(); ++i) alike[i] = 3.0f * std::sin(static_cast<float>(i % columns)) + noise[i];
  const auto found = check(DType::float32, {rows, columns}, alike, tol);
  EXPECT_TRUE(has_answer(found, "the reference shifted by one row")) << answers(found);
  EXPECT_FALSE(has_answer(found, "the constant")) << answers(found);

  const auto different = check(DType::float32, {rows, columns}, uniform(alike.size(), 3.0f, 5), tol);
  EXPECT_FALSE(has_answer(different, "shifted")) << answers(different);
  EXPECT_TRUE(different.empty()) << answers(different);
}

TEST(ToleranceSanityTest, Bf16Outputs) {
  const auto reference = softmax_rows(16, 512, 6);
  const auto loose = check(DType::bfloat16, {16, 512}, reference, tolerance(1.0, 0.0));
  EXPECT_TRUE(has_answer(loose, "the constant 1/512 (0.00195312")) << answers(loose);
  EXPECT_TRUE(has_answer(loose, "each row's mean") || has_answer(loose, "each column's mean")) << answers(loose);
  const auto tight = check(DType::bfloat16, {16, 512}, reference, tolerance(1e-5, 1e-3));
  EXPECT_TRUE(tight.empty()) << answers(tight);
}

TEST(ToleranceSanityTest, Fp8Outputs) {
  // Rows scaled so that each one's largest magnitude is 448, as absmax quantisation makes them.
  auto reference = uniform(32 * 64, 1.0f, 7);
  for (int r = 0; r < 32; ++r) {
    float largest = 0;
    for (int c = 0; c < 64; ++c) largest = std::max(largest, std::fabs(reference[r * 64 + c]));
    for (int c = 0; c < 64; ++c) reference[r * 64 + c] *= 448.0f / largest;
  }
  const auto sane = check(DType::float8_e4m3fn, {32, 64}, reference, Tolerance{});
  EXPECT_TRUE(sane.empty()) << answers(sane);
  const auto loose = check(DType::float8_e4m3fn, {32, 64}, reference, tolerance(1000.0, 0.0));
  EXPECT_TRUE(has_answer(loose, "zeros but for one value")) << answers(loose);
  // Four times coarser steps than e4m3's, accepted by an rtol of a quarter.
  const auto coarse = check(DType::float8_e4m3fn, {32, 64}, reference, tolerance(0.0, 0.25));
  EXPECT_TRUE(has_answer(coarse, "the reference rounded to 1 mantissa bit (float4_e2m1's precision)")) << answers(coarse);
  EXPECT_FALSE(has_answer(coarse, "constant")) << answers(coarse);
}

TEST(ToleranceSanityTest, CoarsePrecisionAcceptedByAWideRtol) {
  const auto reference = uniform(4096, 10.0f, 8);
  const auto found = check(DType::float32, {4096}, reference, tolerance(0.0, 0.07));
  EXPECT_TRUE(has_answer(found, "the reference rounded to 3 mantissa bits (float8_e4m3fn's precision)")) << answers(found);
  EXPECT_TRUE(check(DType::float32, {4096}, reference, Tolerance{}).empty());
}

TEST(ToleranceSanityTest, IntegerOutputs) {
  std::vector<float> indices(1000);
  for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<float>((i * 7919) % 53);
  EXPECT_TRUE(check(DType::int32, {10, 100}, indices, tolerance(0, 0)).empty());
  const auto loose = check(DType::int32, {10, 100}, indices, tolerance(30, 0));
  ASSERT_FALSE(loose.empty());
  EXPECT_THAT(loose.front().answer, HasSubstr("the constant 2"));  // 26, give or take the rounding of the middle
  EXPECT_EQ(loose.front().matched_ratio, 1.0);
}

TEST(ToleranceSanityTest, AllZeroReferenceAndTinyOutputs) {
  const auto zeros = check(DType::float32, {4, 8}, std::vector<float>(32, 0.0f), tolerance(0, 0, 1.0));
  ASSERT_FALSE(zeros.empty());
  EXPECT_EQ(zeros.front().answer, "zeros (the reference is all zeros)");
  EXPECT_EQ(zeros.front().matched_ratio, 1.0);
  // One value: every statistic of the reference is the reference.
  EXPECT_TRUE(check(DType::float32, {1}, {3.5f}, tolerance(1e9, 0)).empty());
  EXPECT_TRUE(check(DType::float32, {}, {3.5f}, tolerance(1e9, 0)).empty());
}

TEST(ToleranceSanityTest, LargeOutputsAreSampledByWholeRowsTheSameWayEveryTime) {
  const auto reference = softmax_rows(4096, 300, 9);
  const auto first = check(DType::float32, {4096, 300}, reference, tolerance(1.0, 0.0), 30000);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.front().values_checked, 30000);
  EXPECT_EQ(first.front().values, 4096 * 300);
  EXPECT_EQ(first.front().sample, "100 of 4096 rows, evenly spaced");
  EXPECT_THAT(tolerance_warning("w", first.front()), HasSubstr("(checked on 30000 of 1228800 values: 100 of 4096 rows, evenly spaced)"));
  const auto again = check(DType::float32, {4096, 300}, reference, tolerance(1.0, 0.0), 30000);
  ASSERT_EQ(again.size(), first.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(again[i].answer, first[i].answer);
    EXPECT_EQ(again[i].matched_ratio, first[i].matched_ratio);
  }
  // Rows longer than the budget: a prefix of two of them.
  const auto long_rows = check(DType::float32, {3, 100000}, uniform(300000, 1.0f, 10), tolerance(5.0, 0.0), 1000);
  ASSERT_FALSE(long_rows.empty());
  EXPECT_EQ(long_rows.front().sample, "the first 500 values of 2 of 3 rows");
  EXPECT_EQ(long_rows.front().values_checked, 1000);
}

// 4-bit rows of odd length start mid-byte. The sampled rows are 0 and 3, their next rows 1 and 4: rows 0 and 1 alike,
// 3 and 4 alike, so the shifted answer is exact only if rows 1 and 3 (odd starts) are read right.
TEST(ToleranceSanityTest, Fp4RowsThatStartMidByte) {
  const std::vector<float> a = {0.5f, 1.0f, -1.5f, 2.0f, 3.0f}, b = {-0.5f, 4.0f, 6.0f, -2.0f, 1.0f}, c(5, 0.0f);
  std::vector<float> reference;
  for (const auto* row : {&a, &a, &c, &b, &b, &c, &c}) reference.insert(reference.end(), row->begin(), row->end());
  const auto found = check(DType::float4_e2m1, {7, 5}, reference, tolerance(0, 0, 1.0), 10);
  ASSERT_EQ(found.size(), 1u) << answers(found);
  EXPECT_THAT(found.front().answer, HasSubstr("the reference shifted by one row"));
  EXPECT_EQ(found.front().sample, "2 of 7 rows, evenly spaced");
  EXPECT_EQ(found.front().values_checked, 10);
}

TEST(ToleranceSanityTest, WarningText) {
  DegenerateAnswer finding;
  finding.output = "y";
  finding.answer = "the reference's mean (0.000244)";
  finding.matched_ratio = 0.99349;
  finding.max_abs_error = 0.0123456;
  finding.tolerance = tolerance(1e-2, 1e-2);
  finding.values = finding.values_checked = 1000;
  EXPECT_EQ(tolerance_warning("W", finding),
            "tolerance of workload W accepts a degenerate answer for output 'y': the reference's mean (0.000244) matches 99.34% "
            "within atol 0.01 + rtol 0.01 (required 99%), max abs error 0.01235");
  finding.tolerance.max_error_cap = 0.5;
  EXPECT_THAT(tolerance_warning("W", finding), HasSubstr("rtol 0.01 and max error 0.5 (required 99%)"));
}

}  // namespace
}  // namespace kernelarc::judge

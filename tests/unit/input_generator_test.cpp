#include "judge/input_generator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/parallel.h"
#include "task/safetensors.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using task::DType;
using task::InputKind;
using task::InputSource;
using task::TensorSpec;
using ::testing::HasSubstr;

TensorSpec spec(const std::string& name, DType dtype, const std::string& description = "",
                std::optional<std::vector<std::string>> shape = std::vector<std::string>{}) {
  TensorSpec s;
  s.name = name;
  s.dtype = dtype;
  s.description = description;
  s.shape = std::move(shape);
  return s;
}

InputSource random_source() { return InputSource{}; }

InputSource scalar_source(double value) {
  InputSource source;
  source.kind = InputKind::scalar;
  source.value = value;
  return source;
}

std::vector<float> values_of(DType dtype, const std::vector<std::byte>& bytes, std::int64_t elements) {
  return task::to_float32(dtype, bytes.data(), elements);
}

struct Moments {
  double mean = 0;
  double std = 0;
};

Moments moments(const std::vector<float>& values) {
  Moments m;
  for (float v : values) m.mean += v;
  m.mean /= static_cast<double>(values.size());
  for (float v : values) m.std += (v - m.mean) * (v - m.mean);
  m.std = std::sqrt(m.std / static_cast<double>(values.size()));
  return m;
}

// ---- choose_profile ----

TEST(InputGeneratorTest, ProfileNormWeightForRmsNormWeight) {
  EXPECT_EQ(choose_profile(spec("weight", DType::bfloat16, "RMSNorm weight"), 1), ValueProfile::norm_weight);
  EXPECT_EQ(choose_profile(spec("weight", DType::float32), 1), ValueProfile::norm_weight);  // rank 1 alone
  EXPECT_EQ(choose_profile(spec("Weight", DType::float32, "LayerNorm scale vector"), 1), ValueProfile::norm_weight);
  EXPECT_EQ(choose_profile(spec("gamma", DType::float32), 1), ValueProfile::norm_weight);
  // A norm word makes even a 2-D weight a norm weight (per-head norms).
  EXPECT_EQ(choose_profile(spec("weight", DType::float32, "q_norm weight per head"), 2), ValueProfile::norm_weight);
}

TEST(InputGeneratorTest, ProfileFanInWeightForMatrices) {
  EXPECT_EQ(choose_profile(spec("w_proj", DType::bfloat16), 2), ValueProfile::fan_in_weight);
  EXPECT_EQ(choose_profile(spec("weight", DType::float32, "linear layer weight"), 2), ValueProfile::fan_in_weight);
  EXPECT_EQ(choose_profile(spec("o_proj", DType::float16, "output projection"), 2), ValueProfile::fan_in_weight);
  EXPECT_EQ(choose_profile(spec("expert_weights", DType::bfloat16), 3), ValueProfile::fan_in_weight);
  // A 1-D "proj" is not a matrix.
  EXPECT_EQ(choose_profile(spec("proj", DType::float32), 1), ValueProfile::normal);
}

TEST(InputGeneratorTest, ProfileOthers) {
  EXPECT_EQ(choose_profile(spec("probs", DType::float32), 2), ValueProfile::probabilities);
  EXPECT_EQ(choose_profile(spec("p", DType::float32, "attention weights after softmax"), 4), ValueProfile::probabilities);
  EXPECT_EQ(choose_profile(spec("valid", DType::boolean), 2), ValueProfile::mask);
  EXPECT_EQ(choose_profile(spec("attn_mask", DType::float32), 2), ValueProfile::mask);
  EXPECT_EQ(choose_profile(spec("token_ids", DType::int64), 1), ValueProfile::indices);
  EXPECT_EQ(choose_profile(spec("token_ids", DType::int32), 2), ValueProfile::indices);
  EXPECT_EQ(choose_profile(spec("positions", DType::int32), 1), ValueProfile::indices);
  EXPECT_EQ(choose_profile(spec("counts", DType::int32), 1), ValueProfile::small_integers);
  EXPECT_EQ(choose_profile(spec("bias", DType::float32), 1), ValueProfile::bias);
  EXPECT_EQ(choose_profile(spec("q_bias", DType::bfloat16), 1), ValueProfile::bias);
  EXPECT_EQ(choose_profile(spec("x", DType::float32, "hidden states"), 2), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("cos_cache", DType::float32), 2), ValueProfile::rotary);
  EXPECT_EQ(choose_profile(spec("variance", DType::float32), 1), ValueProfile::positive);
  EXPECT_EQ(choose_profile(spec("a", DType::float32, "per-step decay"), 2), ValueProfile::unit_interval);
  EXPECT_STREQ(profile_name(ValueProfile::norm_weight), "norm_weight");
  EXPECT_STREQ(profile_name(ValueProfile::fan_in_weight), "fan_in_weight");
  EXPECT_STREQ(profile_name(ValueProfile::probabilities), "probabilities");
  EXPECT_STREQ(profile_name(ValueProfile::mask), "mask");
  EXPECT_STREQ(profile_name(ValueProfile::indices), "indices");
  EXPECT_STREQ(profile_name(ValueProfile::bias), "bias");
}

// ---- generate_input ----

TEST(InputGeneratorTest, DeterministicForASeedDifferentForAnother) {
  const auto x = spec("x", DType::float32);
  const std::vector<std::int64_t> shape = {64, 64};
  const auto first = generate_input(x, shape, random_source(), 42);
  const auto again = generate_input(x, shape, random_source(), 42);
  const auto other = generate_input(x, shape, random_source(), 43);
  ASSERT_EQ(first.size(), 64u * 64u * 4u);
  EXPECT_EQ(first, again);
  ASSERT_EQ(other.size(), first.size());
  const auto a = values_of(DType::float32, first, 4096), b = values_of(DType::float32, other, 4096);
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  EXPECT_LT(same, 10);  // not merely shifted by one element either
  int shifted = 0;
  for (std::size_t i = 0; i + 1 < a.size(); ++i) shifted += a[i + 1] == b[i];
  EXPECT_LT(shifted, 10);
  // Every dtype is deterministic too.
  for (DType dtype : {DType::bfloat16, DType::float8_e4m3fn, DType::int32, DType::boolean, DType::float4_e2m1fn_x2}) {
    const auto s = spec("t", dtype);
    EXPECT_EQ(generate_input(s, {128}, random_source(), 7), generate_input(s, {128}, random_source(), 7));
    EXPECT_EQ(generate_input(s, {128}, random_source(), 7).size(), task::storage_bytes(dtype, 128));
  }
}

TEST(InputGeneratorTest, NormalValuesLookNormal) {
  const auto values = values_of(DType::float32, generate_input(spec("x", DType::float32), {65536}, random_source(), 1), 65536);
  const auto m = moments(values);
  EXPECT_NEAR(m.mean, 0.0, 0.02);
  EXPECT_NEAR(m.std, 1.0, 0.02);
}

TEST(InputGeneratorTest, ProbabilityRowsSumToOne) {
  const auto probs = spec("probs", DType::float32);
  const auto values = values_of(DType::float32, generate_input(probs, {64, 1000}, random_source(), 5), 64000);
  for (int row = 0; row < 64; ++row) {
    double sum = 0;
    for (int i = 0; i < 1000; ++i) {
      const float v = values[row * 1000 + i];
      ASSERT_GT(v, 0.0f);
      ASSERT_LT(v, 1.0f);
      sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << row;
  }
  // Not uniform: rows carry real variation.
  const auto m = moments(std::vector<float>(values.begin(), values.begin() + 1000));
  EXPECT_GT(m.std, 0.2 / 1000);
}

TEST(InputGeneratorTest, MaskRowsHaveATrue) {
  const auto mask = spec("valid", DType::boolean);
  const std::int64_t rows = 4096, columns = 3;  // short rows: an all-false row would be likely without the rule
  const auto bytes = generate_input(mask, {rows, columns}, random_source(), 11);
  ASSERT_EQ(bytes.size(), static_cast<std::size_t>(rows * columns));
  std::int64_t trues = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    bool any = false;
    for (std::int64_t c = 0; c < columns; ++c) {
      const auto byte = static_cast<unsigned>(bytes[row * columns + c]);
      ASSERT_TRUE(byte == 0 || byte == 1);
      any = any || byte == 1;
      trues += byte;
    }
    EXPECT_TRUE(any) << "row " << row;
  }
  // Masks are not all true either.
  EXPECT_LT(trues, rows * columns * 95 / 100);
  EXPECT_GT(trues, rows * columns * 60 / 100);
}

TEST(InputGeneratorTest, NormWeightsNearOne) {
  const auto weight = spec("weight", DType::float32, "RMSNorm weight");
  const auto m = moments(values_of(DType::float32, generate_input(weight, {65536}, random_source(), 3), 65536));
  EXPECT_NEAR(m.mean, 1.0, 0.005);
  EXPECT_NEAR(m.std, 0.1, 0.005);
}

TEST(InputGeneratorTest, FanInWeightsScaledByLastDimension) {
  const auto w = spec("w_proj", DType::float32);
  const auto m = moments(values_of(DType::float32, generate_input(w, {128, 512}, random_source(), 9), 65536));
  EXPECT_NEAR(m.mean, 0.0, 0.002);
  EXPECT_NEAR(m.std, 1.0 / std::sqrt(512.0), 0.03 / std::sqrt(512.0));
  // The other orientation: fan-in follows the last dimension.
  const auto t = moments(values_of(DType::float32, generate_input(w, {512, 128}, random_source(), 9), 65536));
  EXPECT_NEAR(t.std, 1.0 / std::sqrt(128.0), 0.03 / std::sqrt(128.0));
}

TEST(InputGeneratorTest, BiasAndIntegerProfiles) {
  const auto bias = moments(values_of(DType::float32, generate_input(spec("bias", DType::float32), {65536}, random_source(), 2), 65536));
  EXPECT_NEAR(bias.mean, 0.0, 0.003);
  EXPECT_NEAR(bias.std, 0.1, 0.005);
  const auto ids = values_of(DType::int64, generate_input(spec("token_ids", DType::int64), {4096}, random_source(), 2), 4096);
  float largest = 0;
  for (float v : ids) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 128.0f);
    ASSERT_EQ(v, std::floor(v));
    largest = std::max(largest, v);
  }
  EXPECT_EQ(largest, 127.0f);
  const auto small = values_of(DType::int8, generate_input(spec("counts", DType::int8), {4096}, random_source(), 2), 4096);
  for (float v : small) {
    ASSERT_GE(v, -8.0f);
    ASSERT_LE(v, 8.0f);
  }
}

TEST(InputGeneratorTest, ScalarInputsFillTheValue) {
  const auto eps = spec("eps", DType::float32, "", std::nullopt);
  const auto bytes = generate_input(eps, {}, scalar_source(1e-6), 99);
  ASSERT_EQ(bytes.size(), 4u);
  float value;
  std::memcpy(&value, bytes.data(), 4);
  EXPECT_EQ(value, 1e-6f);
  // Independent of the seed.
  EXPECT_EQ(generate_input(eps, {}, scalar_source(1e-6), 100), bytes);
  // A tensor given as a scalar is filled with it.
  const auto filled = values_of(DType::bfloat16, generate_input(spec("t", DType::bfloat16), {3, 2}, scalar_source(2.5), 1), 6);
  EXPECT_EQ(filled, std::vector<float>(6, 2.5f));
  const auto integer = values_of(DType::int32, generate_input(spec("n", DType::int32, "", std::nullopt), {}, scalar_source(7), 1), 1);
  EXPECT_EQ(integer, std::vector<float>{7.0f});
  const auto flag = generate_input(spec("f", DType::boolean, "", std::nullopt), {}, scalar_source(1), 1);
  ASSERT_EQ(flag.size(), 1u);
  EXPECT_EQ(static_cast<int>(flag[0]), 1);
}

TEST(InputGeneratorTest, Fp8ValuesStayWithinMaxFinite) {
  for (DType dtype : {DType::float8_e4m3fn, DType::float8_e5m2, DType::float4_e2m1}) {
    SCOPED_TRACE(std::string(task::dtype_name(dtype)));
    const double limit = task::max_finite(dtype);
    for (const char* name : {"x", "scale", "w_proj"}) {
      const auto values = values_of(dtype, generate_input(spec(name, dtype), {256, 256}, random_source(), 21), 65536);
      int non_zero = 0;
      for (float v : values) {
        ASSERT_TRUE(std::isfinite(v)) << name;
        ASSERT_LE(std::fabs(v), limit) << name;
        non_zero += v != 0;
      }
      // fp4's smallest non-zero value is 0.5, so fan-in scaled weights of 1/16 mostly round to zero there.
      if (dtype != DType::float4_e2m1 || std::string(name) != "w_proj") EXPECT_GT(non_zero, 1000) << name;
    }
  }
  // A profile whose values sit near the limit of fp4 (max 6): positive values are |N(0,1)| + 0.5.
  const auto values =
      values_of(DType::float4_e2m1, generate_input(spec("scale", DType::float4_e2m1), {65536}, random_source(), 4), 65536);
  for (float v : values) ASSERT_GT(v, 0.0f);
}

TEST(InputGeneratorTest, SafetensorsSourceReadsBackTheTensor) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc_input_generator_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path directory = pattern;
  const fs::path file = directory / "weights.safetensors";
  task::SafetensorsTensor tensor;
  tensor.dtype = DType::bfloat16;
  tensor.shape = {2, 3};
  for (float v : {1.0f, -2.0f, 0.5f, 3.0f, 0.0f, -0.25f}) {
    const std::uint16_t bits = task::float_to_bf16(v);
    tensor.data.push_back(static_cast<std::byte>(bits & 0xFF));
    tensor.data.push_back(static_cast<std::byte>(bits >> 8));
  }
  task::SafetensorsTensor other;
  other.dtype = DType::int32;
  other.shape = {1};
  other.data.assign(4, std::byte{0});
  task::write_safetensors(file, {{"w", tensor}, {"n", other}});

  InputSource source;
  source.kind = InputKind::safetensors;
  source.path = file;
  source.tensor_key = "w";
  const auto bytes = generate_input(spec("w", DType::bfloat16), {2, 3}, source, 1);
  EXPECT_EQ(bytes, tensor.data);
  EXPECT_EQ(generate_input(spec("w", DType::bfloat16), {2, 3}, source, 2), tensor.data);  // the seed does not matter

  // A dtype or shape mismatch throws, naming both.
  try {
    generate_input(spec("w", DType::float32), {2, 3}, source, 1);
    ADD_FAILURE() << "expected a dtype mismatch";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(std::string(error.what()), HasSubstr("input 'w'"));
    EXPECT_THAT(std::string(error.what()), HasSubstr("safetensors tensor 'w' is bfloat16 2x3, expected float32 2x3"));
  }
  try {
    generate_input(spec("w", DType::bfloat16), {3, 2}, source, 1);
    ADD_FAILURE() << "expected a shape mismatch";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(std::string(error.what()), HasSubstr("is bfloat16 2x3, expected bfloat16 3x2"));
  }
  EXPECT_THROW(generate_input(spec("w", DType::bfloat16), {6}, source, 1), std::runtime_error);
  source.tensor_key = "missing";
  EXPECT_THROW(generate_input(spec("w", DType::bfloat16), {2, 3}, source, 1), std::runtime_error);
  std::error_code ignored;
  fs::remove_all(directory, ignored);
}

TEST(InputGeneratorTest, CustomInputsNeedTheOracle) {
  InputSource source;
  source.kind = InputKind::custom;
  try {
    generate_input(spec("routing", DType::int32), {16}, source, 1);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(std::string(error.what()), HasSubstr("input 'routing'"));
    EXPECT_THAT(std::string(error.what()), HasSubstr("oracle"));
  }
}

// Large inputs are generated in chunks on several threads: the bytes depend on the seed only, every chunk has its
// own stream (no chunk repeats another), and row-wise profiles still see whole rows.
TEST(InputGeneratorTest, LargeInputsAreChunkedDeterministicallyWithoutRepeats) {
  const std::vector<std::int64_t> shape{40, 5000};  // 200,000 values: four chunks, rows never split
  const auto first = generate_input(spec("x", DType::float32), shape, {}, 7);
  EXPECT_EQ(first, generate_input(spec("x", DType::float32), shape, {}, 7));
  EXPECT_NE(first, generate_input(spec("x", DType::float32), shape, {}, 8));
  std::vector<float> values(200000);
  std::memcpy(values.data(), first.data(), first.size());
  const std::size_t chunk = 65000;  // 13 rows of 5000: the chunk length for rows of this size
  EXPECT_NE(std::memcmp(values.data(), values.data() + chunk, chunk * sizeof(float)), 0) << "two chunks hold the same stream";
  const auto probabilities = generate_input(spec("probs", DType::float32, "probabilities"), shape, {}, 3);
  std::memcpy(values.data(), probabilities.data(), probabilities.size());
  for (std::size_t row = 0; row < 40; ++row)
    EXPECT_NEAR(std::accumulate(values.begin() + row * 5000, values.begin() + (row + 1) * 5000, 0.0), 1.0, 1e-3) << "row " << row;
}

TEST(ParallelTest, EveryChunkRunsOnceAndAFailureIsRethrown) {
  std::vector<int> seen(1000, 0);
  common::for_each_chunk(1000, 7, [&](std::int64_t begin, std::int64_t end, std::int64_t index) {
    EXPECT_EQ(begin, index * 7);
    for (std::int64_t i = begin; i < end; ++i) ++seen[static_cast<std::size_t>(i)];
  });
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 1000);
  EXPECT_THROW(common::for_each_chunk(100, 1,
                                      [](std::int64_t begin, std::int64_t, std::int64_t) {
                                        if (begin == 57) throw std::runtime_error("chunk 57");
                                      }),
               std::runtime_error);
}

TEST(ParallelTest, EqualBytesFindsAOneByteDifferenceAnywhereAndCopyBytesCopiesAll) {
  std::vector<std::uint8_t> a(9u << 20, 0x5A), b = a;  // over two of its chunks
  EXPECT_TRUE(common::equal_bytes(a.data(), b.data(), a.size()));
  for (std::size_t at : {std::size_t{0}, std::size_t{4} << 20, a.size() - 1}) {
    b[at] ^= 1;
    EXPECT_FALSE(common::equal_bytes(a.data(), b.data(), a.size())) << at;
    b[at] ^= 1;
  }
  EXPECT_TRUE(common::equal_bytes(a.data(), b.data(), 0));
  std::vector<std::uint8_t> c(a.size());
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<std::uint8_t>(i * 7);
  common::copy_bytes(a.data(), c.data(), c.size());
  EXPECT_EQ(a, c);
}

}  // namespace
}  // namespace kernelarc::judge

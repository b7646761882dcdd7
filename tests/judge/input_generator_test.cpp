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
#include "task/task.h"

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

// ---- choose_profile: the benchmark's rules (io.py's _generate_heuristic_tensor and _rand_tensor) ----

const std::vector<std::int64_t> kRow = {64};
const std::vector<std::int64_t> kMatrix = {64, 32};

TEST(InputGeneratorTest, BenchmarkNormParametersByNameSuffix) {
  for (const char* name : {"norm_weight", "input_layernorm_weight", "q_norm_weight", "rmsnorm_weight", "norm1_weight"})
    EXPECT_EQ(choose_profile(spec(name, DType::bfloat16), kRow), ValueProfile::norm_weight) << name;
  // A bare "weight" or a "<x>_weight" without a norm word is N(0, 1) at rank 1, whatever the description says.
  EXPECT_EQ(choose_profile(spec("weight", DType::bfloat16, "RMSNorm weight"), kRow), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("q_weight", DType::bfloat16, "RMSNorm weight of the query heads"), kRow), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("Norm_Weight", DType::float32), kRow), ValueProfile::normal) << "names are case-sensitive";
  for (const char* name : {"norm_bias", "post_layernorm_bias", "norm2_bias"})
    EXPECT_EQ(choose_profile(spec(name, DType::float32), kRow), ValueProfile::bias) << name;
  EXPECT_EQ(choose_profile(spec("bias", DType::float32, "LayerNorm bias (beta)"), kRow), ValueProfile::normal);
}

TEST(InputGeneratorTest, BenchmarkMasks) {
  EXPECT_EQ(choose_profile(spec("attention_mask", DType::float32), {2, 8, 8}), ValueProfile::causal_mask);
  EXPECT_EQ(choose_profile(spec("causal_mask", DType::bfloat16), {8, 8}), ValueProfile::causal_mask);
  EXPECT_EQ(choose_profile(spec("m", DType::float32, "Causal attention mask"), {8, 8}), ValueProfile::causal_mask);
  // Not square: attention_mask is a binary mask then.
  EXPECT_EQ(choose_profile(spec("attention_mask", DType::float32), {8, 16}), ValueProfile::binary_mask);
  for (const char* name : {"x_mask", "text_mask", "aspect_ratio_mask", "drop_mask"})
    EXPECT_EQ(choose_profile(spec(name, DType::float16), kMatrix), ValueProfile::binary_mask) << name;
  EXPECT_EQ(choose_profile(spec("pad_mask", DType::float32, "Binary padding mask"), kMatrix), ValueProfile::binary_mask);
  EXPECT_EQ(choose_profile(spec("pad_mask", DType::float32, "1.0 for valid tokens"), kMatrix), ValueProfile::binary_mask);
  EXPECT_EQ(choose_profile(spec("pad_mask", DType::float32), kMatrix), ValueProfile::normal) << "no mask word in the description";
  EXPECT_EQ(choose_profile(spec("mask", DType::float32), kMatrix), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("valid", DType::boolean), kMatrix), ValueProfile::booleans);
}

TEST(InputGeneratorTest, BenchmarkTablesPositivesDecaysProbabilitiesWeights) {
  EXPECT_EQ(choose_profile(spec("cos", DType::float32), kMatrix), ValueProfile::rope_cos);
  EXPECT_EQ(choose_profile(spec("rope_cos", DType::float32), kMatrix), ValueProfile::rope_cos);
  EXPECT_EQ(choose_profile(spec("sin_cached", DType::bfloat16), kMatrix), ValueProfile::rope_sin);
  EXPECT_EQ(choose_profile(spec("cos_sin_cache", DType::float32), kMatrix), ValueProfile::normal) << "not one of the names";
  for (const char* name : {"rstd", "var", "variance", "x_variance", "layer_std", "var2", "ln_var3"})
    EXPECT_EQ(choose_profile(spec(name, DType::float32), kRow), ValueProfile::positive) << name;
  EXPECT_EQ(choose_profile(spec("scale", DType::float32), kRow), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("temperature", DType::float32), kRow), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("A", DType::float32), kMatrix), ValueProfile::ssm_a);
  EXPECT_EQ(choose_profile(spec("A_log", DType::float32), kMatrix), ValueProfile::ssm_a_log);
  EXPECT_EQ(choose_profile(spec("A_cumsum", DType::float32), kMatrix), ValueProfile::ssm_a_cumsum);
  EXPECT_EQ(choose_profile(spec("g", DType::float32), kMatrix), ValueProfile::ssm_gate);
  EXPECT_EQ(choose_profile(spec("a", DType::float32, "per-step decay"), kMatrix), ValueProfile::normal);
  for (const char* name : {"attn_weights", "attention_weights", "routing_weights"})
    EXPECT_EQ(choose_profile(spec(name, DType::float32), kMatrix), ValueProfile::probabilities) << name;
  EXPECT_EQ(choose_profile(spec("p", DType::float32, "Output of the softmax"), kMatrix), ValueProfile::probabilities);
  EXPECT_EQ(choose_profile(spec("probs", DType::float32), kMatrix), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("probs", DType::float32), kMatrix, "sampling"), ValueProfile::probabilities);
  for (const char* name : {"w_proj", "o_proj", "gate_projs", "up_proj_weight", "weight", "weight2", "lm_weight_matrix"})
    EXPECT_EQ(choose_profile(spec(name, DType::bfloat16), kMatrix), ValueProfile::fan_in_weight) << name;
  EXPECT_EQ(choose_profile(spec("expert_weights", DType::bfloat16), {8, 64, 32}), ValueProfile::fan_in_weight);
  EXPECT_EQ(choose_profile(spec("o_proj", DType::float32), kRow), ValueProfile::normal) << "a 1-D proj is not a matrix";
  EXPECT_EQ(choose_profile(spec("kernel", DType::float32), kMatrix), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("x", DType::float32, "hidden states"), kMatrix), ValueProfile::normal);
}

TEST(InputGeneratorTest, BenchmarkDtypesDecideFirst) {
  EXPECT_EQ(choose_profile(spec("token_ids", DType::int64), kRow), ValueProfile::integers);
  EXPECT_EQ(choose_profile(spec("positions", DType::int32), kRow), ValueProfile::integers);
  EXPECT_EQ(choose_profile(spec("counts", DType::int8), kRow), ValueProfile::integers);
  EXPECT_EQ(choose_profile(spec("attention_mask", DType::boolean), {8, 8}), ValueProfile::booleans);
  // float8 and float4 take no name heuristic.
  EXPECT_EQ(choose_profile(spec("input_layernorm_weight", DType::float8_e4m3fn), kRow), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("w_proj", DType::float8_e5m2), kMatrix), ValueProfile::normal);
  EXPECT_EQ(choose_profile(spec("w_proj", DType::float4_e2m1fn_x2), kMatrix), ValueProfile::normal);
  // Nor does a plain scalar drawn at random.
  EXPECT_EQ(choose_profile(spec("var", DType::float32, "", std::nullopt), {}), ValueProfile::normal);
  // A 0-d tensor does.
  EXPECT_EQ(choose_profile(spec("var", DType::float32), {}), ValueProfile::positive);
}

// ---- choose_realistic_profile: KernelArc's realism profiles (the realistic regime) ----

TEST(InputGeneratorTest, RealisticNormWeights) {
  EXPECT_EQ(choose_realistic_profile(spec("weight", DType::bfloat16, "RMSNorm weight"), 1), ValueProfile::norm_weight);
  EXPECT_EQ(choose_realistic_profile(spec("weight", DType::float32), 1), ValueProfile::norm_weight);  // rank 1 alone
  EXPECT_EQ(choose_realistic_profile(spec("Weight", DType::float32, "LayerNorm scale vector"), 1), ValueProfile::norm_weight);
  EXPECT_EQ(choose_realistic_profile(spec("gamma", DType::float32), 1), ValueProfile::norm_weight);
  // A norm word makes even a 2-D weight a norm weight (per-head norms).
  EXPECT_EQ(choose_realistic_profile(spec("weight", DType::float32, "q_norm weight per head"), 2), ValueProfile::norm_weight);
}

TEST(InputGeneratorTest, RealisticFanInWeightsAndOthers) {
  EXPECT_EQ(choose_realistic_profile(spec("w_proj", DType::bfloat16), 2), ValueProfile::fan_in_weight);
  EXPECT_EQ(choose_realistic_profile(spec("weight", DType::float32, "linear layer weight"), 2), ValueProfile::fan_in_weight);
  EXPECT_EQ(choose_realistic_profile(spec("proj", DType::float32), 1), ValueProfile::normal);
  EXPECT_EQ(choose_realistic_profile(spec("probs", DType::float32), 2), ValueProfile::probabilities);
  EXPECT_EQ(choose_realistic_profile(spec("valid", DType::boolean), 2), ValueProfile::mask);
  EXPECT_EQ(choose_realistic_profile(spec("attn_mask", DType::float32), 2), ValueProfile::mask);
  EXPECT_EQ(choose_realistic_profile(spec("token_ids", DType::int64), 1), ValueProfile::indices);
  EXPECT_EQ(choose_realistic_profile(spec("counts", DType::int32), 1), ValueProfile::small_integers);
  EXPECT_EQ(choose_realistic_profile(spec("q_bias", DType::bfloat16), 1), ValueProfile::bias);
  EXPECT_EQ(choose_realistic_profile(spec("cos_cache", DType::float32), 2), ValueProfile::rotary);
  EXPECT_EQ(choose_realistic_profile(spec("variance", DType::float32), 1), ValueProfile::positive);
  EXPECT_EQ(choose_realistic_profile(spec("a", DType::float32, "per-step decay"), 2), ValueProfile::unit_interval);
  EXPECT_STREQ(profile_name(ValueProfile::norm_weight), "norm_weight");
  EXPECT_STREQ(profile_name(ValueProfile::causal_mask), "causal_mask");
  EXPECT_STREQ(profile_name(ValueProfile::integers), "integers");
  EXPECT_STREQ(profile_name(ValueProfile::indices), "indices");
  EXPECT_STREQ(regime_name(InputRegime::long_tailed), "long_tailed");
  EXPECT_EQ(all_regimes().size(), 6u);
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
  const auto probs = spec("routing_weights", DType::float32);
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

TEST(InputGeneratorTest, RealisticMaskRowsHaveATrue) {
  const auto mask = spec("valid", DType::boolean);
  const std::int64_t rows = 4096, columns = 3;  // short rows: an all-false row would be likely without the rule
  const auto bytes = generate_input(mask, {rows, columns}, random_source(), 11, InputRegime::realistic);
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
  // The benchmark's ones, widened: a kernel that ignores the weight fails.
  const auto weight = spec("input_layernorm_weight", DType::float32, "RMSNorm weight");
  const auto m = moments(values_of(DType::float32, generate_input(weight, {65536}, random_source(), 3), 65536));
  EXPECT_NEAR(m.mean, 1.0, 0.005);
  EXPECT_NEAR(m.std, 0.1, 0.005);
  // A plain "weight" of rank 1 is N(0, 1) in the benchmark; near one only in the realistic regime.
  const auto plain = spec("weight", DType::float32, "RMSNorm weight");
  const auto b = moments(values_of(DType::float32, generate_input(plain, {65536}, random_source(), 3), 65536));
  EXPECT_NEAR(b.mean, 0.0, 0.02);
  EXPECT_NEAR(b.std, 1.0, 0.02);
  const auto r = moments(values_of(DType::float32, generate_input(plain, {65536}, random_source(), 3, InputRegime::realistic), 65536));
  EXPECT_NEAR(r.mean, 1.0, 0.005);
  EXPECT_NEAR(r.std, 0.1, 0.005);
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
  const auto bias = moments(values_of(DType::float32, generate_input(spec("norm_bias", DType::float32), {65536}, random_source(), 2), 65536));
  EXPECT_NEAR(bias.mean, 0.0, 0.003);
  EXPECT_NEAR(bias.std, 0.1, 0.005);
  // The realistic regime keeps KernelArc's narrower integer profiles.
  const auto ids = values_of(DType::int64, generate_input(spec("token_ids", DType::int64), {4096}, random_source(), 2, InputRegime::realistic), 4096);
  float largest = 0;
  for (float v : ids) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 128.0f);
    ASSERT_EQ(v, std::floor(v));
    largest = std::max(largest, v);
  }
  EXPECT_EQ(largest, 127.0f);
  const auto small = values_of(DType::int8, generate_input(spec("counts", DType::int8), {4096}, random_source(), 2, InputRegime::realistic), 4096);
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
  // The realistic regime's positive profile on fp4 (|N(0,1)| + 0.1): nothing below zero.
  const auto values = values_of(DType::float4_e2m1,
                                generate_input(spec("scale", DType::float4_e2m1), {65536}, random_source(), 4, InputRegime::realistic), 65536);
  for (float v : values) ASSERT_GE(v, 0.0f);
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
  const auto probabilities = generate_input(spec("attn_weights", DType::float32), shape, {}, 3);
  std::memcpy(values.data(), probabilities.data(), probabilities.size());
  for (std::size_t row = 0; row < 40; ++row)
    EXPECT_NEAR(std::accumulate(values.begin() + row * 5000, values.begin() + (row + 1) * 5000, 0.0), 1.0, 1e-3) << "row " << row;
}

// ---- the benchmark's value rules ----

TEST(InputGeneratorTest, BenchmarkIntegerRangesIncludeNegatives) {
  for (DType dtype : {DType::int64, DType::int32, DType::int16}) {
    SCOPED_TRACE(std::string(task::dtype_name(dtype)));
    const auto values = values_of(dtype, generate_input(spec("positions", dtype, "row index"), {65536}, random_source(), 5), 65536);
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    EXPECT_EQ(*low, -1024.0f);
    EXPECT_EQ(*high, 1023.0f);
    EXPECT_GT(std::count_if(values.begin(), values.end(), [](float v) { return v < 0; }), 30000);
  }
  const auto bytes = values_of(DType::int8, generate_input(spec("q", DType::int8), {65536}, random_source(), 5), 65536);
  EXPECT_EQ(*std::min_element(bytes.begin(), bytes.end()), -128.0f);
  EXPECT_EQ(*std::max_element(bytes.begin(), bytes.end()), 127.0f);
  const auto unsigned_bytes = values_of(DType::uint8, generate_input(spec("q", DType::uint8), {65536}, random_source(), 5), 65536);
  EXPECT_EQ(*std::min_element(unsigned_bytes.begin(), unsigned_bytes.end()), 0.0f);
  EXPECT_EQ(*std::max_element(unsigned_bytes.begin(), unsigned_bytes.end()), 255.0f);
}

TEST(InputGeneratorTest, BenchmarkBooleansAreFairCoinsRowsMayBeAllFalse) {
  const std::int64_t rows = 4096, columns = 2;
  const auto bytes = generate_input(spec("valid", DType::boolean), {rows, columns}, random_source(), 11);
  std::int64_t trues = 0, empty_rows = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    int in_row = 0;
    for (std::int64_t c = 0; c < columns; ++c) {
      const auto byte = static_cast<unsigned>(bytes[row * columns + c]);
      ASSERT_TRUE(byte == 0 || byte == 1);
      in_row += byte;
    }
    trues += in_row;
    empty_rows += in_row == 0;
  }
  EXPECT_NEAR(static_cast<double>(trues) / (rows * columns), 0.5, 0.03);
  EXPECT_NEAR(static_cast<double>(empty_rows) / rows, 0.25, 0.03);
  // Float binary masks too.
  const auto mask = values_of(DType::float16, generate_input(spec("drop_mask", DType::float16), {65536}, random_source(), 2), 65536);
  EXPECT_TRUE(std::all_of(mask.begin(), mask.end(), [](float v) { return v == 0.0f || v == 1.0f; }));
  EXPECT_NEAR(moments(mask).mean, 0.5, 0.01);
}

TEST(InputGeneratorTest, BenchmarkFloat8IsClampedToTwoAndFloat4Rounded) {
  for (DType dtype : {DType::float8_e4m3fn, DType::float8_e5m2}) {
    SCOPED_TRACE(std::string(task::dtype_name(dtype)));
    for (const char* name : {"x", "input_layernorm_weight", "w_proj"}) {
      const auto values = values_of(dtype, generate_input(spec(name, dtype), {256, 256}, random_source(), 21), 65536);
      EXPECT_EQ(*std::max_element(values.begin(), values.end()), 2.0f) << name;
      EXPECT_EQ(*std::min_element(values.begin(), values.end()), -2.0f) << name;
      EXPECT_NEAR(moments(values).mean, 0.0, 0.02) << name << ": no heuristic for float8";
      EXPECT_GT(std::count(values.begin(), values.end(), 2.0f), 1000) << name << ": the clamp's mass at 2";
    }
  }
  const auto fp4 = values_of(DType::float4_e2m1fn_x2, generate_input(spec("w", DType::float4_e2m1fn_x2), {128, 128}, random_source(), 3), 128 * 128);
  const std::vector<float> grid = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (float v : fp4) ASSERT_NE(std::find(grid.begin(), grid.end(), std::fabs(v)), grid.end()) << v;
  EXPECT_NEAR(moments(fp4).std, 1.0, 0.1);
}

TEST(InputGeneratorTest, BenchmarkCausalMaskIsAdditive) {
  const auto values = values_of(DType::bfloat16, generate_input(spec("attention_mask", DType::bfloat16), {2, 5, 5}, random_source(), 1), 50);
  const float lowest = -static_cast<float>(task::max_finite(DType::bfloat16));
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 5; ++c) EXPECT_EQ(values[(b * 5 + r) * 5 + c], c > r ? lowest : 0.0f) << b << "," << r << "," << c;
}

TEST(InputGeneratorTest, BenchmarkRopeTablesPositivesAndSsmDecays) {
  const auto cos = values_of(DType::float32, generate_input(spec("cos", DType::float32), {65536}, random_source(), 4), 65536);
  const auto sin = values_of(DType::float32, generate_input(spec("sin", DType::float32), {65536}, random_source(), 4), 65536);
  EXPECT_NEAR(moments(cos).mean, std::exp(-0.5), 0.02);  // E[cos Z] for Z ~ N(0, 1); the clamp at pi barely moves it
  EXPECT_NEAR(moments(sin).mean, 0.0, 0.01);
  for (float v : cos) ASSERT_LE(std::fabs(v), 1.0f);
  const auto positive = values_of(DType::float32, generate_input(spec("rstd", DType::float32), {65536}, random_source(), 4), 65536);
  EXPECT_GE(*std::min_element(positive.begin(), positive.end()), 0.1f);
  EXPECT_LT(*std::min_element(positive.begin(), positive.end()), 0.11f);
  const auto in_range = [](const std::vector<float>& values, float low, float high) {
    return std::all_of(values.begin(), values.end(), [&](float v) { return v >= low && v <= high; });
  };
  EXPECT_TRUE(in_range(values_of(DType::float32, generate_input(spec("A", DType::float32), {4096}, random_source(), 1), 4096), -1.0f, -0.001f));
  EXPECT_TRUE(in_range(values_of(DType::float32, generate_input(spec("A_log", DType::float32), {4096}, random_source(), 1), 4096), -5.0f, -1.0f));
  EXPECT_TRUE(in_range(values_of(DType::float32, generate_input(spec("g", DType::float32), {4096}, random_source(), 1), 4096), -5.0f, 0.0f));
  const auto cumsum = values_of(DType::float32, generate_input(spec("A_cumsum", DType::float32), {64, 100}, random_source(), 1), 6400);
  for (int row = 0; row < 64; ++row) {
    EXPECT_GE(cumsum[row * 100], -0.1f) << "each row starts again";
    for (int i = 1; i < 100; ++i) ASSERT_LE(cumsum[row * 100 + i], cumsum[row * 100 + i - 1]);
    EXPECT_NEAR(cumsum[row * 100 + 99], -5.0, 1.0);
  }
}

TEST(InputGeneratorTest, BenchmarkPlainScalarsDrawnAtRandomTakeNoHeuristic) {
  int negative = 0;
  for (std::uint64_t seed = 0; seed < 64; ++seed)
    negative += values_of(DType::float32, generate_input(spec("var", DType::float32, "", std::nullopt), {}, random_source(), seed), 1)[0] < 0;
  EXPECT_GT(negative, 10);
}

// The default regime is the benchmark's, and the inputs whose profile did not change are the bytes they always were.
TEST(InputGeneratorTest, DefaultRegimeIsTheBenchmarkAndNormalValuesAreUnchanged) {
  const auto x = spec("x", DType::float32);
  const auto bytes = generate_input(x, {64, 64}, random_source(), 42);
  EXPECT_EQ(bytes, generate_input(x, {64, 64}, random_source(), 42, InputRegime::benchmark));
  const auto values = values_of(DType::float32, bytes, 6);
  const std::vector<float> before = {0x1.0c8f4cp-3f, 0x1.907c0cp-4f, -0x1.2af69cp-1f, 0x1.5eb1c8p-2f, -0x1.8b3b28p-1f, 0x1.2abe5p+0f};
  EXPECT_EQ(std::vector<float>(values.begin(), values.begin() + 6), before);
  const auto hidden = generate_input(spec("hidden", DType::bfloat16), {3, 5000}, random_source(), 7);
  std::uint64_t hash = 1469598103934665603ull;
  for (std::byte c : hidden) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  EXPECT_EQ(hash, 0x1e4ee4e6e2974defull);
}

// ---- the stricter regimes ----

std::vector<float> regime_values(InputRegime regime, DType dtype, std::int64_t rows, std::int64_t columns, std::uint64_t seed = 13) {
  return values_of(dtype, generate_input(spec("logits", dtype), {rows, columns}, random_source(), seed, regime), rows * columns);
}

TEST(InputGeneratorTest, ShiftedRowsOverflowANaiveExp) {
  const std::int64_t rows = 64, columns = 1000;
  const auto values = regime_values(InputRegime::shifted, DType::float32, rows, columns);
  int overflowing = 0, underflowing = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto begin = values.begin() + row * columns, end = begin + columns;
    const double mean = std::accumulate(begin, end, 0.0) / columns;
    EXPECT_GE(std::fabs(mean), 59.5) << "row " << row;
    EXPECT_LE(std::fabs(mean), 100.5) << "row " << row;
    float naive = 0, stable = 0;
    const float largest = *std::max_element(begin, end);
    for (auto it = begin; it != end; ++it) naive += std::exp(*it), stable += std::exp(*it - largest);
    overflowing += std::isinf(naive);
    underflowing += naive < 1e-30f;
    ASSERT_TRUE(std::isfinite(stable) && stable >= 1.0f);
  }
  EXPECT_GT(overflowing, 0) << "some row's exp without the max subtracted overflows float32";
  EXPECT_GT(underflowing, 0) << "and some row's underflows";
  // bf16 keeps the offset (its spacing at 64..128 is 0.5).
  const auto bf16 = regime_values(InputRegime::shifted, DType::bfloat16, 8, 256);
  EXPECT_GT(std::fabs(moments(bf16).mean) + moments(bf16).std, 59.0);
}

TEST(InputGeneratorTest, ScaledRowsAreTwentyToFiftyTimesWider) {
  const std::int64_t rows = 64, columns = 4096;
  const auto values = regime_values(InputRegime::scaled, DType::float32, rows, columns);
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto m = moments(std::vector<float>(values.begin() + row * columns, values.begin() + (row + 1) * columns));
    EXPECT_GT(m.std, 19.0) << row;
    EXPECT_LT(m.std, 51.5) << row;
  }
  // fp16: clamped where a product of two would overflow.
  const auto half = regime_values(InputRegime::scaled, DType::float16, 64, 4096);
  EXPECT_LE(*std::max_element(half.begin(), half.end()), 256.0f);
  EXPECT_GE(*std::max_element(half.begin(), half.end()), 150.0f);
}

TEST(InputGeneratorTest, LongTailedValuesHaveOutliers) {
  const auto values = regime_values(InputRegime::long_tailed, DType::float32, 64, 4096);
  std::vector<float> magnitudes(values.size());
  std::transform(values.begin(), values.end(), magnitudes.begin(), [](float v) { return std::fabs(v); });
  std::nth_element(magnitudes.begin(), magnitudes.begin() + magnitudes.size() / 2, magnitudes.end());
  EXPECT_NEAR(magnitudes[magnitudes.size() / 2], 0.765, 0.05);  // the median |t| with 3 degrees of freedom
  const float largest = *std::max_element(magnitudes.begin(), magnitudes.end());
  EXPECT_GT(largest, 100.0f) << "normal draws of this count stay under 6";
  EXPECT_LE(largest, 1e4f);
  EXPECT_GT(std::count_if(magnitudes.begin(), magnitudes.end(), [](float v) { return v > 10; }), 200);
}

TEST(InputGeneratorTest, ExtremesReachTheDtypesLargestValuesAndStayFinite) {
  for (DType dtype : {DType::float32, DType::bfloat16, DType::float16, DType::float8_e4m3fn}) {
    SCOPED_TRACE(std::string(task::dtype_name(dtype)));
    const double limit = task::max_finite(dtype);
    const auto values = regime_values(InputRegime::extremes, dtype, 32, 512);
    for (int row = 0; row < 32; ++row) {
      float largest = 0;
      for (int i = 0; i < 512; ++i) {
        ASSERT_TRUE(std::isfinite(values[row * 512 + i]));
        largest = std::max(largest, std::fabs(values[row * 512 + i]));
      }
      EXPECT_GE(largest, 0.24 * limit) << row;
      EXPECT_LE(largest, 0.51 * limit) << row;
    }
  }
}

TEST(InputGeneratorTest, RegimesLeaveEveryOtherInputAsTheBenchmarkMakesIt) {
  const std::vector<std::int64_t> row = {512};
  for (InputRegime regime : {InputRegime::shifted, InputRegime::scaled, InputRegime::long_tailed, InputRegime::extremes}) {
    SCOPED_TRACE(regime_name(regime));
    for (const auto& s : {spec("input_layernorm_weight", DType::bfloat16), spec("weight", DType::bfloat16), spec("norm_bias", DType::float32),
                          spec("positions", DType::int64), spec("valid", DType::boolean), spec("drop_mask", DType::float32),
                          spec("routing_weights", DType::float32), spec("cos", DType::float32), spec("rstd", DType::float32),
                          spec("x", DType::float4_e2m1fn_x2), spec("bias", DType::float32), spec("scale", DType::float32)}) {
      EXPECT_FALSE(regime_applies(s, row, regime)) << s.name;
      EXPECT_EQ(generate_input(s, row, random_source(), 3, regime), generate_input(s, row, random_source(), 3)) << s.name;
    }
    EXPECT_FALSE(regime_applies(spec("w_proj", DType::bfloat16), {64, 64}, regime)) << "weights of a matmul";
    EXPECT_TRUE(regime_applies(spec("x", DType::bfloat16, "hidden states"), {64, 64}, regime));
    EXPECT_TRUE(regime_applies(spec("q", DType::float8_e4m3fn), {64, 64}, regime));
    // Scalars and safetensors follow their source.
    EXPECT_EQ(generate_input(spec("t", DType::float32), {4}, scalar_source(2.5), 1, regime), generate_input(spec("t", DType::float32), {4}, scalar_source(2.5), 1));
  }
  EXPECT_FALSE(regime_applies(spec("x", DType::float32), row, InputRegime::benchmark));
  EXPECT_FALSE(regime_applies(spec("x", DType::float32), row, InputRegime::realistic)) << "both rule sets give N(0, 1)";
  EXPECT_TRUE(regime_applies(spec("weight", DType::float32), row, InputRegime::realistic));
  EXPECT_TRUE(regime_applies(spec("positions", DType::int64), row, InputRegime::realistic));
}

TEST(InputGeneratorTest, StricterRegimesOfTheBuiltInTasks) {
  const auto regimes_of = [](const std::string& name) { return stricter_regimes(task::load_task(fs::path(KERNELARC_TASKS) / name).definition); };
  using R = InputRegime;
  const std::vector<R> activations = {R::shifted, R::scaled, R::long_tailed};  // extremes only on request
  EXPECT_EQ(regimes_of("softmax"), activations);
  EXPECT_EQ(regimes_of("matmul"), activations);
  const std::vector<R> all = {R::realistic, R::shifted, R::scaled, R::long_tailed};
  EXPECT_EQ(regimes_of("rotary"), all);    // positions in [0, 128) and a cos/sin table in the realistic round
  EXPECT_EQ(regimes_of("layernorm"), all);  // weight near one, bias N(0, 0.1)
  // Only inputs drawn at random count: a definition whose one activation comes from a file has realistic rounds only.
  task::Definition definition;
  definition.inputs = {spec("x", DType::float32, "", std::vector<std::string>{"n"}), spec("weight", DType::float32, "", std::vector<std::string>{"n"})};
  task::Workload workload;
  InputSource file;
  file.kind = InputKind::safetensors;
  workload.inputs["x"] = file;
  EXPECT_EQ(stricter_regimes(definition), all);
  EXPECT_EQ(stricter_regimes(definition, workload), std::vector<R>{R::realistic});
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

#include "task/dtype.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernelarc::task {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::uint32_t bits_of(float value) { return std::bit_cast<std::uint32_t>(value); }

// ---- names, sizes, classification ----

TEST(DTypeNames, ParseAndNameRoundTripForEveryDType) {
    ASSERT_EQ(all_dtypes().size(), 14u);
    for (DType dtype : all_dtypes()) {
        const auto parsed = parse_dtype(dtype_name(dtype));
        ASSERT_TRUE(parsed.has_value()) << dtype_name(dtype);
        EXPECT_EQ(*parsed, dtype);
    }
}

TEST(DTypeNames, ExactSpellings) {
    EXPECT_EQ(dtype_name(DType::boolean), "bool");
    EXPECT_EQ(dtype_name(DType::float4_e2m1fn_x2), "float4_e2m1fn_x2");
    EXPECT_EQ(dtype_name(DType::float8_e4m3fn), "float8_e4m3fn");
    EXPECT_EQ(parse_dtype("bfloat16"), DType::bfloat16);
    EXPECT_EQ(parse_dtype("uint8"), DType::uint8);
    EXPECT_EQ(parse_dtype("boolean"), std::nullopt);
    EXPECT_EQ(parse_dtype("Float32"), std::nullopt);
    EXPECT_EQ(parse_dtype("float32 "), std::nullopt);
    EXPECT_EQ(parse_dtype(""), std::nullopt);
}

TEST(DTypeSizes, BitsPerStoredElement) {
    EXPECT_EQ(dtype_bits(DType::float64), 64);
    EXPECT_EQ(dtype_bits(DType::float32), 32);
    EXPECT_EQ(dtype_bits(DType::float16), 16);
    EXPECT_EQ(dtype_bits(DType::bfloat16), 16);
    EXPECT_EQ(dtype_bits(DType::float8_e4m3fn), 8);
    EXPECT_EQ(dtype_bits(DType::float8_e5m2), 8);
    EXPECT_EQ(dtype_bits(DType::float4_e2m1), 4);
    EXPECT_EQ(dtype_bits(DType::float4_e2m1fn_x2), 8);
    EXPECT_EQ(dtype_bits(DType::int64), 64);
    EXPECT_EQ(dtype_bits(DType::int32), 32);
    EXPECT_EQ(dtype_bits(DType::int16), 16);
    EXPECT_EQ(dtype_bits(DType::int8), 8);
    EXPECT_EQ(dtype_bits(DType::uint8), 8);
    EXPECT_EQ(dtype_bits(DType::boolean), 8);
}

TEST(DTypeSizes, StorageBytesRoundsUpForFourBitTypes) {
    EXPECT_EQ(storage_bytes(DType::float4_e2m1, 0), 0u);
    EXPECT_EQ(storage_bytes(DType::float4_e2m1, 1), 1u);
    EXPECT_EQ(storage_bytes(DType::float4_e2m1, 2), 1u);
    EXPECT_EQ(storage_bytes(DType::float4_e2m1, 3), 2u);
    EXPECT_EQ(storage_bytes(DType::float4_e2m1, 7), 4u);
    EXPECT_EQ(storage_bytes(DType::float4_e2m1fn_x2, 3), 3u);
    EXPECT_EQ(storage_bytes(DType::float32, 3), 12u);
    EXPECT_EQ(storage_bytes(DType::float64, 5), 40u);
    EXPECT_EQ(storage_bytes(DType::bfloat16, 5), 10u);
    EXPECT_EQ(storage_bytes(DType::boolean, 5), 5u);
    EXPECT_THROW(storage_bytes(DType::float32, -1), std::invalid_argument);
}

TEST(DTypeSizes, ValuesPerElement) {
    for (DType dtype : all_dtypes()) {
        EXPECT_EQ(values_per_element(dtype), dtype == DType::float4_e2m1fn_x2 ? 2 : 1) << dtype_name(dtype);
    }
}

TEST(DTypeClassification, FloatingAndIntegralPartitionAllDTypes) {
    const std::vector<DType> floating = {DType::float64,       DType::float32,     DType::float16,
                                         DType::bfloat16,      DType::float8_e4m3fn, DType::float8_e5m2,
                                         DType::float4_e2m1,   DType::float4_e2m1fn_x2};
    for (DType dtype : all_dtypes()) {
        const bool expected_floating = std::find(floating.begin(), floating.end(), dtype) != floating.end();
        EXPECT_EQ(is_floating(dtype), expected_floating) << dtype_name(dtype);
        EXPECT_EQ(is_integral(dtype), !expected_floating) << dtype_name(dtype);
    }
}

TEST(DTypeClassification, MaxFinite) {
    EXPECT_EQ(max_finite(DType::float64), std::numeric_limits<double>::max());
    EXPECT_EQ(max_finite(DType::float32), static_cast<double>(std::numeric_limits<float>::max()));
    EXPECT_EQ(max_finite(DType::float16), 65504.0);
    EXPECT_EQ(max_finite(DType::bfloat16), static_cast<double>(bf16_to_float(0x7F7F)));
    EXPECT_EQ(max_finite(DType::bfloat16), 3.3895313892515355e38);
    EXPECT_EQ(max_finite(DType::float8_e4m3fn), 448.0);
    EXPECT_EQ(max_finite(DType::float8_e5m2), 57344.0);
    EXPECT_EQ(max_finite(DType::float4_e2m1), 6.0);
    EXPECT_EQ(max_finite(DType::float4_e2m1fn_x2), 6.0);
    EXPECT_EQ(max_finite(DType::int64), 9223372036854775807.0);
    EXPECT_EQ(max_finite(DType::int32), 2147483647.0);
    EXPECT_EQ(max_finite(DType::int16), 32767.0);
    EXPECT_EQ(max_finite(DType::int8), 127.0);
    EXPECT_EQ(max_finite(DType::uint8), 255.0);
    EXPECT_EQ(max_finite(DType::boolean), 1.0);
}

// ---- DLPack ----

TEST(DTypeDLPack, KnownCodes) {
    const auto expect_type = [](DType dtype, int code, int bits, int lanes) {
        const DLDataType type = to_dlpack(dtype);
        EXPECT_EQ(type.code, code) << dtype_name(dtype);
        EXPECT_EQ(type.bits, bits) << dtype_name(dtype);
        EXPECT_EQ(type.lanes, lanes) << dtype_name(dtype);
    };
    expect_type(DType::float64, kDLFloat, 64, 1);
    expect_type(DType::float32, kDLFloat, 32, 1);
    expect_type(DType::float16, kDLFloat, 16, 1);
    expect_type(DType::bfloat16, kDLBfloat, 16, 1);
    expect_type(DType::float8_e4m3fn, 10, 8, 1);
    expect_type(DType::float8_e5m2, 12, 8, 1);
    expect_type(DType::float4_e2m1, 17, 4, 1);
    expect_type(DType::float4_e2m1fn_x2, 17, 4, 2);
    expect_type(DType::int64, kDLInt, 64, 1);
    expect_type(DType::int32, kDLInt, 32, 1);
    expect_type(DType::int16, kDLInt, 16, 1);
    expect_type(DType::int8, kDLInt, 8, 1);
    expect_type(DType::uint8, kDLUInt, 8, 1);
    expect_type(DType::boolean, 6, 8, 1);
    EXPECT_EQ(kDLBoolCode, 6);
    EXPECT_EQ(kDLFloat8E4M3FNCode, 10);
    EXPECT_EQ(kDLFloat8E5M2Code, 12);
    EXPECT_EQ(kDLFloat4E2M1FNCode, 17);
}

TEST(DTypeDLPack, RoundTripForEveryDType) {
    for (DType dtype : all_dtypes()) {
        EXPECT_EQ(from_dlpack(to_dlpack(dtype)), dtype) << dtype_name(dtype);
    }
}

TEST(DTypeDLPack, UnknownTypesAreRejected) {
    EXPECT_EQ(from_dlpack(DLDataType{kDLFloat, 32, 4}), std::nullopt);
    EXPECT_EQ(from_dlpack(DLDataType{kDLUInt, 16, 1}), std::nullopt);
    EXPECT_EQ(from_dlpack(DLDataType{kDLComplex, 64, 1}), std::nullopt);
    EXPECT_EQ(from_dlpack(DLDataType{17, 4, 4}), std::nullopt);
}

// ---- bfloat16 ----

TEST(BFloat16, ExhaustiveRoundTrip) {
    for (std::uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
        const auto bits = static_cast<std::uint16_t>(pattern);
        const float value = bf16_to_float(bits);
        if (std::isnan(value)) {
            EXPECT_EQ(float_to_bf16(value), bits | 0x0040) << std::hex << pattern;
        } else {
            ASSERT_EQ(float_to_bf16(value), bits) << std::hex << pattern;
        }
    }
}

TEST(BFloat16, KnownValues) {
    EXPECT_EQ(bf16_to_float(0x3F80), 1.0f);
    EXPECT_EQ(bf16_to_float(0xC000), -2.0f);
    EXPECT_EQ(bf16_to_float(0x7F7F), 0x1.fep127f);
    EXPECT_EQ(bf16_to_float(0x0001), 0x1p-133f);
    EXPECT_EQ(bf16_to_float(0x7F80), kInf);
    EXPECT_EQ(bf16_to_float(0xFF80), -kInf);
    EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
    EXPECT_EQ(float_to_bf16(-2.0f), 0xC000);
    EXPECT_EQ(float_to_bf16(kInf), 0x7F80);
    EXPECT_EQ(float_to_bf16(-kInf), 0xFF80);
    EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
    EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7F80);
}

TEST(BFloat16, RoundsToNearestEven) {
    EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f), 0x3F80);                  // tie, down to even
    EXPECT_EQ(float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);              // tie, up to even
    EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);       // above the tie
    EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f - 0x1p-23f), 0x3F80);       // below the tie
    EXPECT_EQ(float_to_bf16(0x1.fep127f + 0x1p119f), 0x7F80);          // tie above max finite rounds to inf
    EXPECT_EQ(float_to_bf16(0x1.fep127f + 0x1p118f), 0x7F7F);
}

TEST(BFloat16, NaNStaysQuietNaN) {
    EXPECT_EQ(float_to_bf16(kNaN), 0x7FC0);
    EXPECT_EQ(float_to_bf16(-kNaN), 0xFFC0);
    // A signalling NaN whose payload sits only in the low 16 bits must not become infinity.
    EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x7F800001u)), 0x7FC0);
    EXPECT_TRUE(std::isnan(bf16_to_float(0x7FC0)));
    EXPECT_TRUE(std::isnan(bf16_to_float(0x7F81)));
}

// ---- float16 ----

TEST(Float16, ExhaustiveRoundTrip) {
    for (std::uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
        const auto bits = static_cast<std::uint16_t>(pattern);
        const float value = fp16_to_float(bits);
        if ((pattern & 0x7C00) == 0x7C00 && (pattern & 0x03FF) != 0) {
            ASSERT_TRUE(std::isnan(value)) << std::hex << pattern;
            EXPECT_EQ(float_to_fp16(value), bits | 0x0200) << std::hex << pattern;
        } else {
            ASSERT_EQ(float_to_fp16(value), bits) << std::hex << pattern;
        }
    }
}

TEST(Float16, DecodesEveryFinitePatternByFormula) {
    for (std::uint32_t pattern = 0; pattern < 0x7C00; ++pattern) {
        const int exponent = static_cast<int>(pattern >> 10);
        const int mantissa = static_cast<int>(pattern & 0x3FF);
        const double expected = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
        ASSERT_EQ(fp16_to_float(static_cast<std::uint16_t>(pattern)), expected) << std::hex << pattern;
        ASSERT_EQ(fp16_to_float(static_cast<std::uint16_t>(pattern | 0x8000)), -expected) << std::hex << pattern;
    }
}

TEST(Float16, KnownValues) {
    EXPECT_EQ(fp16_to_float(0x3C00), 1.0f);
    EXPECT_EQ(fp16_to_float(0xC000), -2.0f);
    EXPECT_EQ(fp16_to_float(0x7BFF), 65504.0f);
    EXPECT_EQ(fp16_to_float(0x0001), 0x1p-24f);
    EXPECT_EQ(fp16_to_float(0x0400), 0x1p-14f);
    EXPECT_EQ(fp16_to_float(0x7C00), kInf);
    EXPECT_EQ(fp16_to_float(0xFC00), -kInf);
    EXPECT_EQ(float_to_fp16(1.0f), 0x3C00);
    EXPECT_EQ(float_to_fp16(-2.0f), 0xC000);
    EXPECT_EQ(float_to_fp16(65504.0f), 0x7BFF);
    EXPECT_EQ(float_to_fp16(0x1p-24f), 0x0001);
    EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
    EXPECT_EQ(float_to_fp16(0x1p-126f), 0x0000);
}

TEST(Float16, RoundsToNearestEvenIncludingSubnormalsAndOverflow) {
    EXPECT_EQ(float_to_fp16(1.0f + 0x1p-11f), 0x3C00);
    EXPECT_EQ(float_to_fp16(1.0f + 3 * 0x1p-11f), 0x3C02);
    EXPECT_EQ(float_to_fp16(65519.0f), 0x7BFF);
    EXPECT_EQ(float_to_fp16(65520.0f), 0x7C00);  // tie above max finite
    EXPECT_EQ(float_to_fp16(-1e6f), 0xFC00);
    EXPECT_EQ(float_to_fp16(0x1p-25f), 0x0000);  // half the smallest subnormal, tie to even zero
    EXPECT_EQ(float_to_fp16(0x1.8p-25f), 0x0001);
    EXPECT_EQ(float_to_fp16(3 * 0x1p-25f), 0x0002);  // 1.5 units, tie to even 2
    EXPECT_EQ(float_to_fp16(5 * 0x1p-25f), 0x0002);  // 2.5 units, tie to even 2
    EXPECT_EQ(float_to_fp16(0x1p-14f - 0x1p-25f), 0x0400);  // subnormal rounds up to the smallest normal
    EXPECT_EQ(float_to_fp16(-0x1p-26f), 0x8000);
}

TEST(Float16, NaNHandling) {
    EXPECT_EQ(float_to_fp16(kNaN), 0x7E00);
    EXPECT_EQ(float_to_fp16(-kNaN), 0xFE00);
    EXPECT_EQ(float_to_fp16(std::bit_cast<float>(0x7F800001u)), 0x7E00);
    EXPECT_TRUE(std::isnan(fp16_to_float(0x7C01)));
    EXPECT_EQ(bits_of(fp16_to_float(0x7E00)), 0x7FC00000u);
    EXPECT_EQ(bits_of(fp16_to_float(0xFC01)), 0xFFC02000u);
}

// ---- float8 e4m3fn ----

TEST(Float8E4M3FN, ExhaustiveRoundTrip) {
    for (std::uint32_t pattern = 0; pattern <= 0xFF; ++pattern) {
        const auto bits = static_cast<std::uint8_t>(pattern);
        const float value = fp8_e4m3fn_to_float(bits);
        EXPECT_EQ(std::isnan(value), (pattern & 0x7F) == 0x7F) << std::hex << pattern;
        EXPECT_EQ(float_to_fp8_e4m3fn(value), bits) << std::hex << pattern;
    }
}

TEST(Float8E4M3FN, DecodesEveryFinitePatternByFormula) {
    for (std::uint32_t pattern = 0; pattern < 0x7F; ++pattern) {
        const int exponent = static_cast<int>(pattern >> 3);
        const int mantissa = static_cast<int>(pattern & 0x7);
        const double expected = exponent == 0 ? std::ldexp(mantissa, -9) : std::ldexp(8 + mantissa, exponent - 10);
        EXPECT_EQ(fp8_e4m3fn_to_float(static_cast<std::uint8_t>(pattern)), expected) << std::hex << pattern;
        EXPECT_EQ(fp8_e4m3fn_to_float(static_cast<std::uint8_t>(pattern | 0x80)), -expected) << std::hex << pattern;
    }
}

TEST(Float8E4M3FN, KnownValues) {
    EXPECT_EQ(fp8_e4m3fn_to_float(0x38), 1.0f);
    EXPECT_EQ(fp8_e4m3fn_to_float(0xC0), -2.0f);
    EXPECT_EQ(fp8_e4m3fn_to_float(0x7E), 448.0f);
    EXPECT_EQ(fp8_e4m3fn_to_float(0x01), 0x1p-9f);
    EXPECT_EQ(fp8_e4m3fn_to_float(0x08), 0x1p-6f);
    EXPECT_EQ(float_to_fp8_e4m3fn(1.0f), 0x38);
    EXPECT_EQ(float_to_fp8_e4m3fn(-2.0f), 0xC0);
    EXPECT_EQ(float_to_fp8_e4m3fn(448.0f), 0x7E);
    EXPECT_EQ(float_to_fp8_e4m3fn(0x1p-9f), 0x01);
    EXPECT_EQ(float_to_fp8_e4m3fn(-0.0f), 0x80);
}

TEST(Float8E4M3FN, ValuesThatRoundAbove448BecomeNaN) {
    EXPECT_EQ(float_to_fp8_e4m3fn(464.0f), 0x7E);  // tie between 448 and the NaN slot, to even 448
    EXPECT_EQ(float_to_fp8_e4m3fn(-464.0f), 0xFE);
    EXPECT_EQ(float_to_fp8_e4m3fn(465.0f), 0x7F);
    EXPECT_EQ(float_to_fp8_e4m3fn(480.0f), 0x7F);
    EXPECT_EQ(float_to_fp8_e4m3fn(-500.0f), 0xFF);
    EXPECT_EQ(float_to_fp8_e4m3fn(1e30f), 0x7F);
    EXPECT_EQ(float_to_fp8_e4m3fn(kInf), 0x7F);
    EXPECT_EQ(float_to_fp8_e4m3fn(-kInf), 0xFF);
}

TEST(Float8E4M3FN, RoundsToNearestEvenAndHandlesSubnormals) {
    EXPECT_EQ(float_to_fp8_e4m3fn(1.0625f), 0x38);  // tie between 1.0 and 1.125
    EXPECT_EQ(float_to_fp8_e4m3fn(1.1875f), 0x3A);  // tie between 1.125 and 1.25
    EXPECT_EQ(float_to_fp8_e4m3fn(0x1p-10f), 0x00);
    EXPECT_EQ(float_to_fp8_e4m3fn(0x1.8p-10f), 0x01);
    EXPECT_EQ(float_to_fp8_e4m3fn(3 * 0x1p-10f), 0x02);
    EXPECT_EQ(float_to_fp8_e4m3fn(0x1p-6f - 0x1p-10f), 0x08);  // 7.5 units, up to the smallest normal
    EXPECT_EQ(float_to_fp8_e4m3fn(0x1.cp-7f), 0x07);  // largest subnormal
}

TEST(Float8E4M3FN, NaNHandling) {
    EXPECT_EQ(float_to_fp8_e4m3fn(kNaN), 0x7F);
    EXPECT_EQ(float_to_fp8_e4m3fn(-kNaN), 0xFF);
    EXPECT_TRUE(std::isnan(fp8_e4m3fn_to_float(0x7F)));
    EXPECT_TRUE(std::isnan(fp8_e4m3fn_to_float(0xFF)));
}

// ---- float8 e5m2 ----

TEST(Float8E5M2, ExhaustiveRoundTrip) {
    for (std::uint32_t pattern = 0; pattern <= 0xFF; ++pattern) {
        const auto bits = static_cast<std::uint8_t>(pattern);
        const float value = fp8_e5m2_to_float(bits);
        const bool is_nan_pattern = (pattern & 0x7F) > 0x7C;
        EXPECT_EQ(std::isnan(value), is_nan_pattern) << std::hex << pattern;
        const std::uint8_t expected = is_nan_pattern ? static_cast<std::uint8_t>(bits | 0x7F) : bits;
        EXPECT_EQ(float_to_fp8_e5m2(value), expected) << std::hex << pattern;
    }
}

TEST(Float8E5M2, DecodesEveryFinitePatternByFormula) {
    for (std::uint32_t pattern = 0; pattern < 0x7C; ++pattern) {
        const int exponent = static_cast<int>(pattern >> 2);
        const int mantissa = static_cast<int>(pattern & 0x3);
        const double expected = exponent == 0 ? std::ldexp(mantissa, -16) : std::ldexp(4 + mantissa, exponent - 17);
        EXPECT_EQ(fp8_e5m2_to_float(static_cast<std::uint8_t>(pattern)), expected) << std::hex << pattern;
    }
}

TEST(Float8E5M2, KnownValuesRoundingAndSpecials) {
    EXPECT_EQ(fp8_e5m2_to_float(0x3C), 1.0f);
    EXPECT_EQ(fp8_e5m2_to_float(0xC0), -2.0f);
    EXPECT_EQ(fp8_e5m2_to_float(0x7B), 57344.0f);
    EXPECT_EQ(fp8_e5m2_to_float(0x01), 0x1p-16f);
    EXPECT_EQ(fp8_e5m2_to_float(0x7C), kInf);
    EXPECT_EQ(fp8_e5m2_to_float(0xFC), -kInf);
    EXPECT_EQ(float_to_fp8_e5m2(1.0f), 0x3C);
    EXPECT_EQ(float_to_fp8_e5m2(57344.0f), 0x7B);
    EXPECT_EQ(float_to_fp8_e5m2(61439.0f), 0x7B);
    EXPECT_EQ(float_to_fp8_e5m2(61440.0f), 0x7C);  // tie above max finite rounds to inf
    EXPECT_EQ(float_to_fp8_e5m2(-1e9f), 0xFC);
    EXPECT_EQ(float_to_fp8_e5m2(kInf), 0x7C);
    EXPECT_EQ(float_to_fp8_e5m2(-kInf), 0xFC);
    EXPECT_EQ(float_to_fp8_e5m2(0x1p-16f), 0x01);
    EXPECT_EQ(float_to_fp8_e5m2(0x1p-17f), 0x00);
    EXPECT_EQ(float_to_fp8_e5m2(1.125f), 0x3C);  // tie between 1.0 and 1.25
    EXPECT_EQ(float_to_fp8_e5m2(1.375f), 0x3E);  // tie between 1.25 and 1.5
    EXPECT_EQ(float_to_fp8_e5m2(kNaN), 0x7F);
    EXPECT_EQ(float_to_fp8_e5m2(-kNaN), 0xFF);
}

// ---- float4 e2m1 ----

TEST(Float4E2M1, DecodesAllSixteenNibbles) {
    const std::array<float, 8> magnitudes = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    for (std::uint8_t nibble = 0; nibble < 16; ++nibble) {
        const float expected = (nibble & 0x8) ? -magnitudes[nibble & 0x7] : magnitudes[nibble & 0x7];
        EXPECT_EQ(bits_of(fp4_e2m1_to_float(nibble)), bits_of(expected)) << int{nibble};
    }
    EXPECT_EQ(fp4_e2m1_to_float(0xF2), 1.0f);  // only the low nibble counts
}

TEST(Float4E2M1, ExhaustiveRoundTrip) {
    for (std::uint8_t nibble = 0; nibble < 16; ++nibble) {
        EXPECT_EQ(float_to_fp4_e2m1(fp4_e2m1_to_float(nibble)), nibble) << int{nibble};
    }
}

TEST(Float4E2M1, RoundsToNearestEvenAndSaturates) {
    EXPECT_EQ(float_to_fp4_e2m1(0.25f), 0x0);
    EXPECT_EQ(float_to_fp4_e2m1(0.3f), 0x1);
    EXPECT_EQ(float_to_fp4_e2m1(0.75f), 0x2);
    EXPECT_EQ(float_to_fp4_e2m1(1.25f), 0x2);
    EXPECT_EQ(float_to_fp4_e2m1(1.75f), 0x4);
    EXPECT_EQ(float_to_fp4_e2m1(2.5f), 0x4);
    EXPECT_EQ(float_to_fp4_e2m1(3.5f), 0x6);
    EXPECT_EQ(float_to_fp4_e2m1(5.0f), 0x6);
    EXPECT_EQ(float_to_fp4_e2m1(5.1f), 0x7);
    EXPECT_EQ(float_to_fp4_e2m1(100.0f), 0x7);
    EXPECT_EQ(float_to_fp4_e2m1(-100.0f), 0xF);
    EXPECT_EQ(float_to_fp4_e2m1(kInf), 0x7);
    EXPECT_EQ(float_to_fp4_e2m1(-kInf), 0xF);
    EXPECT_EQ(float_to_fp4_e2m1(-3.0f), 0xD);
    EXPECT_EQ(float_to_fp4_e2m1(-0.0f), 0x8);
}

TEST(Float4E2M1, NaNBecomesPositiveSix) {
    EXPECT_EQ(float_to_fp4_e2m1(kNaN), 0x7);
    EXPECT_EQ(float_to_fp4_e2m1(-kNaN), 0x7);
}

// ---- element access ----

TEST(ElementAccess, StoreThenLoadEveryAddressableDType) {
    for (DType dtype : all_dtypes()) {
        if (dtype == DType::float4_e2m1fn_x2) continue;
        std::vector<std::byte> buffer(storage_bytes(dtype, 4), std::byte{0xAB});
        const std::array<double, 4> values = {1.0, -2.0, 0.0, 1.5};
        for (int i = 0; i < 4; ++i) store_element(dtype, buffer.data(), i, values[i]);
        for (int i = 0; i < 4; ++i) {
            double expected = values[i];
            if (dtype == DType::uint8 && expected < 0) expected = 0.0;
            if (dtype == DType::boolean) expected = values[i] != 0.0 ? 1.0 : 0.0;
            if (is_integral(dtype) && dtype != DType::boolean && expected == 1.5) expected = 2.0;
            EXPECT_EQ(load_element(dtype, buffer.data(), i), expected) << dtype_name(dtype) << " index " << i;
        }
    }
}

TEST(ElementAccess, StoredBytesAreLittleEndianEncodings) {
    std::array<std::uint8_t, 8> buffer{};
    store_element(DType::bfloat16, buffer.data(), 1, 1.0);
    EXPECT_EQ(buffer[2], 0x80);
    EXPECT_EQ(buffer[3], 0x3F);
    store_element(DType::float16, buffer.data(), 0, -2.0);
    EXPECT_EQ(buffer[0], 0x00);
    EXPECT_EQ(buffer[1], 0xC0);
    store_element(DType::float8_e4m3fn, buffer.data(), 5, 448.0);
    EXPECT_EQ(buffer[5], 0x7E);
    store_element(DType::float8_e5m2, buffer.data(), 6, -1.0);
    EXPECT_EQ(buffer[6], 0xBC);
    store_element(DType::int16, buffer.data(), 2, -2.0);
    EXPECT_EQ(buffer[4], 0xFE);
    EXPECT_EQ(buffer[5], 0xFF);
}

TEST(ElementAccess, FloatingStoresRoundThroughTheTargetFormat) {
    std::array<std::uint8_t, 8> buffer{};
    store_element(DType::bfloat16, buffer.data(), 0, 1.0 + 3.0 / 256.0);
    EXPECT_EQ(load_element(DType::bfloat16, buffer.data(), 0), 1.0 + 2.0 / 128.0);
    store_element(DType::float8_e4m3fn, buffer.data(), 0, 1000.0);
    EXPECT_TRUE(std::isnan(load_element(DType::float8_e4m3fn, buffer.data(), 0)));
    store_element(DType::float16, buffer.data(), 0, 1e300);
    EXPECT_EQ(load_element(DType::float16, buffer.data(), 0), std::numeric_limits<double>::infinity());
    store_element(DType::float32, buffer.data(), 0, -1e300);
    EXPECT_EQ(load_element(DType::float32, buffer.data(), 0), -std::numeric_limits<double>::infinity());
    store_element(DType::float32, buffer.data(), 0, 0.1);
    EXPECT_EQ(load_element(DType::float32, buffer.data(), 0), static_cast<double>(0.1f));
}

TEST(ElementAccess, IntegersRoundToNearestEvenAndSaturate) {
    std::array<std::uint8_t, 8> buffer{};
    const auto round_trip = [&](DType dtype, double value) {
        store_element(dtype, buffer.data(), 0, value);
        return load_element(dtype, buffer.data(), 0);
    };
    EXPECT_EQ(round_trip(DType::int32, 2.5), 2.0);
    EXPECT_EQ(round_trip(DType::int32, 3.5), 4.0);
    EXPECT_EQ(round_trip(DType::int32, -2.6), -3.0);
    EXPECT_EQ(round_trip(DType::int8, 300.0), 127.0);
    EXPECT_EQ(round_trip(DType::int8, -300.0), -128.0);
    EXPECT_EQ(round_trip(DType::uint8, -5.0), 0.0);
    EXPECT_EQ(round_trip(DType::uint8, 256.0), 255.0);
    EXPECT_EQ(round_trip(DType::int16, 40000.0), 32767.0);
    EXPECT_EQ(round_trip(DType::int32, 1e10), 2147483647.0);
    EXPECT_EQ(round_trip(DType::int32, std::nan("")), 0.0);
    EXPECT_EQ(round_trip(DType::uint8, std::numeric_limits<double>::infinity()), 255.0);

    store_element(DType::int64, buffer.data(), 0, 1e30);
    std::int64_t stored = 0;
    std::memcpy(&stored, buffer.data(), sizeof stored);
    EXPECT_EQ(stored, std::numeric_limits<std::int64_t>::max());
    store_element(DType::int64, buffer.data(), 0, -1e30);
    std::memcpy(&stored, buffer.data(), sizeof stored);
    EXPECT_EQ(stored, std::numeric_limits<std::int64_t>::min());
    store_element(DType::int64, buffer.data(), 0, 9007199254740993.0);  // rounds to 2^53 as a double literal
    std::memcpy(&stored, buffer.data(), sizeof stored);
    EXPECT_EQ(stored, 9007199254740992);
}

TEST(ElementAccess, BoolStoresNonZeroAsOne) {
    std::array<std::uint8_t, 4> buffer{};
    store_element(DType::boolean, buffer.data(), 0, 0.5);
    store_element(DType::boolean, buffer.data(), 1, 0.0);
    store_element(DType::boolean, buffer.data(), 2, -3.0);
    store_element(DType::boolean, buffer.data(), 3, std::nan(""));
    EXPECT_EQ(buffer, (std::array<std::uint8_t, 4>{1, 0, 1, 1}));
    buffer[0] = 7;
    EXPECT_EQ(load_element(DType::boolean, buffer.data(), 0), 1.0);
}

TEST(ElementAccess, Float4NibblesAreLowFirstAndLeaveNeighboursIntact) {
    std::array<std::uint8_t, 2> buffer = {0x00, 0x50};
    store_element(DType::float4_e2m1, buffer.data(), 0, 1.0);
    store_element(DType::float4_e2m1, buffer.data(), 1, -6.0);
    store_element(DType::float4_e2m1, buffer.data(), 2, 0.5);
    EXPECT_EQ(buffer[0], 0xF2);
    EXPECT_EQ(buffer[1], 0x51);
    EXPECT_EQ(load_element(DType::float4_e2m1, buffer.data(), 0), 1.0);
    EXPECT_EQ(load_element(DType::float4_e2m1, buffer.data(), 1), -6.0);
    EXPECT_EQ(load_element(DType::float4_e2m1, buffer.data(), 2), 0.5);
    EXPECT_EQ(load_element(DType::float4_e2m1, buffer.data(), 3), 3.0);
}

TEST(ElementAccess, PackedPairTypeIsNotAddressable) {
    std::array<std::uint8_t, 2> buffer{};
    EXPECT_THROW(load_element(DType::float4_e2m1fn_x2, buffer.data(), 0), std::invalid_argument);
    EXPECT_THROW(store_element(DType::float4_e2m1fn_x2, buffer.data(), 0, 1.0), std::invalid_argument);
}

// ---- whole-buffer conversion ----

TEST(Float32Conversion, PackedPairsExpandLowNibbleFirst) {
    const std::array<std::uint8_t, 2> packed = {0x72, 0xA1};
    const std::vector<float> values = to_float32(DType::float4_e2m1fn_x2, packed.data(), 2);
    EXPECT_EQ(values, (std::vector<float>{1.0f, 6.0f, 0.5f, -1.0f}));

    std::array<std::uint8_t, 2> repacked = {0xEE, 0xEE};
    from_float32(DType::float4_e2m1fn_x2, values.data(), 4, repacked.data());
    EXPECT_EQ(repacked, packed);
}

TEST(Float32Conversion, PackedPairsNeedAnEvenValueCount) {
    const std::array<float, 3> values = {1.0f, 2.0f, 3.0f};
    std::array<std::uint8_t, 2> destination{};
    EXPECT_THROW(from_float32(DType::float4_e2m1fn_x2, values.data(), 3, destination.data()), std::invalid_argument);
}

TEST(Float32Conversion, OddFloat4CountZeroesTheLastHighNibble) {
    const std::array<float, 3> values = {-0.5f, 4.0f, 1.5f};
    std::array<std::uint8_t, 2> destination = {0xFF, 0xFF};
    from_float32(DType::float4_e2m1, values.data(), 3, destination.data());
    EXPECT_EQ(destination, (std::array<std::uint8_t, 2>{0x69, 0x03}));
    EXPECT_EQ(to_float32(DType::float4_e2m1, destination.data(), 3), (std::vector<float>{-0.5f, 4.0f, 1.5f}));
}

TEST(Float32Conversion, RoundTripForEveryDType) {
    const std::vector<float> values = {0.0f, 1.0f, -2.0f, 3.0f, 0.5f, -6.0f};
    for (DType dtype : all_dtypes()) {
        std::vector<float> expected = values;
        if (dtype == DType::uint8) expected = {0.0f, 1.0f, 0.0f, 3.0f, 0.0f, 0.0f};
        if (dtype == DType::boolean) expected = {0.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
        if (is_integral(dtype) && dtype != DType::uint8 && dtype != DType::boolean) expected[4] = 0.0f;

        const std::int64_t elements = static_cast<std::int64_t>(values.size()) / values_per_element(dtype);
        std::vector<std::byte> buffer(storage_bytes(dtype, elements));
        from_float32(dtype, values.data(), static_cast<std::int64_t>(values.size()), buffer.data());
        EXPECT_EQ(to_float32(dtype, buffer.data(), elements), expected) << dtype_name(dtype);
    }
}

TEST(Float32Conversion, WideValuesNarrowWithRounding) {
    const std::array<double, 3> wide = {1e300, 1.0 + 0x1p-30, -0.1};
    EXPECT_EQ(to_float32(DType::float64, wide.data(), 3), (std::vector<float>{kInf, 1.0f, -0.1f}));
    const std::array<std::int64_t, 1> big = {(std::int64_t{1} << 24) + 1};
    EXPECT_EQ(to_float32(DType::int64, big.data(), 1), (std::vector<float>{16777216.0f}));
}

// float32, bfloat16 and float16 take a fast path: every 16-bit code decodes as element by element, float32 bits stay.
TEST(DTypeConversion, FastPathsDecodeEveryCodeAsOneElementAtATime) {
    std::vector<std::uint16_t> halves(65536);
    for (std::size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<std::uint16_t>(i);
    for (DType dtype : {DType::bfloat16, DType::float16}) {
        const auto decoded = to_float32(dtype, halves.data(), static_cast<std::int64_t>(halves.size()));
        ASSERT_EQ(decoded.size(), halves.size());
        for (std::size_t i = 0; i < halves.size(); ++i) {
            const auto one = static_cast<float>(load_element(dtype, halves.data(), static_cast<std::int64_t>(i)));
            if (std::isnan(one)) {
                ASSERT_TRUE(std::isnan(decoded[i])) << dtype_name(dtype) << " code " << i;  // a double round trip may quiet it
                continue;
            }
            ASSERT_EQ(std::bit_cast<std::uint32_t>(decoded[i]), std::bit_cast<std::uint32_t>(one)) << dtype_name(dtype) << " code " << i;
        }
    }
    const std::vector<std::uint32_t> patterns{0u, 0x80000000u, 0x3F800000u, 0x7F800000u, 0xFF800000u, 0x7FC00001u, 0x00000001u, 0x7F7FFFFFu};
    const auto decoded = to_float32(DType::float32, patterns.data(), static_cast<std::int64_t>(patterns.size()));
    for (std::size_t i = 0; i < patterns.size(); ++i) EXPECT_EQ(std::bit_cast<std::uint32_t>(decoded[i]), patterns[i]) << i;
}

}  // namespace
}  // namespace kernelarc::task

#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <dlpack/dlpack.h>

namespace kernelarc::task {

// Element types of the SOL-ExecBench task format, plus uint8.
enum class DType {
    float64,
    float32,
    float16,
    bfloat16,
    float8_e4m3fn,
    float8_e5m2,
    float4_e2m1,       // one fp4 value per stored element, two elements per byte, low nibble first
    float4_e2m1fn_x2,  // one byte per stored element, holding two fp4 values, low nibble first
    int64,
    int32,
    int16,
    int8,
    uint8,
    boolean,
};

// DLPack 1.1 type codes that dlpack.h 0.6 lacks; taken from the header itself when it is new enough.
#if defined(DLPACK_MAJOR_VERSION) && defined(DLPACK_MINOR_VERSION) && \
    (DLPACK_MAJOR_VERSION > 1 || (DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION >= 1))
inline constexpr std::uint8_t kDLBoolCode = kDLBool;
inline constexpr std::uint8_t kDLFloat8E4M3FNCode = kDLFloat8_e4m3fn;
inline constexpr std::uint8_t kDLFloat8E5M2Code = kDLFloat8_e5m2;
inline constexpr std::uint8_t kDLFloat4E2M1FNCode = kDLFloat4_e2m1fn;
#else
inline constexpr std::uint8_t kDLBoolCode = 6;
inline constexpr std::uint8_t kDLFloat8E4M3FNCode = 10;
inline constexpr std::uint8_t kDLFloat8E5M2Code = 12;
inline constexpr std::uint8_t kDLFloat4E2M1FNCode = 17;
#endif

// Names are the exact task-format spellings ("bool" for DType::boolean).
std::optional<DType> parse_dtype(std::string_view name);
std::string_view dtype_name(DType dtype);
const std::vector<DType>& all_dtypes();

// Bits per stored element: float4_e2m1 = 4, float4_e2m1fn_x2 = 8, bool = 8.
int dtype_bits(DType dtype);
// Bytes needed for `elements` stored elements, rounded up for 4-bit types. Throws std::invalid_argument if negative.
std::size_t storage_bytes(DType dtype, std::int64_t elements);
// Numeric values per stored element: 2 for float4_e2m1fn_x2, else 1.
int values_per_element(DType dtype);
bool is_floating(DType dtype);
bool is_integral(DType dtype);
// Largest finite value; for integer types the largest integer (int64 max is rounded to 2^63 as a double).
double max_finite(DType dtype);

// float4_e2m1 is {17, 4, 1}; float4_e2m1fn_x2 is {17, 4, 2}; bool is {6, 8, 1}.
DLDataType to_dlpack(DType dtype);
// Exact match on code, bits and lanes.
std::optional<DType> from_dlpack(DLDataType type);

// Scalar conversions. Encoders round to nearest, ties to even, as PyTorch's casts do.
// bf16 and fp16 keep the NaN sign and payload, setting the quiet bit.
float bf16_to_float(std::uint16_t bits);
std::uint16_t float_to_bf16(float value);
// fp16: subnormals are exact, overflow rounds to infinity.
float fp16_to_float(std::uint16_t bits);
std::uint16_t float_to_fp16(float value);
// e4m3fn has no infinity: NaN is 0x7F/0xFF; infinities, NaNs and finite values that round above 448 become NaN
// (keeping the sign), as torch does; 464 is a tie and rounds to 448.
float fp8_e4m3fn_to_float(std::uint8_t bits);
std::uint8_t float_to_fp8_e4m3fn(float value);
// e5m2 is IEEE-like: 0x7C is infinity, 0x7D-0x7F are NaN; the encoder writes NaN as 0x7F/0xFF.
float fp8_e5m2_to_float(std::uint8_t bits);
std::uint8_t float_to_fp8_e5m2(float value);
// e2m1 (low 4 bits only): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives. The encoder saturates finite values and
// infinities to +-6; it maps NaN to +6 (0x7), as the format has no NaN.
float fp4_e2m1_to_float(std::uint8_t nibble);
std::uint8_t float_to_fp4_e2m1(float value);

// Element access on raw buffers; `index` counts stored elements (nibbles for float4_e2m1).
// Both throw std::invalid_argument for float4_e2m1fn_x2, whose elements hold two values.
double load_element(DType dtype, const void* base, std::int64_t index);
// Floating types narrow through float32 first, as torch does. Integer types round to nearest (ties to even) and
// saturate, NaN becomes 0. bool stores value != 0 (so NaN is true).
void store_element(DType dtype, void* base, std::int64_t index, double value);

// Expands `elements` stored elements to float32 values; float4_e2m1fn_x2 gives two values per element, low nibble
// first. int64 values beyond 2^24 round to the nearest float.
std::vector<float> to_float32(DType dtype, const void* base, std::int64_t elements);
// The same into `values`, whose memory is reused: the judge converts gigabytes in chunks, and a fresh vector per chunk
// cost a page-faulting allocation each time.
void to_float32_into(DType dtype, const void* base, std::int64_t elements, std::vector<float>& values);
// Inverse of to_float32; `value_count` counts values (two per float4_e2m1fn_x2 element, so it must be even there).
// Writes storage_bytes(dtype, elements) bytes; an odd float4_e2m1 count leaves the last high nibble zero.
void from_float32(DType dtype, const float* values, std::int64_t value_count, void* destination);

}  // namespace kernelarc::task

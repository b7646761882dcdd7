#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "task/dtype.h"

namespace kernelarc::task {

// Raised for every unreadable, malformed or unwritable safetensors file; the message names the file.
class SafetensorsError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `data` holds the tensor's bytes exactly as stored (little-endian, row-major).
struct SafetensorsTensor {
    DType dtype = DType::float32;
    std::vector<std::int64_t> shape;
    std::vector<std::byte> data;
};

// Supported safetensors dtypes: BF16 F16 F32 F64 I64 I32 I16 I8 U8 BOOL F8_E4M3 (float8_e4m3fn) F8_E5M2.
// Both readers validate the whole header: every entry's dtype, shape and data_offsets (in range of the byte
// buffer and matching shape * element size). Overlapping or unused buffer regions are not rejected.

// Tensor names in sorted order, without "__metadata__".
std::vector<std::string> safetensors_keys(const std::filesystem::path& file);
SafetensorsTensor read_safetensors_tensor(const std::filesystem::path& file, std::string_view key);
// Lays the tensors out in key order, header padded with spaces to a multiple of 8 bytes. Throws SafetensorsError
// for a dtype safetensors cannot hold (float4 types), a data size that does not match the shape, a negative
// dimension, the reserved name "__metadata__", or a failed write.
void write_safetensors(const std::filesystem::path& file, const std::map<std::string, SafetensorsTensor>& tensors);

}  // namespace kernelarc::task

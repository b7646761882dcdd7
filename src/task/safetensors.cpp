#include "task/safetensors.h"

#include <array>
#include <bit>
#include <fstream>
#include <limits>
#include <optional>
#include <system_error>

#include <nlohmann/json.hpp>

namespace kernelarc::task {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

static_assert(std::endian::native == std::endian::little,
              "tensor bytes are copied as stored, and safetensors data is little-endian");

constexpr std::uint64_t kHeaderLengthBytes = 8;
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr std::string_view kMetadataKey = "__metadata__";

struct SafetensorsDType {
    std::string_view code;
    DType dtype;
};

constexpr std::array<SafetensorsDType, 12> kSafetensorsDTypes{{
    {"BF16", DType::bfloat16},
    {"F16", DType::float16},
    {"F32", DType::float32},
    {"F64", DType::float64},
    {"I64", DType::int64},
    {"I32", DType::int32},
    {"I16", DType::int16},
    {"I8", DType::int8},
    {"U8", DType::uint8},
    {"BOOL", DType::boolean},
    {"F8_E4M3", DType::float8_e4m3fn},
    {"F8_E5M2", DType::float8_e5m2},
}};

std::optional<DType> dtype_from_code(std::string_view code) {
    for (const auto& entry : kSafetensorsDTypes) {
        if (entry.code == code) return entry.dtype;
    }
    return std::nullopt;
}

std::optional<std::string_view> code_from_dtype(DType dtype) {
    for (const auto& entry : kSafetensorsDTypes) {
        if (entry.dtype == dtype) return entry.code;
    }
    return std::nullopt;
}

[[noreturn]] void fail(const fs::path& file, const std::string& problem) {
    throw SafetensorsError("safetensors file '" + file.string() + "': " + problem);
}

std::string single_quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    return text + "]";
}

// Bytes needed for `shape` elements of one-byte-aligned `dtype`, or nullopt when the count overflows.
std::optional<std::uint64_t> tensor_byte_size(DType dtype, const std::vector<std::int64_t>& shape) {
    std::uint64_t bytes = storage_bytes(dtype, 1);
    for (std::int64_t dimension : shape) {
        const auto extent = static_cast<std::uint64_t>(dimension);
        if (extent != 0 && bytes > std::numeric_limits<std::uint64_t>::max() / extent) return std::nullopt;
        bytes *= extent;
    }
    return bytes;
}

struct TensorEntry {
    DType dtype;
    std::vector<std::int64_t> shape;
    std::uint64_t begin;
    std::uint64_t end;
};

struct Header {
    std::map<std::string, TensorEntry> tensors;
    std::uint64_t data_start;
};

bool is_non_negative_integer(const Json& value) {
    return value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
}

TensorEntry parse_tensor_entry(const fs::path& file, const std::string& name, const Json& value,
                               std::uint64_t data_size) {
    const std::string tensor = "tensor " + single_quoted(name);
    if (!value.is_object()) fail(file, tensor + " is not a JSON object");

    const auto dtype_field = value.find("dtype");
    if (dtype_field == value.end() || !dtype_field->is_string()) fail(file, tensor + " has no string \"dtype\"");
    const auto dtype_code = dtype_field->get<std::string>();
    const std::optional<DType> dtype = dtype_from_code(dtype_code);
    if (!dtype) fail(file, tensor + " has unknown dtype " + single_quoted(dtype_code));

    const auto shape_field = value.find("shape");
    if (shape_field == value.end() || !shape_field->is_array()) fail(file, tensor + " has no array \"shape\"");
    std::vector<std::int64_t> shape;
    for (const Json& dimension : *shape_field) {
        if (!is_non_negative_integer(dimension) ||
            dimension.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            fail(file, tensor + " has shape " + shape_field->dump() + " with an entry that is not a non-negative integer");
        }
        shape.push_back(dimension.get<std::int64_t>());
    }

    const auto offsets_field = value.find("data_offsets");
    if (offsets_field == value.end() || !offsets_field->is_array() || offsets_field->size() != 2 ||
        !is_non_negative_integer((*offsets_field)[0]) || !is_non_negative_integer((*offsets_field)[1])) {
        fail(file, tensor + " needs \"data_offsets\" as [begin, end] of non-negative integers");
    }
    const auto begin = (*offsets_field)[0].get<std::uint64_t>();
    const auto end = (*offsets_field)[1].get<std::uint64_t>();
    if (begin > end || end > data_size) {
        fail(file, tensor + " has data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                       "] outside the " + std::to_string(data_size) + "-byte data buffer");
    }

    const std::optional<std::uint64_t> expected_bytes = tensor_byte_size(*dtype, shape);
    if (!expected_bytes) fail(file, tensor + " has shape " + shape_text(shape) + " whose byte size overflows");
    if (end - begin != *expected_bytes) {
        fail(file, tensor + " has " + std::to_string(end - begin) + " bytes of data but shape " + shape_text(shape) +
                       " of " + dtype_code + " needs " + std::to_string(*expected_bytes));
    }
    return TensorEntry{*dtype, std::move(shape), begin, end};
}

std::ifstream open_for_reading(const fs::path& file) {
    std::error_code error;
    const fs::file_status status = fs::status(file, error);
    if (status.type() == fs::file_type::not_found) fail(file, "file does not exist");
    if (error) fail(file, "cannot be inspected: " + error.message());
    if (!fs::is_regular_file(status)) fail(file, "is not a regular file");
    std::ifstream stream(file, std::ios::binary);
    if (!stream) fail(file, "cannot be opened for reading");
    return stream;
}

Header read_header(const fs::path& file, std::ifstream& stream) {
    std::error_code error;
    const std::uintmax_t file_size = fs::file_size(file, error);
    if (error) fail(file, "cannot read its size: " + error.message());
    if (file_size < kHeaderLengthBytes) {
        fail(file, "is too short (" + std::to_string(file_size) + " bytes) to hold the 8-byte header length");
    }

    std::array<unsigned char, kHeaderLengthBytes> length_bytes{};
    if (!stream.read(reinterpret_cast<char*>(length_bytes.data()), length_bytes.size())) {
        fail(file, "cannot read the 8-byte header length");
    }
    std::uint64_t header_length = 0;
    for (std::size_t i = 0; i < length_bytes.size(); ++i) {
        header_length |= static_cast<std::uint64_t>(length_bytes[i]) << (8 * i);
    }
    if (header_length > kMaxHeaderBytes) {
        fail(file, "header length " + std::to_string(header_length) + " exceeds the limit of " +
                       std::to_string(kMaxHeaderBytes) + " bytes");
    }
    if (header_length > file_size - kHeaderLengthBytes) {
        fail(file, "header length " + std::to_string(header_length) + " runs past the end of the " +
                       std::to_string(file_size) + "-byte file");
    }

    std::string header_text(header_length, '\0');
    if (!stream.read(header_text.data(), static_cast<std::streamsize>(header_length))) {
        fail(file, "cannot read the " + std::to_string(header_length) + "-byte header");
    }
    Json header_json;
    try {
        header_json = Json::parse(header_text);
    } catch (const Json::exception& parse_error) {  // a parse error, or a number too large for a double
        fail(file, std::string("header is not valid JSON: ") + parse_error.what());
    }
    if (!header_json.is_object()) fail(file, "header JSON is not an object");

    const std::uint64_t data_start = kHeaderLengthBytes + header_length;
    const std::uint64_t data_size = file_size - data_start;
    Header header{{}, data_start};
    for (const auto& [name, value] : header_json.items()) {
        if (name == kMetadataKey) {
            if (!value.is_object()) fail(file, "\"__metadata__\" is not a JSON object");
            continue;
        }
        header.tensors.emplace(name, parse_tensor_entry(file, name, value, data_size));
    }
    return header;
}

}  // namespace

std::vector<std::string> safetensors_keys(const fs::path& file) {
    std::ifstream stream = open_for_reading(file);
    const Header header = read_header(file, stream);
    std::vector<std::string> keys;
    keys.reserve(header.tensors.size());
    for (const auto& [name, entry] : header.tensors) keys.push_back(name);
    return keys;
}

SafetensorsTensor read_safetensors_tensor(const fs::path& file, std::string_view key) {
    std::ifstream stream = open_for_reading(file);
    const Header header = read_header(file, stream);
    const auto found = header.tensors.find(std::string(key));
    if (found == header.tensors.end()) {
        fail(file, "tensor " + single_quoted(key) + " not found among its " + std::to_string(header.tensors.size()) +
                       " tensors");
    }
    const TensorEntry& entry = found->second;

    SafetensorsTensor tensor{entry.dtype, entry.shape, std::vector<std::byte>(entry.end - entry.begin)};
    stream.seekg(static_cast<std::streamoff>(header.data_start + entry.begin));
    if (!stream.read(reinterpret_cast<char*>(tensor.data.data()), static_cast<std::streamsize>(tensor.data.size()))) {
        fail(file, "cannot read the " + std::to_string(tensor.data.size()) + " data bytes of tensor " + single_quoted(key));
    }
    return tensor;
}

void write_safetensors(const fs::path& file, const std::map<std::string, SafetensorsTensor>& tensors) {
    Json header = Json::object();
    std::uint64_t next_offset = 0;
    for (const auto& [name, tensor] : tensors) {
        const std::string what = "cannot write tensor " + single_quoted(name) + ": ";
        if (name == kMetadataKey) fail(file, what + "the name is reserved for metadata");
        const std::optional<std::string_view> code = code_from_dtype(tensor.dtype);
        if (!code) fail(file, what + "safetensors has no dtype for " + std::string(dtype_name(tensor.dtype)));
        for (std::int64_t dimension : tensor.shape) {
            if (dimension < 0) fail(file, what + "shape " + shape_text(tensor.shape) + " has a negative dimension");
        }
        const std::optional<std::uint64_t> expected_bytes = tensor_byte_size(tensor.dtype, tensor.shape);
        if (!expected_bytes || *expected_bytes != tensor.data.size()) {
            fail(file, what + "it has " + std::to_string(tensor.data.size()) + " bytes of data but shape " +
                           shape_text(tensor.shape) + " of " + std::string(dtype_name(tensor.dtype)) + " needs " +
                           (expected_bytes ? std::to_string(*expected_bytes) : std::string("more than 2^64")));
        }
        header[name] = {{"dtype", std::string(*code)},
                        {"shape", tensor.shape},
                        {"data_offsets", {next_offset, next_offset + tensor.data.size()}}};
        next_offset += tensor.data.size();
    }

    std::string header_text;
    try {
        header_text = header.dump();
    } catch (const Json::exception& error) {
        fail(file, std::string("cannot encode the header as JSON: ") + error.what());
    }
    // Padding keeps the byte buffer 8-byte aligned, as the reference writer does.
    header_text.append((kHeaderLengthBytes - header_text.size() % kHeaderLengthBytes) % kHeaderLengthBytes, ' ');

    std::array<char, kHeaderLengthBytes> length_bytes{};
    for (std::size_t i = 0; i < length_bytes.size(); ++i) {
        length_bytes[i] = static_cast<char>((static_cast<std::uint64_t>(header_text.size()) >> (8 * i)) & 0xFF);
    }

    std::ofstream stream(file, std::ios::binary | std::ios::trunc);
    if (!stream) fail(file, "cannot be opened for writing");
    stream.write(length_bytes.data(), length_bytes.size());
    stream.write(header_text.data(), static_cast<std::streamsize>(header_text.size()));
    for (const auto& [name, tensor] : tensors) {
        stream.write(reinterpret_cast<const char*>(tensor.data.data()), static_cast<std::streamsize>(tensor.data.size()));
    }
    stream.close();
    if (!stream) fail(file, "writing failed");
}

}  // namespace kernelarc::task

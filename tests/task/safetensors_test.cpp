#include "task/safetensors.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kernelarc::task {
namespace {

namespace fs = std::filesystem;

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
    std::vector<std::byte> bytes;
    for (int value : values) bytes.push_back(static_cast<std::byte>(value));
    return bytes;
}

std::string length_prefix(std::uint64_t length) {
    std::string prefix(8, '\0');
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
    return prefix;
}

// A file whose header is `header_json` verbatim, followed by `data`.
std::string safetensors_bytes(const std::string& header_json, const std::string& data = "") {
    return length_prefix(header_json.size()) + header_json + data;
}

class SafetensorsTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        directory_ = fs::temp_directory_path() /
                     ("kernelarc_safetensors_" + std::string(test->name()) + "_" + std::to_string(std::random_device{}()));
        fs::create_directories(directory_);
    }

    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(directory_, ignored);
    }

    fs::path write_raw(const std::string& name, const std::string& contents) const {
        const fs::path path = directory_ / name;
        std::ofstream stream(path, std::ios::binary);
        stream.write(contents.data(), static_cast<std::streamsize>(contents.size()));
        return path;
    }

    std::string read_raw(const fs::path& path) const {
        std::ifstream stream(path, std::ios::binary);
        return {std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
    }

    fs::path directory_;
};

// Message of the SafetensorsError that `action` throws, or a test failure when it throws none.
template <typename Action>
std::string error_from(Action&& action) {
    try {
        action();
    } catch (const SafetensorsError& error) {
        return error.what();
    }
    ADD_FAILURE() << "expected a SafetensorsError";
    return "";
}

void expect_contains(const std::string& text, const std::string& fragment) {
    EXPECT_NE(text.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << text;
}

// Both readers must reject a malformed file with a message naming the file and the problem.
void expect_malformed(const fs::path& file, const std::string& problem) {
    const std::string keys_error = error_from([&] { safetensors_keys(file); });
    expect_contains(keys_error, file.string());
    expect_contains(keys_error, problem);
    const std::string read_error = error_from([&] { read_safetensors_tensor(file, "x"); });
    expect_contains(read_error, file.string());
    expect_contains(read_error, problem);
}

void expect_same_tensor(const SafetensorsTensor& actual, const SafetensorsTensor& expected) {
    EXPECT_EQ(actual.dtype, expected.dtype);
    EXPECT_EQ(actual.shape, expected.shape);
    EXPECT_EQ(actual.data, expected.data);
}

TEST_F(SafetensorsTest, WriteThenReadRoundTripsSeveralDTypes) {
    const std::map<std::string, SafetensorsTensor> tensors = {
        {"weight_bf16", {DType::bfloat16, {2, 3}, bytes_of({0x80, 0x3F, 0x00, 0xC0, 0, 0, 1, 2, 3, 4, 5, 6})}},
        {"bias_f32", {DType::float32, {2}, bytes_of({0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0})}},
        {"index_i64", {DType::int64, {1}, bytes_of({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})}},
        {"mask", {DType::boolean, {3}, bytes_of({1, 0, 1})}},
        {"scale_fp8", {DType::float8_e4m3fn, {2, 2}, bytes_of({0x38, 0x7E, 0xB8, 0x01})}},
        {"scalar_u8", {DType::uint8, {}, bytes_of({200})}},
        {"empty_f64", {DType::float64, {0, 4}, {}}},
        {"half", {DType::float16, {1, 1, 2}, bytes_of({0x00, 0x3C, 0xFF, 0x7B})}},
    };
    const fs::path file = directory_ / "model.safetensors";
    write_safetensors(file, tensors);

    EXPECT_EQ(safetensors_keys(file), (std::vector<std::string>{"bias_f32", "empty_f64", "half", "index_i64", "mask",
                                                                "scalar_u8", "scale_fp8", "weight_bf16"}));
    for (const auto& [name, tensor] : tensors) {
        SCOPED_TRACE(name);
        expect_same_tensor(read_safetensors_tensor(file, name), tensor);
    }
}

TEST_F(SafetensorsTest, WrittenFileFollowsTheFormat) {
    const fs::path file = directory_ / "layout.safetensors";
    write_safetensors(file, {{"b", {DType::int16, {2}, bytes_of({1, 2, 3, 4})}},
                             {"a", {DType::float8_e5m2, {3}, bytes_of({5, 6, 7})}}});
    const std::string raw = read_raw(file);
    ASSERT_GE(raw.size(), 8u);

    std::uint64_t header_length = 0;
    for (int i = 0; i < 8; ++i) header_length |= static_cast<std::uint64_t>(static_cast<unsigned char>(raw[i])) << (8 * i);
    EXPECT_EQ(header_length % 8, 0u);
    ASSERT_EQ(raw.size(), 8 + header_length + 7);

    const auto header = nlohmann::json::parse(raw.substr(8, header_length));
    EXPECT_EQ(header["a"]["dtype"], "F8_E5M2");
    EXPECT_EQ(header["a"]["shape"], nlohmann::json::array({3}));
    EXPECT_EQ(header["a"]["data_offsets"], nlohmann::json::array({0, 3}));
    EXPECT_EQ(header["b"]["dtype"], "I16");
    EXPECT_EQ(header["b"]["data_offsets"], nlohmann::json::array({3, 7}));
    EXPECT_EQ(raw.substr(8 + header_length), std::string("\x05\x06\x07\x01\x02\x03\x04", 7));
}

TEST_F(SafetensorsTest, ReadsHandWrittenFileWithMetadataPaddingAndOffsets) {
    const std::string header =
        R"({"__metadata__":{"format":"pt"},)"
        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]},)"
        R"("a":{"dtype":"I16","shape":[],"data_offsets":[0,2]}}    )";
    const fs::path file = write_raw("hand.safetensors", safetensors_bytes(header, std::string("\x07\x00\x00\x00\x80\x3F", 6)));

    EXPECT_EQ(safetensors_keys(file), (std::vector<std::string>{"a", "b"}));
    expect_same_tensor(read_safetensors_tensor(file, "a"), {DType::int16, {}, bytes_of({7, 0})});
    expect_same_tensor(read_safetensors_tensor(file, "b"), {DType::float32, {1}, bytes_of({0, 0, 0x80, 0x3F})});
}

TEST_F(SafetensorsTest, MapsEverySafetensorsDTypeCode) {
    const std::vector<std::pair<std::string, DType>> codes = {
        {"BF16", DType::bfloat16}, {"F16", DType::float16},       {"F32", DType::float32},
        {"F64", DType::float64},   {"I64", DType::int64},         {"I32", DType::int32},
        {"I16", DType::int16},     {"I8", DType::int8},           {"U8", DType::uint8},
        {"BOOL", DType::boolean},  {"F8_E4M3", DType::float8_e4m3fn}, {"F8_E5M2", DType::float8_e5m2},
    };
    for (const auto& [code, dtype] : codes) {
        SCOPED_TRACE(code);
        const std::size_t bytes = storage_bytes(dtype, 2);
        const std::string header = R"({"x":{"dtype":")" + code + R"(","shape":[2],"data_offsets":[0,)" +
                                   std::to_string(bytes) + "]}}";
        const fs::path file = write_raw(code + ".safetensors", safetensors_bytes(header, std::string(bytes, '\x01')));
        const SafetensorsTensor tensor = read_safetensors_tensor(file, "x");
        EXPECT_EQ(tensor.dtype, dtype);
        EXPECT_EQ(tensor.data, std::vector<std::byte>(bytes, std::byte{1}));

        const fs::path rewritten = directory_ / (code + "_rewritten.safetensors");
        write_safetensors(rewritten, {{"x", tensor}});
        expect_same_tensor(read_safetensors_tensor(rewritten, "x"), tensor);
    }
}

TEST_F(SafetensorsTest, MissingFile) {
    expect_malformed(directory_ / "absent.safetensors", "does not exist");
}

TEST_F(SafetensorsTest, DirectoryInsteadOfFile) {
    expect_malformed(directory_, "not a regular file");
}

TEST_F(SafetensorsTest, FileTooShortForHeaderLength) {
    expect_malformed(write_raw("short.safetensors", std::string("\x02\x00\x00\x00\x00", 5)), "too short");
    expect_malformed(write_raw("empty.safetensors", ""), "too short");
}

TEST_F(SafetensorsTest, HeaderLengthBeyondFile) {
    expect_malformed(write_raw("beyond.safetensors", length_prefix(64) + "{}"), "runs past the end");
}

TEST_F(SafetensorsTest, HeaderLengthAboveLimit) {
    expect_malformed(write_raw("huge.safetensors", length_prefix(200'000'000) + "{}"), "exceeds the limit");
    expect_malformed(write_raw("enormous.safetensors", length_prefix(~std::uint64_t{0}) + "{}"), "exceeds the limit");
}

TEST_F(SafetensorsTest, HeaderIsNotJson) {
    expect_malformed(write_raw("garbage.safetensors", safetensors_bytes(R"({"x": {"dtype": )")), "not valid JSON");
    expect_malformed(write_raw("empty_header.safetensors", safetensors_bytes("")), "not valid JSON");
}

TEST_F(SafetensorsTest, HeaderIsNotAnObject) {
    expect_malformed(write_raw("array.safetensors", safetensors_bytes("[1, 2]")), "not an object");
}

TEST_F(SafetensorsTest, MetadataIsNotAnObject) {
    expect_malformed(write_raw("metadata.safetensors", safetensors_bytes(R"({"__metadata__": 3})")),
                     "\"__metadata__\" is not a JSON object");
}

TEST_F(SafetensorsTest, EntryIsNotAnObject) {
    expect_malformed(write_raw("entry.safetensors", safetensors_bytes(R"({"x": [1]})")), "tensor 'x' is not a JSON object");
}

TEST_F(SafetensorsTest, UnknownDType) {
    const std::string header = R"({"x":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}})";
    expect_malformed(write_raw("dtype.safetensors", safetensors_bytes(header, "\x01")), "unknown dtype 'Q7'");
    const std::string missing = R"({"x":{"shape":[1],"data_offsets":[0,1]}})";
    expect_malformed(write_raw("no_dtype.safetensors", safetensors_bytes(missing, "\x01")), "no string \"dtype\"");
}

TEST_F(SafetensorsTest, BadShape) {
    const std::string negative = R"({"x":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})";
    expect_malformed(write_raw("negative.safetensors", safetensors_bytes(negative, "\x01")), "not a non-negative integer");
    const std::string fractional = R"({"x":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}})";
    expect_malformed(write_raw("fractional.safetensors", safetensors_bytes(fractional, "\x01")),
                     "not a non-negative integer");
    const std::string missing = R"({"x":{"dtype":"U8","data_offsets":[0,1]}})";
    expect_malformed(write_raw("no_shape.safetensors", safetensors_bytes(missing, "\x01")), "no array \"shape\"");
}

TEST_F(SafetensorsTest, OffsetsOutOfRange) {
    const std::string past_end = R"({"x":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})";
    expect_malformed(write_raw("past_end.safetensors", safetensors_bytes(past_end, "\x01\x02\x03")),
                     "data_offsets [0, 4] outside the 3-byte data buffer");
    const std::string reversed = R"({"x":{"dtype":"U8","shape":[0],"data_offsets":[2,1]}})";
    expect_malformed(write_raw("reversed.safetensors", safetensors_bytes(reversed, "\x01\x02\x03")),
                     "data_offsets [2, 1] outside");
}

TEST_F(SafetensorsTest, OffsetsMalformed) {
    const std::string single = R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[0]}})";
    expect_malformed(write_raw("single.safetensors", safetensors_bytes(single, "\x01")), "\"data_offsets\" as [begin, end]");
    const std::string negative = R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}})";
    expect_malformed(write_raw("negative_offset.safetensors", safetensors_bytes(negative, "\x01")),
                     "\"data_offsets\" as [begin, end]");
}

TEST_F(SafetensorsTest, OffsetsInconsistentWithShape) {
    const std::string header = R"({"x":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}})";
    expect_malformed(write_raw("inconsistent.safetensors", safetensors_bytes(header, std::string(16, '\0'))),
                     "has 12 bytes of data but shape [2, 2] of F32 needs 16");
}

TEST_F(SafetensorsTest, ShapeWhoseSizeOverflows) {
    const std::string header =
        R"({"x":{"dtype":"F64","shape":[9223372036854775807,4],"data_offsets":[0,0]}})";
    expect_malformed(write_raw("overflow.safetensors", safetensors_bytes(header)), "overflows");
}

TEST_F(SafetensorsTest, OneBadEntryRejectsTheWholeFile) {
    const std::string header = R"({"good":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                               R"("bad":{"dtype":"U8","shape":[5],"data_offsets":[0,1]}})";
    const fs::path file = write_raw("one_bad.safetensors", safetensors_bytes(header, "\x01"));
    expect_contains(error_from([&] { read_safetensors_tensor(file, "good"); }), "tensor 'bad'");
}

TEST_F(SafetensorsTest, KeyNotFound) {
    const fs::path file = directory_ / "keys.safetensors";
    write_safetensors(file, {{"present", {DType::int8, {1}, bytes_of({3})}}});
    const std::string error = error_from([&] { read_safetensors_tensor(file, "absent"); });
    expect_contains(error, file.string());
    expect_contains(error, "tensor 'absent' not found");
    expect_contains(error_from([&] { read_safetensors_tensor(file, "__metadata__"); }), "tensor '__metadata__' not found");
}

TEST_F(SafetensorsTest, WriteRejectsDataSizeMismatch) {
    const fs::path file = directory_ / "mismatch.safetensors";
    const std::string error =
        error_from([&] { write_safetensors(file, {{"w", {DType::float32, {3}, bytes_of({1, 2, 3, 4})}}}); });
    expect_contains(error, file.string());
    expect_contains(error, "tensor 'w'");
    expect_contains(error, "has 4 bytes of data but shape [3] of float32 needs 12");
    EXPECT_FALSE(fs::exists(file));
}

TEST_F(SafetensorsTest, WriteRejectsUnsupportedDTypeNegativeShapeAndReservedName) {
    const fs::path file = directory_ / "rejected.safetensors";
    expect_contains(error_from([&] { write_safetensors(file, {{"w", {DType::float4_e2m1, {2}, bytes_of({0x21})}}}); }),
                    "safetensors has no dtype for float4_e2m1");
    expect_contains(error_from([&] { write_safetensors(file, {{"w", {DType::uint8, {-1}, {}}}}); }),
                    "negative dimension");
    expect_contains(error_from([&] { write_safetensors(file, {{"__metadata__", {DType::uint8, {1}, bytes_of({1})}}}); }),
                    "reserved");
}

TEST_F(SafetensorsTest, WriteToMissingDirectoryFails) {
    const fs::path file = directory_ / "no_such_directory" / "out.safetensors";
    const std::string error = error_from([&] { write_safetensors(file, {}); });
    expect_contains(error, file.string());
    expect_contains(error, "cannot be opened for writing");
}

TEST_F(SafetensorsTest, EmptyTensorMapWritesAReadableFile) {
    const fs::path file = directory_ / "empty.safetensors";
    write_safetensors(file, {});
    EXPECT_TRUE(safetensors_keys(file).empty());
}

}  // namespace
}  // namespace kernelarc::task

// The worker's reading of the judge's messages: offsets, copies and shapes are non-negative integers within its
// buffer, or the message is refused (found by fuzz_worker_message: a float offset of 1e54 was undefined behaviour).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "judge/call_tensors.h"

namespace kernelarc::judge {
namespace {

using nlohmann::json;

TEST(CallTensorsTest, CopiesMustBeIntegersInsideTheBuffer) {
  EXPECT_EQ(parse_copies(json::parse("[[0, 64, 32]]"), 128).size(), 1u);
  EXPECT_THROW(parse_copies(json::parse("[[1, 1111111111111111111111111111111111111111111111111111129]]"), 128), std::runtime_error);
  EXPECT_THROW(parse_copies(json::parse("[[1.5, 0, 8]]"), 128), std::runtime_error);
  EXPECT_THROW(parse_copies(json::parse("[[-1, 0, 8]]"), 128), std::runtime_error);
  EXPECT_THROW(parse_copies(json::parse("[[0, 120, 16]]"), 128), std::runtime_error) << "past the end";
}

TEST(CallTensorsTest, ShapesMustBeNonNegativeIntegersOfAPossibleSize) {
  EXPECT_EQ(parse_layouts(json::parse(R"([{"dtype": "float32", "shape": [2, 3]}])")).front().bytes(), 24u);
  EXPECT_THROW(parse_layouts(json::parse(R"([{"dtype": "float32", "shape": [-2, 3]}])")), std::runtime_error);
  EXPECT_THROW(parse_layouts(json::parse(R"([{"dtype": "float32", "shape": [1e30]}])")), std::runtime_error);
  EXPECT_THROW(parse_layouts(json::parse(R"([{"dtype": "float32", "shape": [4294967296, 4294967296]}])")), std::runtime_error);
}

}  // namespace
}  // namespace kernelarc::judge

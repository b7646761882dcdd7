// The worker protocol's requests as types: what the judge writes is what the workers read back, under the names
// docs/WORKER_PROTOCOL.md gives (the oracle reads the same JSON); offsets, copies and shapes are non-negative integers
// within the worker's buffer, or the request is refused (found by fuzz_worker_message: a float offset of 1e54 was
// undefined behaviour).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "judge/call_tensors.h"
#include "judge/device_findings.h"
#include "judge/worker_messages.h"

namespace kernelarc::judge {
namespace {

using nlohmann::json;

template <class Message>
Message read_back(const Message& message) {
  return json::parse(json(message).dump()).get<Message>();
}

TEST(WorkerMessagesTest, CopiesMustBeIntegersInsideTheBuffer) {
  const auto copies = json::parse(R"({"op": "copy", "ranges": [[0, 64, 32]]})").get<message::Copy>().ranges;
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_NO_THROW(check_inside(copies, 128));
  EXPECT_THROW(check_inside(copies, 64), std::runtime_error) << "the copy's end lies past a 64-byte buffer";
  for (const char* bad : {R"([[1, 1111111111111111111111111111111111111111111111111111129, 8]])", "[[1.5, 0, 8]]", "[[-1, 0, 8]]"})
    EXPECT_THROW((json{{"op", "copy"}, {"ranges", json::parse(bad)}}.get<message::Copy>()), std::runtime_error) << bad;
  const auto past_the_end = json::parse(R"({"op": "copy", "ranges": [[0, 120, 16]]})").get<message::Copy>().ranges;
  EXPECT_THROW(check_inside(past_the_end, 128), std::runtime_error);
}

TEST(WorkerMessagesTest, ShapesMustBeNonNegativeIntegersOfAPossibleSize) {
  const auto layout_of = [](const char* shape) {
    return message::layouts({json{{"dtype", "float32"}, {"shape", json::parse(shape)}}.get<message::TensorBinding>()});
  };
  EXPECT_EQ(layout_of("[2, 3]").front().bytes(), 24u);
  EXPECT_THROW(layout_of("[-2, 3]"), std::runtime_error);
  EXPECT_THROW(layout_of("[1e30]"), std::runtime_error);
  EXPECT_THROW(layout_of("[4294967296, 4294967296]"), std::runtime_error);
  EXPECT_THROW(layout_of("[18446744073709551615]"), std::runtime_error) << "beyond int64: must not wrap to a negative extent";
  EXPECT_THROW(message::layouts({{"float33", {2}, false, std::nullopt}}), std::runtime_error);
}

TEST(WorkerMessagesTest, ACallReadsBackAsWrittenUnderTheDocumentedNames) {
  message::Call call{{0, 4096}, {8192}, std::uint8_t{0xa5}, false};
  const json wire = call;
  EXPECT_EQ(wire.at("op"), "call");
  EXPECT_EQ(wire.at("inputs"), json::parse("[0, 4096]"));
  EXPECT_EQ(wire.at("outputs"), json::parse("[8192]"));
  EXPECT_EQ(wire.at("poison"), 0xa5);
  EXPECT_FALSE(wire.contains("null")) << "only the empty call says null";
  const auto back = read_back(call);
  EXPECT_EQ(back.inputs, call.inputs);
  EXPECT_EQ(back.outputs, call.outputs);
  EXPECT_EQ(back.poison, call.poison);
  call.null_entry = true;
  call.poison.reset();
  EXPECT_TRUE(read_back(call).null_entry);
  EXPECT_FALSE(read_back(call).poison);
  EXPECT_THROW(json::parse(R"({"op": "call", "inputs": [0], "outputs": [8], "poison": 256})").get<message::Call>(), std::runtime_error);
  EXPECT_THROW(json::parse(R"({"op": "call", "inputs": [0.5], "outputs": [8]})").get<message::Call>(), std::runtime_error);
}

TEST(WorkerMessagesTest, ABindWithALaunchReadsBackAsWritten) {
  message::Bind bind;
  bind.inputs.push_back({"bfloat16", {4, 4096}, false, std::nullopt});
  bind.inputs.push_back({"float32", {}, true, std::nullopt});
  bind.outputs.push_back({"bfloat16", {4, 4096}, false, "y"});
  bind.launch = message::Launch{{132, 1, 1}, {256, 1, 1}, 65536, {4}};
  const json wire = bind;
  EXPECT_EQ(wire.at("op"), "bind");
  EXPECT_EQ(wire.at("inputs").at(1).at("scalar"), true);
  EXPECT_EQ(wire.at("outputs").at(0).at("name"), "y");
  EXPECT_EQ(wire.at("launch").at("shared_bytes"), 65536);
  const auto back = read_back(bind);
  ASSERT_EQ(back.inputs.size(), 2u);
  EXPECT_EQ(back.inputs[0].shape, (std::vector<std::int64_t>{4, 4096}));
  EXPECT_TRUE(back.inputs[1].scalar);
  EXPECT_EQ(back.outputs[0].name, "y");
  ASSERT_TRUE(back.launch);
  EXPECT_EQ(back.launch->grid, (std::vector<unsigned>{132, 1, 1}));
  EXPECT_EQ(back.launch->arguments, (std::vector<long long>{4}));
  bind.launch.reset();
  EXPECT_FALSE(read_back(bind).launch);
}

TEST(WorkerMessagesTest, TheOtherRequestsReadBackAsWritten) {
  EXPECT_EQ(json(message::Hello{}).at("op"), "hello");
  const auto map = read_back(message::Map{"/tmp/w0", 1 << 20});
  EXPECT_EQ(map.file, "/tmp/w0");
  EXPECT_EQ(map.bytes, 1u << 20);
  const message::Transfer download{message::Direction::download, {{0, 64}, {128, 32}}};
  EXPECT_EQ(json(download).at("op"), "download");
  const auto transfer = read_back(download);
  EXPECT_EQ(transfer.direction, message::Direction::download);
  ASSERT_EQ(transfer.ranges.size(), 2u);
  EXPECT_EQ(transfer.ranges[1].offset, 128u);
  EXPECT_EQ(read_back(message::Flush{4096}).bytes, 4096u);
  EXPECT_EQ(json::parse(R"({"op": "flush"})").get<message::Flush>().bytes, 0u) << "a GPU flush names no size";
  message::Load cubin;
  cubin.cubin = "/tmp/c.cubin";
  cubin.kernel = "";
  const auto loaded = read_back(cubin);
  EXPECT_EQ(loaded.cubin, cubin.cubin);
  EXPECT_EQ(loaded.kernel, "");
  EXPECT_FALSE(loaded.library);
  EXPECT_THROW(json::parse(R"({"op": "load"})").get<message::Load>(), std::runtime_error) << "a load that names nothing";
  const auto sandbox = read_back(message::Sandbox{json{{"read_only", {"/usr"}}}, std::nullopt});
  EXPECT_EQ(sandbox.policy.at("read_only").at(0), "/usr");
  EXPECT_FALSE(sandbox.library);
}

// A screening's checks on the GPU (judge/device_checks.h): what is kept, restored and compared, and what the
// comparison finds, NaN and infinities included (JSON has neither as a number).
TEST(WorkerMessagesTest, TheDeviceChecksRequestsAndFindingsReadBackAsWritten) {
  const auto keep = read_back(message::Keep{"w0/1f/4096/512", {{0, 4096}, {8192, 512}}});
  EXPECT_EQ(json(message::Keep{}).at("op"), "keep");
  EXPECT_EQ(keep.key, "w0/1f/4096/512");
  ASSERT_EQ(keep.ranges.size(), 2u);
  EXPECT_EQ(keep.ranges[1].offset, 8192u);
  EXPECT_EQ(read_back(message::Forget{"w0/1f"}).key, "w0/1f");
  EXPECT_EQ(json(message::Forget{}).at("op"), "forget");
  const auto restore = read_back(message::Restore{"k", {{4096, 8192, 512}}});
  ASSERT_EQ(restore.copies.size(), 1u);
  EXPECT_EQ(restore.copies[0].from, 4096u);
  EXPECT_EQ(restore.copies[0].to, 8192u);
  EXPECT_EQ(restore.copies[0].bytes, 512u);
  message::OutputComparison output{8448, 4352, 100, "bfloat16", 1e-2, 2e-2, true, std::uint8_t{0xFF}};
  const auto compare = read_back(message::CompareOutputs{"k", {output, {0, 0, 1, "float32", 0, 0, false, std::nullopt}}});
  EXPECT_EQ(json(compare).at("op"), "compare");
  ASSERT_EQ(compare.outputs.size(), 2u);
  EXPECT_EQ(compare.outputs[0].at, 8448u);
  EXPECT_EQ(compare.outputs[0].reference, 4352u);
  EXPECT_EQ(compare.outputs[0].dtype, "bfloat16");
  EXPECT_EQ(compare.outputs[0].rtol, 2e-2);
  EXPECT_TRUE(compare.outputs[0].allow_negative_inf);
  EXPECT_EQ(compare.outputs[0].poison, std::uint8_t{0xFF});
  EXPECT_FALSE(compare.outputs[1].poison);
  EXPECT_THROW(json::parse(R"({"op": "compare", "key": "k", "outputs": [{"at": 0, "reference": 0, "elements": 1, "dtype": "float32",
                                 "atol": 0, "rtol": 0, "poison": 300}]})").get<message::CompareOutputs>(), std::runtime_error);
  ComparisonFindings found;
  found.mismatched = 3;
  found.first_bad_index = 7;
  found.first_problem_index = 9;
  found.max_abs_error = 0.1;
  found.first_bad_got = std::numeric_limits<double>::quiet_NaN();
  found.first_bad_want = -std::numeric_limits<double>::infinity();
  found.first_problem_value = std::numeric_limits<double>::infinity();
  found.all_zero = false;
  const auto back = findings_from_json(json::parse(findings_to_json(found).dump()));
  EXPECT_EQ(back.mismatched, 3);
  EXPECT_EQ(back.first_bad_index, 7);
  EXPECT_EQ(back.first_problem_index, 9);
  EXPECT_EQ(back.max_abs_error, 0.1);
  EXPECT_TRUE(std::isnan(back.first_bad_got));
  EXPECT_EQ(back.first_bad_want, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(back.first_problem_value, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(back.all_zero);
  EXPECT_TRUE(back.reference_all_zero);
  EXPECT_EQ(device_dtype_code(task::DType::float8_e4m3fn), 3);
  EXPECT_FALSE(compared_on_device(task::DType::int32)) << "integers are compared on the host";
  EXPECT_FALSE(compared_on_device(task::DType::float4_e2m1fn_x2));
}

TEST(WorkerMessagesTest, TheOraclesRequestsCarryTheNamesItReads) {
  const json inputs = message::CustomInputs{"make_inputs", json{{"n", 8}}, 42, {{"x", 0, 256}}};
  EXPECT_EQ(inputs.at("op"), "inputs");
  EXPECT_EQ(inputs.at("entry"), "make_inputs");
  EXPECT_EQ(inputs.at("seed"), 42);
  EXPECT_EQ(inputs.at("tensors").at(0), (json{{"name", "x"}, {"index", 0}, {"offset", 256}}));
  const json time = message::TimeBaseline{{{0}, {64}, std::nullopt, false}, 3, 20, 1 << 20};
  EXPECT_EQ(time.at("op"), "time") << "a call's fields under the time op";
  EXPECT_EQ(time.at("inputs"), json::parse("[0]"));
  EXPECT_EQ(time.at("iterations"), 20);
  EXPECT_EQ(time.at("flush_bytes"), 1 << 20);
}

}  // namespace
}  // namespace kernelarc::judge

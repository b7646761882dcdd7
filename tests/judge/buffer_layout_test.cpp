// The output region's guards: what prepare_output_guards writes is what check_output_guards reads, the outputs left as
// they were; prepare_outputs adds the poison, and a byte written past an output is found.
#include "judge/buffer_layout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;

task::TensorSpec tensor(const std::string& name, task::DType dtype, std::vector<std::string> shape) {
  task::TensorSpec spec;
  spec.name = name;
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  return spec;
}

class BufferLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-buffer-layout-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    // Two outputs of sizes that are no multiple of the alignment, so each is followed by padding and a guard.
    task_.definition.inputs = {tensor("x", task::DType::float32, {"N"})};
    task_.definition.outputs = {tensor("y", task::DType::bfloat16, {"N"}), tensor("z", task::DType::float32, {"M"})};
    resolved_.axes = {{"N", 1000}, {"M", 77}};
    resolved_.input_shapes = {{1000}};
    resolved_.output_shapes = {{1000}, {77}};
    layout_ = make_layout(task_, resolved_, 1, 1 << 20);
    buffer_ = SharedBuffer::create(root_ / "w0.buf", layout_.total_bytes());
    guard_ = guard_pattern(42);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::byte* region() const { return buffer_.data() + layout_.output_base(); }

  fs::path root_;
  task::Task task_;
  task::ResolvedWorkload resolved_;
  Layout layout_;
  SharedBuffer buffer_;
  std::vector<std::byte> guard_;
};

TEST_F(BufferLayoutTest, GuardsAloneLeaveTheOutputsAsTheyWere) {
  std::fill(region(), region() + layout_.output_region_bytes, std::byte{0x11});
  prepare_output_guards(buffer_, layout_, guard_);
  EXPECT_FALSE(check_output_guards(buffer_, layout_, guard_, task_.definition, resolved_));
  for (std::size_t i = 0; i < layout_.output_offsets.size(); ++i)
    EXPECT_TRUE(std::all_of(region() + layout_.output_offsets[i], region() + layout_.output_offsets[i] + layout_.output_bytes[i],
                            [](std::byte b) { return b == std::byte{0x11}; }))
        << "output " << i;
}

TEST_F(BufferLayoutTest, PreparedOutputsHoldThePoisonAndEveryOtherByteIsAGuard) {
  std::fill(region(), region() + layout_.output_region_bytes, std::byte{0x11});
  prepare_outputs(buffer_, layout_, guard_, std::byte{0xFF});
  for (std::size_t at = 0; at < layout_.output_region_bytes; ++at) {
    const bool inside = std::any_of(layout_.output_offsets.begin(), layout_.output_offsets.end(), [&](const std::size_t& offset) {
      const std::size_t i = static_cast<std::size_t>(&offset - layout_.output_offsets.data());
      return at >= offset && at < offset + layout_.output_bytes[i];
    });
    ASSERT_EQ(region()[at], inside ? std::byte{0xFF} : guard_[at % kGuardBytes]) << "byte " << at;
  }
}

TEST_F(BufferLayoutTest, AByteWrittenPastAnOutputIsFound) {
  prepare_output_guards(buffer_, layout_, guard_);
  std::byte& past = region()[layout_.output_offsets[1] + layout_.output_bytes[1]];
  past = ~past;
  const auto failure = check_output_guards(buffer_, layout_, guard_, task_.definition, resolved_);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->status, Status::incorrect_shape);
  EXPECT_NE(failure->reason.find("past the end of output 'z'"), std::string::npos) << failure->reason;
}

}  // namespace
}  // namespace kernelarc::judge

// The judge's byte helpers split their work over the cores in chunks: every byte is done once, whatever the size, and
// nothing beyond it is touched.
#include "common/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kernelarc::common {
namespace {

constexpr std::size_t kOdd = (9u << 20) + 3;  // several chunks of 4 MiB, the last one short

TEST(ParallelTest, FillBytesFillsEveryByteAndNothingPast) {
  std::vector<unsigned char> bytes(kOdd + 16, 0x11);
  fill_bytes(bytes.data() + 8, 0xAB, kOdd);
  EXPECT_TRUE(std::all_of(bytes.begin(), bytes.begin() + 8, [](unsigned char b) { return b == 0x11; }));
  EXPECT_TRUE(std::all_of(bytes.begin() + 8, bytes.begin() + 8 + kOdd, [](unsigned char b) { return b == 0xAB; }));
  EXPECT_TRUE(std::all_of(bytes.end() - 8, bytes.end(), [](unsigned char b) { return b == 0x11; }));
}

TEST(ParallelTest, CopiedBytesCompareEqualAndOneChangedByteDoesNot) {
  std::vector<unsigned char> from(kOdd), to(kOdd);
  for (std::size_t i = 0; i < kOdd; ++i) from[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  copy_bytes(to.data(), from.data(), kOdd);
  EXPECT_EQ(to, from);
  EXPECT_TRUE(equal_bytes(to.data(), from.data(), kOdd));
  to[kOdd - 1] ^= 1;  // in the last, short chunk
  EXPECT_FALSE(equal_bytes(to.data(), from.data(), kOdd));
}

}  // namespace
}  // namespace kernelarc::common

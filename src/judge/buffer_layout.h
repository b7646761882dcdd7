// The judge's shared buffer for one workload: where each tensor lives (input slots, outputs between guards, the GPU's
// input variants), the guard and poison bytes written around and into the outputs, and the checks that read them back
// after a call (a write past an output, a changed input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "judge/judge_failure.h"
#include "judge/shared_buffer.h"
#include "task/task.h"

namespace kernelarc::judge {

constexpr std::size_t kAlignment = 256;
constexpr std::size_t kGuardBytes = 256;
// Unwritten is what holds a non-finite poison after a call, or the first poison after one call and the second after the
// next on the same inputs: no byte pattern is non-finite in every dtype (none is in the integers or fp4).
constexpr std::byte kPoisonFirst{0xFF};   // NaN in every float format, -1 in the integers, -6 -6 in fp4
constexpr std::byte kPoisonSecond{0xEE};  // differs from 0xFF in both nibbles, so every fp4 value is told apart too

// Where each tensor lives in a shared buffer: inputs in slots (one per distinct address), then outputs between guards,
// then (on a GPU) a pristine copy of each input variant, copied into the slots on the device during timing.
struct Layout {
  std::vector<std::size_t> input_offsets;   // within a slot
  std::vector<std::size_t> input_bytes;
  std::size_t slot_bytes = 0;
  std::vector<std::size_t> output_offsets;  // within the output region
  std::vector<std::size_t> output_bytes;
  std::size_t output_region_bytes = 0;
  int slots = 1;
  int variant_slots = 0;
  std::size_t output_base() const { return static_cast<std::size_t>(slots) * slot_bytes; }
  std::size_t variant_base(int variant) const {
    return output_base() + output_region_bytes + static_cast<std::size_t>(variant) * slot_bytes;
  }
  std::size_t total_bytes() const { return variant_base(variant_slots); }
};

Layout make_layout(const task::Task& task, const task::ResolvedWorkload& resolved, int wanted_slots, std::size_t pool_bytes,
                   int variant_slots = 0);

// The guard bytes of a workload: a pattern drawn from its seed, repeated around every output and between the inputs.
std::vector<std::byte> guard_pattern(std::uint64_t workload_seed);

// A slot's image: the guard bytes between and after the inputs (the inputs themselves are written by the caller).
void write_input_guards(std::vector<std::byte>& slot_image, const Layout& layout, const std::vector<std::byte>& guard);

void write_slot(const SharedBuffer& buffer, const Layout& layout, int slot, const std::vector<std::byte>& image);

// Output i's guards in the output region: [before, its start) and [after_start, after_end); with the outputs they
// cover the region (the first output starts kGuardBytes in, and each guard after one ends where the next one's starts).
struct OutputGuards {
  std::size_t before, after_start, after_end;
};
OutputGuards output_guards(const Layout& layout, std::size_t i);

// The output region: guards everywhere, then each output filled with the poison.
void prepare_outputs(const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard, std::byte poison);
// Only the guards, the outputs left as they are.
void prepare_output_guards(const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard);

// Guards around outputs: a write past an output's end means the candidate assumed another shape.
std::optional<Failure> check_output_guards(const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard,
                                           const task::Definition& definition, const task::ResolvedWorkload& resolved);

// A slot's inputs and the guards between them against the image written there: a change is a REWARD_HACK.
std::optional<Failure> check_inputs(const SharedBuffer& buffer, const Layout& layout, int slot, const std::vector<std::byte>& image,
                                    const task::Definition& definition);

// A copy of each output as the buffer holds it now.
std::vector<std::vector<std::byte>> outputs_of(const SharedBuffer& buffer, const Layout& layout);

// Where output i lives in the buffer.
inline std::byte* output_data(const SharedBuffer& buffer, const Layout& layout, std::size_t i) {
  return buffer.data() + layout.output_base() + layout.output_offsets[i];
}

}  // namespace kernelarc::judge

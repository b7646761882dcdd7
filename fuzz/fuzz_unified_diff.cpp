// A unified diff (after the first NUL) applied to a text (before it): applied, or refused with a DiffError.
#include "fuzz_input.h"
#include "llm/unified_diff.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelarc;
  const auto [original, diff] = fuzz::split(fuzz::text(data, size));
  try {
    (void)llm::looks_like_unified_diff(diff);
    (void)llm::apply_unified_diff(original, diff);
  } catch (const llm::DiffError&) {
  }
  return 0;
}

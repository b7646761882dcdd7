// A .safetensors file (an 8-byte length, a JSON header, raw bytes) as a workload may name one: read, or refused.
#include <stdexcept>

#include "fuzz_input.h"
#include "task/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelarc;
  const auto file = fuzz::scratch() / "input.safetensors";
  fuzz::write(file, fuzz::text(data, size));
  try {
    for (const auto& key : task::safetensors_keys(file)) (void)task::read_safetensors_tensor(file, key);
  } catch (const std::exception&) {
  }
  return 0;
}

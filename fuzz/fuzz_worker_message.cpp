// A message on the judge-worker channel, as a candidate that corrupts its worker could make one: the layouts, copies
// and tensor offsets a worker would act on are checked against its buffer, or refused; never a write out of bounds.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "fuzz_input.h"
#include "judge/call_tensors.h"
#include "judge/worker_messages.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelarc;
  constexpr std::size_t kBuffer = 4096;
  static std::vector<std::byte> buffer(kBuffer);
  try {
    const auto message = nlohmann::json::parse(fuzz::text(data, size));
    if (!message.is_object()) return 0;
    if (message.contains("ranges")) {
      const auto copies = message.get<judge::message::Copy>().ranges;
      judge::check_inside(copies, kBuffer);
      for (const auto& copy : copies)
        std::copy_n(buffer.begin() + static_cast<std::ptrdiff_t>(copy.from), copy.bytes, buffer.begin() + static_cast<std::ptrdiff_t>(copy.to));
    }
    if (message.contains("layouts")) {
      const auto bind = message.at("layouts").get<judge::message::Bind>();
      const auto inputs = judge::message::layouts(bind.inputs);
      const auto outputs = judge::message::layouts(bind.outputs);
      const auto call = message.get<judge::message::Call>();
      const judge::CallTensors tensors(inputs, call.inputs, outputs, call.outputs, buffer.data(), kBuffer, {kDLCPU, 0});
      for (std::int32_t i = 0; i < tensors.output_count(); ++i) {
        auto* out = static_cast<std::byte*>(tensors.output_data(static_cast<std::size_t>(i)));
        std::fill_n(out, outputs[static_cast<std::size_t>(i)].bytes(), std::byte{0x5a});  // as the worker poisons them
      }
      (void)tensors.metadata_change();
    }
  } catch (const std::exception&) {
  }
  return 0;
}

// A streamed answer of either protocol, cut into pieces at arbitrary points: decoded, or refused with a ChatError or
// a protocol violation; the same bytes in one piece or many decode alike.
#include <stdexcept>

#include "fuzz_input.h"
#include "llm/protocol.h"

namespace {

std::string decode(const kernelarc::llm::detail::Protocol& protocol, const std::string& bytes, std::size_t piece) {
  try {
    const auto decoder = protocol.stream_decoder();
    for (std::size_t at = 0; at < bytes.size(); at += piece) decoder->feed(std::string_view(bytes).substr(at, piece));
    return "ok:" + decoder->finish().text;
  } catch (const std::exception& e) {
    return "error";
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelarc::llm::detail;
  if (size < 1) return 0;
  const std::size_t piece = 1 + data[0] % 17;
  const std::string bytes = kernelarc::fuzz::text(data + 1, size - 1);
  for (const auto& protocol : {make_openai_protocol(), make_anthropic_protocol()}) {
    if (decode(*protocol, bytes, piece) != decode(*protocol, bytes, bytes.size() + 1)) __builtin_trap();
    try {
      (void)protocol->parse_reply(bytes);
    } catch (const std::exception&) {
    }
  }
  return 0;
}

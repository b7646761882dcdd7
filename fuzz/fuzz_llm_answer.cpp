// A language model's answer, read against a base source: a candidate, knobs, a hypothesis, or a complaint; never a crash.
#include "fuzz_input.h"
#include "llm/response_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string base = "// base\n#include <x>\nint f() {\n  return 1;\n}\n\nint g() { return 2; }\n";
  const auto parsed = kernelarc::llm::parse_response(kernelarc::fuzz::text(data, size), base);
  if (parsed.usable() && !parsed.source && parsed.knobs.empty()) __builtin_trap();  // usable means a source or knobs
  if (parsed.hypothesis.size() > 203) __builtin_trap();                               // one line of 200 and "..."
  return 0;
}

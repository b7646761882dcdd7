// A solution.json given to `kernelarc eval` as the candidate: read, or refused with why.
#include "fuzz_input.h"
#include "task/solution_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)kernelarc::task::read_solution(kernelarc::fuzz::text(data, size));
  } catch (const kernelarc::task::SolutionError&) {
  }
  return 0;
}

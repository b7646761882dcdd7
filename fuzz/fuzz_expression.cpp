// Axis expressions and constraints ("rows * cols", "cols % 8 == 0"): parsed and evaluated, or refused.
#include <stdexcept>

#include "fuzz_input.h"
#include "task/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelarc;
  try {
    const auto expression = task::Expression::parse(fuzz::text(data, size));
    const task::Bindings values = {{"rows", 7}, {"cols", 1000}, {"n", 0}, {"big", 9.2e18}};
    (void)expression.variables();
    (void)expression.evaluate(values);
    (void)expression.evaluate_integer(values);
    (void)expression.evaluate_condition(values);
  } catch (const std::exception&) {
  }
  return 0;
}

#include "judge/output_check.h"

#include "judge/comparison.h"

namespace kernelarc::judge {

std::optional<Failure> check_outputs(const SharedBuffer& buffer, const Layout& layout, const task::Definition& definition,
                                     const task::ResolvedWorkload& resolved, const OutputBytes& reference,
                                     const task::Tolerance& tolerance, std::optional<std::byte> poison) {
  for (std::size_t i = 0; i < definition.outputs.size(); ++i) {
    const auto comparison = compare_output(definition.outputs[i].name, definition.outputs[i].dtype, resolved.output_shapes[i],
                                           output_data(buffer, layout, i), reference[i].data(), tolerance, poison);
    if (!comparison.passed) return Failure{Status::incorrect_numerical, comparison.reason};
  }
  return std::nullopt;
}

std::optional<Failure> check_second_call(const OutputBytes& first, const SharedBuffer& buffer, const Layout& layout,
                                         const task::Definition& definition, const task::ResolvedWorkload& resolved,
                                         const OutputBytes& reference, const task::Tolerance& tolerance) {
  const auto& outputs = definition.outputs;
  // Before the comparison: where a poison is a legal value, an unwritten element is told only by holding both.
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (auto unwritten = unwritten_in_both(outputs[i].name, outputs[i].dtype, resolved.output_shapes[i], first[i].data(), kPoisonFirst,
                                           output_data(buffer, layout, i), kPoisonSecond))
      return Failure{Status::incorrect_numerical, *unwritten};
  if (auto failure = check_outputs(buffer, layout, definition, resolved, reference, tolerance, kPoisonSecond)) return failure;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (auto difference = nondeterminism(outputs[i].name, outputs[i].dtype, resolved.output_shapes[i], first[i].data(),
                                         output_data(buffer, layout, i), tolerance))
      return Failure{Status::reward_hack, "nondeterministic: " + *difference};
  return std::nullopt;
}

}  // namespace kernelarc::judge

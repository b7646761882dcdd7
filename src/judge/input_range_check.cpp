#include "judge/input_range_check.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <string_view>

namespace kernelarc::judge {

namespace {

struct IntegerRange {
  std::int64_t low = 0;
  std::int64_t high = 0;  // exclusive
};

// The ranges of the "integers" profile (input_generator.cpp), which are the benchmark's.
IntegerRange benchmark_range(task::DType dtype) {
  if (dtype == task::DType::int8) return {-128, 128};
  if (dtype == task::DType::uint8) return {0, 256};
  return {-1024, 1024};
}

bool is_index_type(task::DType dtype) { return task::is_integral(dtype) && dtype != task::DType::boolean; }

// `name` as a whole word of `text` (identifier characters do not continue it on either side).
bool names_word(std::string_view text, std::string_view name) {
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !word_char(text[at - 1]);
    const bool ends = at + name.size() == text.size() || !word_char(text[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> integer_input_notes(const task::Definition& definition) {
  std::vector<std::string> notes;
  for (const auto& spec : definition.inputs) {
    if (!is_index_type(spec.dtype)) continue;
    const auto range = benchmark_range(spec.dtype);
    notes.push_back(fmt::format("input '{}' ({}) is drawn in [{}, {}) as SOL-ExecBench draws it{}", spec.name,
                                task::dtype_name(spec.dtype), range.low, range.high,
                                range.low < 0 ? ": negative values index from the end, as in PyTorch" : ""));
  }
  return notes;
}

std::vector<std::string> input_range_warnings(const task::Task& task) {
  std::vector<std::string> warnings;
  const auto& inputs = task.definition.inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!is_index_type(inputs[i].dtype)) continue;
    const auto range = benchmark_range(inputs[i].dtype);
    const std::int64_t reach = std::max(range.high, -range.low);  // rows an index needs, from the start or the end
    for (std::size_t j = 0; j < inputs.size(); ++j) {
      if (j == i || !inputs[j].shape || inputs[j].shape->empty() || !names_word(inputs[i].description, inputs[j].name)) continue;
      for (const auto& workload : task.workloads) {
        const auto source = workload.inputs.find(inputs[i].name);
        if (source != workload.inputs.end() && source->second.kind != task::InputKind::random) continue;
        const auto resolved = task::resolve_workload(task, workload);
        const std::int64_t extent = resolved.input_shapes[j].front();
        if (extent >= reach) continue;
        warnings.push_back(fmt::format("workload {}: input '{}' ({}) is drawn in [{}, {}) as SOL-ExecBench draws it, but '{}', "
                                       "which it indexes, has {} rows ({} = {}): the reference indexes out of range",
                                       workload.uuid, inputs[i].name, task::dtype_name(inputs[i].dtype), range.low, range.high,
                                       inputs[j].name, extent, inputs[j].shape->front(), extent));
      }
    }
  }
  return warnings;
}

}  // namespace kernelarc::judge

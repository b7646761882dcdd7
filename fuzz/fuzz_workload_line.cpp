// workload.jsonl lines against a fixed definition: loaded and resolved (shapes, expressions), or refused.
#include <stdexcept>

#include "fuzz_input.h"
#include "task/task.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelarc;
  const auto folder = fuzz::scratch() / "workload";
  if (!std::filesystem::exists(folder / "definition.json")) {
    std::filesystem::create_directories(folder);
    fuzz::write(folder / "definition.json", R"({"name": "t", "op_type": "softmax", "description": "d",
      "axes": {"rows": {"type": "var"}, "cols": {"type": "var"}, "size": {"type": "expr", "expression": "rows * cols"}},
      "constraints": ["cols >= 1"],
      "inputs": {"x": {"shape": ["rows", "cols"], "dtype": "float32"}, "eps": {"shape": null, "dtype": "float32"}},
      "outputs": {"y": {"shape": ["rows", "cols"], "dtype": "float32"}},
      "reference": "def run(x, eps):\n    return x\n"})");
  }
  fuzz::write(folder / "workload.jsonl", fuzz::text(data, size));
  try {
    const task::Task task = task::load_task(folder);
    for (const auto& workload : task.workloads) (void)task::resolve_workload(task, workload);
  } catch (const std::exception&) {
  }
  return 0;
}

// A task's definition.json, as written by anyone: it must be loaded or refused with a TaskError, never crash.
#include <stdexcept>

#include "fuzz_input.h"
#include "task/task.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelarc;
  const auto folder = fuzz::scratch() / "definition";
  std::filesystem::create_directories(folder);
  fuzz::write(folder / "definition.json", fuzz::text(data, size));
  fuzz::write(folder / "workload.jsonl", "{\"uuid\": \"w\", \"axes\": {\"n\": 4}}\n");
  try {
    const task::Task task = task::load_task(folder);
    for (const auto& workload : task.workloads) (void)task::resolve_workload(task, workload);
  } catch (const std::exception&) {
  }
  return 0;
}

#include "judge/worker.h"

#include <fmt/format.h>

#include <optional>

#include "judge/backend.h"
#include "judge/worker_channel.h"

namespace kernelarc::judge {

int run_worker(const std::string& device) {
  std::optional<WorkerChannel> channel;
  try {
    channel = WorkerChannel::open_standard_streams();
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc worker: {}\n", error.what());
    return 3;
  }
  const auto name = parse_device(device);
  const Backend* backend = find_backend(device);
  // The judge always names the worker's device in full ("cuda:0", never "cuda").
  if (!backend || name->text() != device) {
    fmt::print(stderr, "kernelarc worker: device \"{}\" is not supported by this build\n", device);
    return 2;
  }
  return backend->serve_worker(*channel, *name);
}

}  // namespace kernelarc::judge

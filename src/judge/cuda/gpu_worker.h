// `kernelarc worker --device cuda:N`: the CPU worker's protocol on one GPU. The shared buffer is the
// staging area; the worker keeps a device copy of it (one pooled allocation), moves ranges with
// "upload" and "download", and times calls on the device (CUPTI activity, or events around the call
// with the whole device synchronised when CUPTI is missing).
#pragma once

#include <string>

#include "judge/worker_channel.h"

namespace kernelarc::judge::cuda {

// `device` is "cuda:N". Returns the process exit code.
int run_gpu_worker(WorkerChannel& channel, const std::string& device);

}  // namespace kernelarc::judge::cuda

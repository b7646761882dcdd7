// `kernelarc worker --device cpu`: the candidate's memory is the shared buffer itself, and a sample is the host's
// steady clock around the call (the judge takes its own per-call cost off, measured with an empty entry point).
#pragma once

namespace kernelarc::judge {

class WorkerChannel;  // judge/worker_channel.h

// Serves the judge's requests until "quit" or end of input; the process exit code.
int serve_cpu_worker(WorkerChannel& channel);

}  // namespace kernelarc::judge

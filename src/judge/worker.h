// The worker process: loads untrusted candidate code and calls it on tensors the judge lays out.
//
// Protocol: one JSON object per line on stdin, one reply per line on the original stdout. The
// candidate's own stdout is sent to stderr so nothing it prints can break the protocol.
#pragma once

#include <string>

namespace kernelarc::judge {

inline constexpr int kWorkerProtocolVersion = 1;

// After each reply the worker's main thread spins this long waiting for the next request before it sleeps
// (waking a sleeping process would land tens of microseconds inside the timed round trip). That CPU is the
// worker's, not the candidate's. A worker that is never timed (a reference's) is started with
// KERNELARC_WORKER_SPIN_MS=0: its spinning would take a core from the candidate's timed calls on a small machine.
inline constexpr int kWorkerSpinMilliseconds = 20;

// Runs until "quit" or end of input; returns the process exit code.
int run_worker(const std::string& device);

}  // namespace kernelarc::judge

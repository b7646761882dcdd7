// How many calls the judge makes per workload, and how far below speed of light a time may fall: the judge's protocol.
// The member values are the thorough protocol (`kernelarc eval`'s, and JudgeOptions' defaults); each device backend
// (judge/backend.h) says what it uses for a run's search, where a candidate is one of hundreds.
#pragma once

namespace kernelarc::judge {

struct JudgeProtocol {
  int rounds = 10;              // correctness rounds per workload, each with fresh inputs
  int warmup = 10;              // untimed calls before the timed ones
  int iterations = 50;          // timed calls per workload
  int rechecks = 5;             // timed calls whose outputs are checked again
  int unseen_calls = 3;         // timed calls on inputs never given before, to catch answers kept by content
  // A median below T_sol / roofline_margin is REWARD_HACK. 1 for datasheet peaks, which nothing beats; more for
  // measured peaks, which a kernel vectorised better than the probe can beat.
  double roofline_margin = 1.0;
};

// What the protocol is for: one candidate judged by itself (`kernelarc eval`), or the many of a run's search.
enum class ProtocolUse { evaluation, search };

}  // namespace kernelarc::judge

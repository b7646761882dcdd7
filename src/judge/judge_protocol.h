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
  bool stricter_rounds = true;  // after the rounds, one more per stricter input regime that changes a workload's inputs
  // After each correctness call the inputs are read back and checked unchanged, and round 0 is called again with the
  // second poison (a race or an unwritten element shows there). A screening leaves both to the full judge: on a GPU
  // they move every input back and the outputs twice, most of a screening's time on the largest tasks.
  bool checks_each_call = true;
};

// What the protocol is for: one candidate judged by itself (`kernelarc eval`), the many of a run's search, or a
// screening (judge/screening.h: one correctness round and a few timed calls, to rank; it never decides).
enum class ProtocolUse { evaluation, search, screening };

}  // namespace kernelarc::judge

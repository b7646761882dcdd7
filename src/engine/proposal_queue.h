// The proposals in flight, in the order they will be judged: every agent keeps one. A proposal of a quick brain is
// ready when it is queued; an asynchronous brain (a language model) is asked on a thread of its own and its answer is
// collected when it comes, so many are asked at once while the judge works.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/agents.h"
#include "engine/brain.h"

namespace kernelarc::engine {

class ProposalQueue {
 public:
  struct Pending {
    Agent agent;  // as it was when it proposed (a plateau deals strategies again)
    std::size_t index;
    std::optional<Proposal> proposal;               // ready to judge
    ModelUsage usage;                               // what making it cost
    std::shared_ptr<Brain> brain;                   // an asynchronous brain still answering, with its answer to come
    std::future<std::optional<Proposal>> answer;
    std::future<void> asking;                       // the thread asking it
    std::shared_future<void> built;  // valid when the compile pool builds it
  };
  // An asynchronous brain's answer as it came: a proposal, or why there is none, and what it cost.
  struct Answer {
    std::optional<Proposal> proposal;
    std::string why;
    ModelUsage usage;
  };

  ProposalQueue() = default;
  ProposalQueue(const ProposalQueue&) = delete;
  ProposalQueue& operator=(const ProposalQueue&) = delete;
  // Stopped by an exception: the brains still answering stop soon, so the threads asking them end.
  ~ProposalQueue();

  bool empty() const { return pending_.empty(); }
  Pending& operator[](std::size_t position) { return pending_[position]; }
  // Whether agent `index` has a proposal in flight.
  bool holds_agent(std::size_t index) const { return held_by(index) > 0; }
  // How many proposals (or answers to come) the agent at `index` has in the queue.
  std::size_t held_by(std::size_t index) const;
  // Whether a proposal ready to judge has these knobs.
  bool holds(const Knobs& knobs) const;
  // The knobs of every proposal ready to judge.
  std::set<Knobs> knobs() const;

  // A proposal ready to judge, last in turn.
  void push(Pending ready);
  // Asks agent `agent`'s asynchronous brain on its own thread; the answer is collected by `collect`.
  void ask(const Agent& agent, std::size_t index, std::shared_ptr<Brain> brain, ProposalContext context);
  // The first in turn order that is ready to judge or whose brain has answered, waiting for one when none is; nullopt
  // when nothing is in flight.
  std::optional<std::size_t> wait_for_next();
  // The answer of the brain at `position` (wait_for_next said it came).
  Answer collect(std::size_t position);
  // Takes the proposal at `position` out of the queue.
  Pending take(std::size_t position);

  // Stops the answers still in flight and empties the queue; what each agent's proposals in flight cost, by agent index.
  struct Spent {
    std::size_t index;
    std::string agent;
    ModelUsage usage;
  };
  std::vector<Spent> discard();

 private:
  // Declared before `pending_`, so they outlive it: a thread still asking a brain notifies them as it ends.
  std::mutex answers_mutex_;  // with `answered_`: an asynchronous brain has answered
  std::condition_variable answered_;
  std::uint64_t answers_ = 0;
  std::deque<Pending> pending_;
};

}  // namespace kernelarc::engine

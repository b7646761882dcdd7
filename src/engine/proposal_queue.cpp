#include "engine/proposal_queue.h"

#include <algorithm>
#include <chrono>
#include <exception>

namespace kernelarc::engine {

ProposalQueue::~ProposalQueue() {
  for (auto& p : pending_)
    if (p.brain) p.brain->cancel();
}

std::size_t ProposalQueue::held_by(std::size_t index) const {
  return static_cast<std::size_t>(std::count_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.index == index; }));
}

bool ProposalQueue::holds(const Knobs& knobs) const {
  return std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.proposal && p.proposal->knobs == knobs; });
}

std::set<Knobs> ProposalQueue::knobs() const {
  std::set<Knobs> knobs;
  for (const auto& p : pending_)
    if (p.proposal) knobs.insert(p.proposal->knobs);
  return knobs;
}

void ProposalQueue::push(Pending ready) { pending_.push_back(std::move(ready)); }

void ProposalQueue::ask(const Agent& agent, std::size_t index, std::shared_ptr<Brain> brain, ProposalContext context) {
  Pending next{agent, index, std::nullopt, {}, std::move(brain), {}, {}, {}};
  std::promise<std::optional<Proposal>> promise;
  next.answer = promise.get_future();
  next.asking = std::async(std::launch::async, [queue = this, brain = next.brain, context = std::move(context),
                                                promise = std::move(promise)]() mutable {
    try {
      promise.set_value(brain->propose(context));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    {
      std::lock_guard lock(queue->answers_mutex_);
      ++queue->answers_;
    }
    queue->answered_.notify_all();
  });
  pending_.push_back(std::move(next));
}

std::optional<std::size_t> ProposalQueue::wait_for_next() {
  for (;;) {
    std::uint64_t seen = 0;
    {
      std::lock_guard lock(answers_mutex_);
      seen = answers_;
    }
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      auto& p = pending_[i];
      if (p.proposal) return i;
      if (p.answer.valid() && p.answer.wait_for(std::chrono::seconds(0)) == std::future_status::ready) return i;
    }
    if (pending_.empty()) return std::nullopt;
    std::unique_lock lock(answers_mutex_);
    answered_.wait_for(lock, std::chrono::milliseconds(100), [&] { return answers_ != seen; });
  }
}

ProposalQueue::Answer ProposalQueue::collect(std::size_t position) {
  auto& p = pending_[position];
  p.asking.wait();
  Answer answer;
  try {
    answer.proposal = p.answer.get();
  } catch (const std::exception& e) {
    answer.why = e.what();
  }
  answer.usage = p.brain->take_usage();
  if (!answer.proposal && answer.why.empty()) answer.why = p.brain->why_not();
  return answer;
}

ProposalQueue::Pending ProposalQueue::take(std::size_t position) {
  Pending taken = std::move(pending_[position]);
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(position));
  return taken;
}

std::vector<ProposalQueue::Spent> ProposalQueue::discard() {
  for (auto& p : pending_)
    if (p.brain && !p.proposal) p.brain->cancel();
  std::vector<Spent> spent;
  for (auto& p : pending_) {
    if (!p.brain) continue;
    if (p.asking.valid()) p.asking.wait();
    ModelUsage usage = p.usage;
    if (!p.proposal) usage += p.brain->take_usage();
    if (usage.empty()) continue;
    spent.push_back({p.index, p.agent.name, usage});
  }
  pending_.clear();
  return spent;
}

}  // namespace kernelarc::engine

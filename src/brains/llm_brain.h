// An agent whose brain is a language model. Each proposal is one conversation: the strategy's system prompt, then the
// task, the incumbent's source, times and knobs, the board's conclusions and the agent's last feedback; an answer
// without a usable candidate gets a precise complaint back, a bounded number of times. What the model cost (requests,
// failures, tokens, money) is kept for the run to record.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "engine/brain.h"
#include "llm/chat.h"
#include "llm/prompt_library.h"
#include "llm/team_config.h"
#include "task/task.h"

namespace kernelarc::brains {

class LlmBrain : public engine::Brain {
 public:
  // `brief` holds the task's side of the prompt (name, description, language, ABI, tolerance, reference, device,
  // roofline); the rest is filled from each proposal's context.
  LlmBrain(const task::Template& tmpl, std::string strategy, std::shared_ptr<llm::ChatClient> client,
           std::shared_ptr<const llm::PromptLibrary> prompts, llm::PromptInputs brief, int max_complaints);

  std::optional<engine::Proposal> propose(const engine::ProposalContext& context) override;
  std::string why_not() const override;
  bool asynchronous() const override { return true; }
  void cancel() override { cancelled_ = true; }
  engine::ModelUsage take_usage() override;

 private:
  // Reads an answer into a proposal from `context.base`, or says what is wrong with it.
  std::optional<engine::Proposal> proposal_from(const std::string& answer, const engine::ProposalContext& context, std::string& complaint) const;
  void spend(const engine::ModelUsage& usage);

  const task::Template& template_;
  std::string strategy_;
  std::shared_ptr<llm::ChatClient> client_;
  std::shared_ptr<const llm::PromptLibrary> prompts_;
  llm::PromptInputs brief_;
  int max_complaints_;
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;  // guards the two below: the run reads them from its own thread
  engine::ModelUsage unreported_;
  std::string why_not_ = "no proposal asked yet";
};

// The task's side of every prompt: what it computes, in which language and ABI, within which tolerance, on what device.
llm::PromptInputs task_brief(const task::Task& task, const task::Template& tmpl, const std::string& device_facts);

// The factory for `kernelarc run --brain llm`: one client per endpoint, shared by the agents whose strategy uses it.
engine::BrainFactory llm_brain_factory(const llm::TeamConfig& config, const task::Task& task, const std::string& device_facts);

}  // namespace kernelarc::brains

#include "brains/llm_brain.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "common/units.h"
#include "judge/abi_header.h"
#include "judge/build_cache.h"
#include "llm/response_parser.h"

namespace kernelarc::brains {

namespace {

std::string knob_lines(const task::Template& tmpl, const engine::Knobs& base) {
  std::string text;
  for (const auto& knob : tmpl.knobs) {
    std::string values;
    for (const auto v : knob.values) values += fmt::format("{}{}", values.empty() ? "" : ", ", v);
    const auto current = base.find(knob.name);
    text += fmt::format("{} = {} (values tried by the search: {}; strategy {}){}\n", knob.name,
                        current == base.end() ? std::string("unset") : std::to_string(current->second), values, knob.strategy,
                        knob.description.empty() ? "" : ": " + knob.description);
  }
  for (const auto& constraint : tmpl.constraints) text += "constraint: " + constraint.text() + "\n";
  return text.empty() ? "(none)" : text;
}

std::string workload_table(const std::vector<engine::WorkloadTime>& times) {
  if (times.empty()) return "(the incumbent's times per workload are not known in this process)";
  std::string text = "| workload | axes | incumbent us | T_sol us | incumbent / T_sol |\n|---|---|---|---|---|\n";
  for (const auto& t : times)
    text += fmt::format("| {} | {} | {:.2f} | {} | {} |\n", t.uuid, t.axes, t.median_ns / 1e3, t.sol_ns > 0 ? fmt::format("{:.3f}", t.sol_ns / 1e3) : "-",
                        t.sol_ns > 0 ? fmt::format("{:.1f}x", t.median_ns / t.sol_ns) : "-");
  return text;
}

std::string board_line(const engine::Conclusion& c) {
  return fmt::format("[{}] {}: {} ({}): {}", c.strategy.empty() ? "start" : c.strategy, c.change, c.outcome,
                     c.outcome.rfind("rejected", 0) == 0 ? "not timed" : common::effect_ratio(c.effect), c.lesson);
}

}  // namespace

LlmBrain::LlmBrain(const task::Template& tmpl, std::string strategy, std::shared_ptr<llm::ChatClient> client,
                   std::shared_ptr<const llm::PromptLibrary> prompts, llm::PromptInputs brief, int max_complaints)
    : template_(tmpl), strategy_(std::move(strategy)), client_(std::move(client)), prompts_(std::move(prompts)), brief_(std::move(brief)),
      max_complaints_(max_complaints) {}

std::string LlmBrain::why_not() const {
  std::lock_guard lock(mutex_);
  return why_not_;
}

engine::ModelUsage LlmBrain::take_usage() {
  std::lock_guard lock(mutex_);
  return std::exchange(unreported_, {});
}

void LlmBrain::spend(const engine::ModelUsage& usage) {
  std::lock_guard lock(mutex_);
  unreported_ += usage;
}

std::optional<engine::Proposal> LlmBrain::propose(const engine::ProposalContext& context) {
  llm::PromptInputs inputs = brief_;
  inputs.strategy = strategy_;
  inputs.base_source = context.base_source;
  inputs.base_knobs = knob_lines(template_, context.base);
  inputs.workloads = workload_table(context.base_times);
  for (const auto& c : context.evidence) inputs.board.push_back(board_line(c));
  inputs.feedback = context.feedback;

  llm::ChatRequest request;
  request.system = prompts_->system(strategy_);
  request.messages.push_back({"user", prompts_->proposal(inputs)});
  const auto& endpoint = client_->endpoint();
  std::string why;
  for (int complaints = 0;; ++complaints) {
    llm::ChatReply reply;
    try {
      reply = client_->complete(request, cancelled_);
    } catch (const llm::ChatError& e) {
      spend({e.attempts, e.attempts, 0, 0, 0});
      why = fmt::format("{} ({}): {}", endpoint.name, endpoint.model, e.what());
      break;
    }
    spend({reply.attempts, reply.attempts - 1, reply.tokens_in, reply.tokens_out, llm::cost_usd(endpoint, reply.tokens_in, reply.tokens_out)});
    std::string complaint;
    if (auto proposal = proposal_from(reply.text, context, complaint)) return proposal;
    if (complaints >= max_complaints_) {
      why = fmt::format("{} answers without a usable candidate; the last: {}", complaints + 1, complaint);
      break;
    }
    request.messages.push_back({"assistant", reply.text});
    request.messages.push_back({"user", prompts_->complaint(complaint)});
  }
  std::lock_guard lock(mutex_);
  why_not_ = why;
  return std::nullopt;
}

std::optional<engine::Proposal> LlmBrain::proposal_from(const std::string& answer, const engine::ProposalContext& context,
                                                        std::string& complaint) const {
  const llm::ParsedResponse parsed = llm::parse_response(answer, context.base_source);
  if (!parsed.usable()) {
    complaint = parsed.complaint;
    return std::nullopt;
  }
  engine::Knobs knobs = context.base;
  for (const auto& [name, value] : parsed.knobs) {
    if (!knobs.count(name) || name == engine::kSourceKnob) {
      std::string known;
      for (const auto& knob : template_.knobs) known += (known.empty() ? "" : ", ") + knob.name;
      complaint = fmt::format("\"{}\" is not a knob of the incumbent (its knobs: {}); hard-code other choices in the source instead",
                              name, known.empty() ? "none" : known);
      return std::nullopt;
    }
    knobs[name] = value;
  }
  engine::Proposal proposal{knobs, parsed.hypothesis, std::nullopt};
  if (parsed.source && *parsed.source != context.base_source) {
    proposal.knobs.erase(engine::kSourceKnob);  // the run names the new source
    proposal.source = *parsed.source;
    return proposal;
  }
  if (knobs == context.base) {
    complaint = "that is the incumbent itself: the same source and the same knob values; propose one change";
    return std::nullopt;
  }
  return proposal;
}

llm::PromptInputs task_brief(const task::Task& task, const task::Template& tmpl, const std::string& device_facts) {
  const auto& d = task.definition;
  llm::PromptInputs brief;
  brief.task_name = d.name;
  brief.op_type = d.op_type;
  brief.description = d.description;
  brief.language = tmpl.device == "cuda" ? "CUDA C++ for the GPU" : "C++20 for the CPU";
  brief.abi = fmt::format("The candidate is the incumbent's kind of source ({}): keep its entry point and signature. It includes this header:\n```cpp\n{}\n```",
                          tmpl.form == task::TemplateForm::kernel ? "kernel-only: __global__ kernels, launched by the judge with the template's geometry"
                                                                  : "a full candidate with its entry point",
                          judge::candidate_abi_header());
  if (tmpl.device == "cuda")
    brief.abi += "\nA CUDA source may also `#include <kernelarc/device.cuh>`, device code the templates share (namespace kernelarc::device, "
                 "take names with using-declarations): Pack<V> (V bf16 in one 2*V-byte load or store), elements<V>(pack), "
                 "shuffle_xor(v, mask), warp_sum<kWidth>(v), warp_max<kWidth>(v), aligned_to<kBytes>(pointers...) (all of them aligned).";
  std::map<std::string, int> seen;
  for (const auto& w : task.workloads)
    ++seen[fmt::format("atol {:g}, rtol {:g}, at least {:g}% of the elements within them", w.tolerance.max_atol, w.tolerance.max_rtol,
                       100 * w.tolerance.required_matched_ratio)];
  for (const auto& [text, count] : seen) brief.tolerance += (brief.tolerance.empty() ? "" : "; ") + text;
  brief.reference = d.reference;
  brief.device = device_facts;
  brief.roofline = fmt::format("T_sol per workload is the datasheet roofline: the larger of flops ({}) at the {} peak and bytes ({}) at the memory "
                               "bandwidth. The table below shows how far the incumbent is from it.",
                               d.roofline.flops ? d.roofline.flops->text() : "none", d.roofline.math,
                               d.roofline.bytes ? d.roofline.bytes->text() : "every input and output once");
  return brief;
}

engine::BrainFactory llm_brain_factory(const llm::TeamConfig& config, const task::Task& task, const std::string& device_facts) {
  auto prompts = std::make_shared<const llm::PromptLibrary>(llm::PromptLibrary::default_directory());
  std::map<std::string, std::shared_ptr<llm::ChatClient>> clients;  // by endpoint name: one limit per endpoint
  for (const auto& [name, endpoint] : config.endpoints) clients[name] = llm::make_client(endpoint);
  return [config, clients, prompts, &task, device_facts](const task::Template& tmpl, const std::string& strategy, std::uint64_t) {
    const auto& endpoint = config.endpoint_for(strategy);
    return std::make_unique<LlmBrain>(tmpl, strategy, clients.at(endpoint.name), prompts, task_brief(task, tmpl, device_facts), config.max_complaints);
  };
}

}  // namespace kernelarc::brains

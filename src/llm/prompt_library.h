// The prompts an LLM agent sends, rendered from template files (prompts/ in the source tree, or the directory named
// by KERNELARC_PROMPTS_DIR): system.md, proposal.md, complaint.md and strategies/<strategy>.md. A template's
// placeholders are {{name}}; an unknown placeholder in a template is an error, not an empty string.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernelarc::llm {

class PromptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Replaces every {{name}} in `text` by values.at(name); throws PromptError naming an unknown placeholder.
std::string render_template(const std::string& text, const std::map<std::string, std::string>& values);

// What the proposal prompt says; the brain fills it, the library renders it.
struct PromptInputs {
  std::string task_name, op_type, description;
  std::string language;          // "C++ (CPU)" or "CUDA"
  std::string abi;               // the candidate ABI: the entry point's signature and what it may assume
  std::string tolerance;         // "atol 1e-3, rtol 1e-3" and the like
  std::string reference;         // the reference implementation's source
  std::string device;            // the device's facts: name, SMs or cores, memory, measured ceilings
  std::string roofline;          // what bounds the task and T_sol per workload
  std::string workloads;         // a table: workload, axes, the incumbent's time, T_sol, ratio
  std::string base_source;       // the source to improve (knob #defines not inlined)
  std::string base_knobs;        // its knob values and the knobs it declares, one per line
  std::string strategy;          // "memory", "precision", ...
  std::vector<std::string> board;  // conclusions relevant to this agent, most relevant first, one line each
  std::string feedback;          // what happened to this agent's last candidate; empty for its first
  std::size_t board_budget_chars = 4000;   // the board lines kept, in order, while they fit
  std::size_t feedback_budget_chars = 3000;  // longer feedback is cut, keeping its start and its end
};

class PromptLibrary {
 public:
  // Reads every template once; throws PromptError naming a missing file.
  explicit PromptLibrary(const std::filesystem::path& directory);
  // The directory: $KERNELARC_PROMPTS_DIR, else the source tree's prompts/ compiled in.
  static std::filesystem::path default_directory();

  std::string system(const std::string& strategy) const;   // system.md with the strategy's guidance
  std::string proposal(const PromptInputs& inputs) const;   // proposal.md rendered
  std::string complaint(const std::string& what_was_wrong) const;  // complaint.md rendered

 private:
  std::string system_, proposal_, complaint_;
  std::map<std::string, std::string> strategies_;
};

}  // namespace kernelarc::llm

#include "llm/prompt_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace kernelarc::llm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string> kStrategies = {"memory", "precision", "fusion", "tiling", "pipelining", "algorithmic"};

std::string read_file(const fs::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

template <class Action>
std::string prompt_error(Action action) {
  try {
    action();
  } catch (const PromptError& error) {
    return error.what();
  }
  return "(no error)";
}

// A prompt directory of small templates, so a test can assert the exact rendering.
class SmallPrompts : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("kernelarc-prompts-" + std::to_string(::getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    write_file(directory_ / "system.md", "You own {{strategy}}.\n{{strategy_guidance}}\nEnd.\n");
    write_file(directory_ / "proposal.md", "[{{board}}]\n[{{feedback}}]\n[{{base_knobs}}]\n");
    write_file(directory_ / "complaint.md", "Wrong: {{what_was_wrong}}\n");
    for (const std::string& strategy : kStrategies) write_file(directory_ / "strategies" / (strategy + ".md"), "Do " + strategy + ".\n\n");
  }
  void TearDown() override { fs::remove_all(directory_); }

  fs::path directory_;
};

TEST(RenderTemplate, ReplacesEveryPlaceholder) {
  EXPECT_EQ(render_template("{{a}} and {{b_c}}, {{a}} again", {{"a", "x"}, {"b_c", "y"}}), "x and y, x again");
}

TEST(RenderTemplate, InsertsValuesLiterally) {
  EXPECT_EQ(render_template("<{{code}}>", {{"code", "dim3 grid{{1}}; {{code}}"}, {"other", "no"}}),
            "<dim3 grid{{1}}; {{code}}>");
}

TEST(RenderTemplate, BracesThatAreNotPlaceholdersStayText) {
  EXPECT_EQ(render_template("{{ spaced }} {{Upper}} {{}} {{{x}}} {x}", {{"x", "X"}}), "{{ spaced }} {{Upper}} {{}} {X} {x}");
}

TEST(RenderTemplate, AnUnknownPlaceholderIsAnError) {
  EXPECT_EQ(prompt_error([] { render_template("a {{known}} {{unknown}}", {{"known", "k"}}); }),
            "unknown placeholder {{unknown}}");
}

TEST_F(SmallPrompts, SystemPromptCarriesTheStrategyAndItsGuidance) {
  const PromptLibrary prompts(directory_);
  EXPECT_EQ(prompts.system("fusion"), "You own fusion.\nDo fusion.\nEnd.\n");
  EXPECT_EQ(prompt_error([&] { prompts.system("magic"); }),
            "unknown strategy \"magic\": the strategies are memory, precision, fusion, tiling, pipelining, algorithmic");
}

TEST_F(SmallPrompts, EmptyBoardFeedbackAndKnobsSaySo) {
  const PromptLibrary prompts(directory_);
  EXPECT_EQ(prompts.proposal(PromptInputs{}), "[(empty)]\n[(this is your first proposal)]\n[(none)]\n");
}

TEST_F(SmallPrompts, BoardKeepsLinesInOrderWhileTheyFit) {
  const PromptLibrary prompts(directory_);
  PromptInputs inputs;
  inputs.board = {"12345678", "abcdefgh", "tiny", "ABCDEFGH"};  // 10 characters a bullet, 11 with its newline
  inputs.board_budget_chars = 21;
  inputs.base_knobs = "VEC = 4";
  inputs.feedback = "promoted";
  EXPECT_EQ(prompts.proposal(inputs), "[- 12345678\n- abcdefgh\n(2 more not shown)]\n[promoted]\n[VEC = 4]\n");
  inputs.board_budget_chars = 20;  // the second bullet no longer fits, and later shorter lines are not taken instead
  EXPECT_EQ(prompts.proposal(inputs), "[- 12345678\n(3 more not shown)]\n[promoted]\n[VEC = 4]\n");
  inputs.board_budget_chars = 5;
  EXPECT_EQ(prompts.proposal(inputs), "[(4 more not shown)]\n[promoted]\n[VEC = 4]\n");
  inputs.board_budget_chars = 1000;
  EXPECT_EQ(prompts.proposal(inputs), "[- 12345678\n- abcdefgh\n- tiny\n- ABCDEFGH]\n[promoted]\n[VEC = 4]\n");
}

TEST_F(SmallPrompts, LongFeedbackKeepsItsStartAndItsEnd) {
  const PromptLibrary prompts(directory_);
  PromptInputs inputs;
  inputs.feedback = std::string(50, 'a') + std::string(40, 'b') + std::string(10, 'c');  // 100 characters
  inputs.feedback_budget_chars = 30;
  EXPECT_EQ(prompts.proposal(inputs), "[(empty)]\n[" + std::string(20, 'a') + "\n[... 70 characters cut ...]\n" +
                                          std::string(10, 'c') + "]\n[(none)]\n");
  inputs.feedback_budget_chars = 100;
  EXPECT_EQ(prompts.proposal(inputs), "[(empty)]\n[" + inputs.feedback + "]\n[(none)]\n");
}

TEST_F(SmallPrompts, ComplaintCarriesWhatWasWrong) {
  EXPECT_EQ(PromptLibrary(directory_).complaint("no {{code}} block"), "Wrong: no {{code}} block\n");
}

TEST_F(SmallPrompts, AMissingTemplateIsNamed) {
  fs::remove(directory_ / "strategies" / "tiling.md");
  EXPECT_EQ(prompt_error([&] { PromptLibrary prompts(directory_); }),
            "prompt template " + (directory_ / "strategies" / "tiling.md").string() + " cannot be read");
}

TEST_F(SmallPrompts, ATemplateWithAnUnknownPlaceholderFailsWhenLoaded) {
  write_file(directory_ / "proposal.md", "{{board}} {{incumbent_source}}\n");
  EXPECT_EQ(prompt_error([&] { PromptLibrary prompts(directory_); }),
            "prompt template " + (directory_ / "proposal.md").string() + ": unknown placeholder {{incumbent_source}}");
  write_file(directory_ / "proposal.md", "{{board}}\n");
  write_file(directory_ / "complaint.md", "{{what_was_wrong}} {{strategy}}\n");
  EXPECT_EQ(prompt_error([&] { PromptLibrary prompts(directory_); }),
            "prompt template " + (directory_ / "complaint.md").string() + ": unknown placeholder {{strategy}}");
}

TEST(PromptLibrary, DefaultDirectoryIsTheSourceTreesUnlessTheEnvironmentSaysOtherwise) {
  ::unsetenv("KERNELARC_PROMPTS_DIR");
  EXPECT_EQ(PromptLibrary::default_directory(), fs::path(KERNELARC_PROMPTS));
  ::setenv("KERNELARC_PROMPTS_DIR", "/somewhere/else", 1);
  EXPECT_EQ(PromptLibrary::default_directory(), fs::path("/somewhere/else"));
  ::unsetenv("KERNELARC_PROMPTS_DIR");
}

PromptInputs ordinary_inputs(const std::string& strategy) {
  PromptInputs inputs;
  inputs.task_name = "softmax";
  inputs.op_type = "softmax";
  inputs.description = "Row-wise softmax of a float32 matrix.";
  inputs.language = "CUDA";
  inputs.abi = "extern \"C\" __global__ void softmax_rows(const float* x, float* y, int rows, int cols)";
  inputs.tolerance = "atol 1e-5, rtol 1e-5";
  inputs.reference = "y = exp(x - max(x)) / sum(exp(x - max(x)))";
  inputs.device = "NVIDIA H200: 132 SMs, 4.8 TB/s";
  inputs.roofline = "memory-bound: 8 bytes per element";
  inputs.workloads = "| workload | axes | incumbent us | T_sol us | ratio |\n| w1 | rows=4096 cols=4096 | 120.0 | 28.0 | 4.3x |";
  inputs.base_source = "__global__ void softmax_rows(const float* x, float* y, int rows, int cols) { /* ... */ }";
  inputs.base_knobs = "THREADS = 256";
  inputs.strategy = strategy;
  inputs.board = {"[memory] float4 loads: promoted (-31.0%): wide loads pay on long rows"};
  inputs.feedback = "rejected: INCORRECT_NUMERICAL on w1 (max abs error 3e-3)";
  return inputs;
}

TEST(RealPrompts, EveryStrategysSystemPromptRendersCompletely) {
  const PromptLibrary prompts(KERNELARC_PROMPTS);
  for (const std::string& strategy : kStrategies) {
    const std::string system = prompts.system(strategy);
    std::string guidance = read_file(fs::path(KERNELARC_PROMPTS) / "strategies" / (strategy + ".md"));
    guidance.erase(guidance.find_last_not_of('\n') + 1);
    EXPECT_THAT(system, HasSubstr("yours is **" + strategy + "**")) << strategy;
    EXPECT_THAT(system, HasSubstr(guidance)) << strategy;
    EXPECT_THAT(system, HasSubstr("Hypothesis:")) << strategy;
    EXPECT_THAT(system, HasSubstr("reward hacks")) << strategy;
    EXPECT_THAT(system, Not(HasSubstr("{{"))) << strategy;
    const std::size_t guidance_lines = std::count(guidance.begin(), guidance.end(), '\n') + 1;
    EXPECT_GE(guidance_lines, 3u) << strategy;
    EXPECT_LE(guidance_lines, 8u) << strategy;
  }
}

TEST(RealPrompts, ProposalCarriesEveryInputAndNoPlaceholder) {
  const PromptLibrary prompts(KERNELARC_PROMPTS);
  for (const std::string& strategy : kStrategies) {
    const PromptInputs inputs = ordinary_inputs(strategy);
    const std::string proposal = prompts.proposal(inputs);
    for (const std::string& part : {inputs.task_name, inputs.description, inputs.language, inputs.abi, inputs.tolerance,
                                    inputs.reference, inputs.device, inputs.roofline, inputs.workloads,
                                    inputs.base_source, inputs.base_knobs, "- " + inputs.board.front(), inputs.feedback,
                                    "**" + strategy + "**"})
      EXPECT_THAT(proposal, HasSubstr(part)) << strategy;
    EXPECT_THAT(proposal, Not(HasSubstr("{{"))) << strategy;
  }
}

TEST(RealPrompts, ProposalRespectsTheBudgets) {
  const PromptLibrary prompts(KERNELARC_PROMPTS);
  PromptInputs inputs = ordinary_inputs("memory");
  inputs.board.clear();
  for (int i = 0; i < 100; ++i) inputs.board.push_back("conclusion " + std::to_string(i) + std::string(80, '.'));
  inputs.feedback = std::string(10000, 'f');
  const std::string proposal = prompts.proposal(inputs);
  EXPECT_THAT(proposal, HasSubstr("- conclusion 0."));
  EXPECT_THAT(proposal, HasSubstr("- conclusion 40."));  // 41 bullets of 94 or 95 characters and their newlines: 3925
  EXPECT_THAT(proposal, Not(HasSubstr("- conclusion 41.")));
  EXPECT_THAT(proposal, HasSubstr("(59 more not shown)"));
  EXPECT_THAT(proposal, HasSubstr(std::string(2000, 'f') + "\n[... 7000 characters cut ...]\n" + std::string(1000, 'f') + "\n"));
  EXPECT_THAT(proposal, Not(HasSubstr(std::string(2001, 'f'))));
}

TEST(RealPrompts, ComplaintRestatesTheFormat) {
  const std::string complaint = PromptLibrary(KERNELARC_PROMPTS).complaint("The code block on line 3 is empty.");
  EXPECT_THAT(complaint, HasSubstr("The code block on line 3 is empty."));
  EXPECT_THAT(complaint, HasSubstr("Hypothesis:"));
  EXPECT_THAT(complaint, HasSubstr("unified diff"));
  EXPECT_THAT(complaint, HasSubstr("Knobs:"));
  EXPECT_THAT(complaint, Not(HasSubstr("{{")));
}

}  // namespace
}  // namespace kernelarc::llm

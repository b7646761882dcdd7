// Usage errors as a newcomer meets them (issue 27): the exact message of each, exit code 2, a "did you mean" for a
// mistyped option, command, help topic or configuration key; every option settable from the environment and from
// the configuration file, the command line first; `kernelarc help TOPIC`; shell completion.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/subprocess.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

common::CommandResult kernelarc(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), KERNELARC_BINARY);
  return common::run_command(arguments, std::chrono::seconds(60));
}

struct UsageCase {
  std::vector<std::string> arguments;
  std::string message;  // the whole output
};

class UsageErrorTest : public ::testing::TestWithParam<UsageCase> {};

TEST_P(UsageErrorTest, SaysWhatIsWrongInPlainWordsAndExits2) {
  const auto result = kernelarc(GetParam().arguments);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_EQ(result.output, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, UsageErrorTest,
    ::testing::Values(
        UsageCase{{"run", "softmax", "--budget", "0"}, "kernelarc run: --budget must be at least 1 (got 0)\n  kernelarc help run says more\n"},
        UsageCase{{"run", "softmax", "--specialise", "0"},
                  "kernelarc run: --specialise must be at least 1 (got 0)\n  kernelarc help run says more\n"},
        UsageCase{{"run", "softmax", "--specialise", "17"},
                  "kernelarc run: --specialise must be at most 16 (got 17)\n  kernelarc help run says more\n"},
        UsageCase{{"run", "softmax", "--budget", "many"},
                  "kernelarc run: --budget must be a whole number (got \"many\")\n  kernelarc help run says more\n"},
        UsageCase{{"run", "softmax", "--budget", "99999999999999999999"},
                  "kernelarc run: --budget must be at most 2147483647 (got 99999999999999999999)\n  kernelarc help run says more\n"},
        UsageCase{{"run", "softmax", "--devcie", "cpu"},
                  "kernelarc run: unknown option --devcie (did you mean --device?)\n  kernelarc help run lists the options\n"},
        UsageCase{{"eval", "softmax", "--iteratoins=3"},
                  "kernelarc eval: unknown option --iteratoins (did you mean --iterations?)\n  kernelarc help eval lists the options\n"},
        UsageCase{{"run", "softmax", "--zzzzzz"}, "kernelarc run: unknown option --zzzzzz\n  kernelarc help run lists the options\n"},
        UsageCase{{"runn", "softmax"},
                  "kernelarc: unknown command \"runn\" (did you mean run?)\n  the commands: run, runs, eval, sweep, tasks, import, export, board, "
                  "report, serve, calibrate, help, completion (kernelarc help COMMAND says more)\n"},
        UsageCase{{"--devcie", "cpu", "run"},
                  "kernelarc: unknown option --devcie (did you mean --device?); a command's options go after it (kernelarc COMMAND "
                  "--device...)\n  kernelarc help lists the commands\n"},
        UsageCase{{"run", "softmax", "--brain", "oracle"},
                  "kernelarc run: --brain must be one of search, random, llm (got \"oracle\")\n  kernelarc help run says more\n"},
        UsageCase{{"eval", "softmax", "--reference", "natve"},
                  "kernelarc eval: --reference must be one of auto, native, python (got \"natve\") (did you mean native?)\n"
                  "  kernelarc help eval says more\n"},
        UsageCase{{"eval", "softmax", "--device", "gpu"},
                  "kernelarc eval: --device must be cpu or cuda:N, N the GPU's number (got \"gpu\")\n  kernelarc help eval says more\n"},
        UsageCase{{"run", "softmax", "--seed", "x"}, "kernelarc run: --seed must be a whole number (got \"x\")\n  kernelarc help run says more\n"},
        UsageCase{{"run", "softmax", "--plateau-gain", "-0.5"},
                  "kernelarc run: --plateau-gain must be at least 0 (got -0.5)\n  kernelarc help run says more\n"},
        UsageCase{{"export", "--run", "0"}, "kernelarc export: --run must be at least 1 (got 0)\n  kernelarc help export says more\n"},
        UsageCase{{"export"}, "kernelarc export: --run is required\n  kernelarc help export says more\n"},
        UsageCase{{"eval"},
                  "kernelarc eval: give a TASK: a task directory or the name of a built-in task (kernelarc tasks lists them)\n"
                  "  kernelarc help eval says more\n"},
        UsageCase{{"run"}, "kernelarc run: TASK or --resume RUN_ID is required\n  kernelarc help run says more\n"},
        UsageCase{{"eval", "softmax", "a.cpp", "extra"}, "kernelarc eval: unexpected argument extra\n  kernelarc help eval says more\n"},
        UsageCase{{},
                  "kernelarc: give a command: run, runs, eval, sweep, tasks, import, export, board, report, serve, calibrate, help, completion\n"
                  "  kernelarc help says more\n"},
        UsageCase{{"help", "verdicts"},
                  "kernelarc help: no command or topic \"verdicts\" (did you mean verdict?)\n  commands: run, runs, eval, sweep, tasks, import, "
                  "export, board, report, serve, calibrate, help, completion\n  topics: config, environment, exit-codes, verdict\n"},
        UsageCase{{"report"}, "kernelarc report: runs is required\n  kernelarc help report says more\n"},
        UsageCase{{"report", "0"}, "kernelarc report: runs must be at least 1 (got 0)\n  kernelarc help report says more\n"},
        UsageCase{{"serve", "--port", "70000"}, "kernelarc serve: --port must be at most 65535 (got 70000)\n  kernelarc help serve says more\n"},
        UsageCase{{"board", "--json", "--csv"}, "kernelarc board: --json excludes --csv\n  kernelarc help board says more\n"},
        UsageCase{{"completion", "fish"}, "kernelarc completion: shell must be one of bash, zsh (got \"fish\")\n  kernelarc help completion says more\n"},
        UsageCase{{"--config", "/nonexistent/kernelarc.json", "tasks"},
                  "kernelarc: the configuration file /nonexistent/kernelarc.json does not exist (given by --config)\n"}));

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kernelarc-config-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    unsetenv("KERNELARC_BUDGET");
    unsetenv("KERNELARC_CONFIG");
    fs::remove_all(dir_);
  }
  std::string write(const std::string& text) {
    const fs::path file = dir_ / ("config-" + std::to_string(files_++) + ".json");
    std::ofstream(file) << text;
    return file.string();
  }
  fs::path dir_;
  int files_ = 0;
};

TEST_F(ConfigFileTest, AnUnknownKeyNamesTheClosestOption) {
  const auto file = write(R"({"run": {"budgte": 3}})");
  const auto result = kernelarc({"--config", file, "run", "softmax"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "kernelarc run: " + file + ": \"run.budgte\" is not an option of kernelarc run (did you mean budget?)\n"
                           "  kernelarc help run says more\n");
  const auto top = write(R"({"devcie": "cpu"})");
  const auto second = kernelarc({"eval", "softmax", "--config", top});
  EXPECT_EQ(second.output, "kernelarc eval: " + top + ": \"devcie\" is neither an option nor a command (did you mean device?)\n"
                           "  kernelarc help eval says more\n");
}

TEST_F(ConfigFileTest, TheFileSetsOptionsTheEnvironmentOverridesItTheCommandLineOverridesBoth) {
  const auto file = write(R"({"device": "tpu", "run": {"budget": 0}})");
  ASSERT_EQ(setenv("KERNELARC_CONFIG", file.c_str(), 1), 0);
  // The file's values are checked like the command line's.
  auto result = kernelarc({"eval", "softmax", "--correctness-only"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "kernelarc eval: --device must be cpu or cuda:N, N the GPU's number (got \"tpu\")\n  kernelarc help eval says more\n");
  result = kernelarc({"run", "softmax", "--device", "cpu"});
  EXPECT_EQ(result.output, "kernelarc run: --budget must be at least 1 (got 0)\n  kernelarc help run says more\n");
  // The environment over the file: KERNELARC_BUDGET=-4 is what is complained about, not the file's 0.
  ASSERT_EQ(setenv("KERNELARC_BUDGET", "-4", 1), 0);
  result = kernelarc({"run", "softmax", "--device", "cpu"});
  EXPECT_EQ(result.output, "kernelarc run: --budget must be at least 1 (got -4)\n  kernelarc help run says more\n");
  // The command line over the environment.
  result = kernelarc({"run", "softmax", "--device", "cpu", "--budget", "-7"});
  EXPECT_EQ(result.output, "kernelarc run: --budget must be at least 1 (got -7)\n  kernelarc help run says more\n");
}

// A typo in a task file is an error naming the closest field, before anything is built: "helt_out" accepted silently
// made the held-out workloads visible.
TEST(TaskFileTest, AnUnknownFieldNamesTheClosestKnownOne) {
  const fs::path copy = fs::temp_directory_path() / ("kernelarc-typo-" + std::to_string(::getpid()));
  struct Typo {
    std::string from, to, message;
  };
  const std::vector<Typo> typos = {
      {"\"held_out\"", "\"helt_out\"",
       "kernelarc eval: " + (copy / "definition.json").string() + ": kernelarc.helt_out: unknown field (did you mean held_out?); the fields here "
       "are roofline, native_reference, templates, forbid, cflags, held_out\n"},
      {"\"strategy\"", "\"strategie\"",
       "kernelarc eval: " + (copy / "definition.json").string() + ": kernelarc.templates[0].knobs[0].strategie: unknown field (did you mean "
       "strategy?); the fields here are name, values, strategy, description, search\n"},
      {"\"op_type\"", "\"oop_type\"",
       "kernelarc eval: " + (copy / "definition.json").string() + ": oop_type: unknown field (did you mean op_type?); the fields here are name, "
       "op_type, description, hf_id, tags, axes, constraints, inputs, outputs, reference, custom_inputs_entrypoint, kernelarc\n"}};
  for (const auto& typo : typos) {
    fs::remove_all(copy);
    fs::copy(fs::path(KERNELARC_TASKS) / "softmax", copy, fs::copy_options::recursive);
    std::ifstream in(copy / "definition.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(text.find(typo.from), typo.from.size(), typo.to);
    std::ofstream(copy / "definition.json") << text;
    const auto result = kernelarc({"eval", copy.string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.output, typo.message);
  }
  fs::remove_all(copy);
}

TEST(TaskFileTest, AnUnknownKnobOrABrokenKnobConstraintIsRefusedBeforeAnythingIsBuilt) {
  auto result = kernelarc({"eval", "softmax", "--knob", "NOPE=1"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "kernelarc eval: --knob NOPE=1: template \"rows\" has no knob NOPE; its knobs are THREADS, ROWS_PER_STEP, VEC, "
                           "ONE_PASS, FAST_EXP, STORE_EXP, PREFETCH_LINES\n");
  result = kernelarc({"eval", "softmax", "--knob", "THREAD=2"});
  EXPECT_THAT(result.output, HasSubstr("has no knob THREAD (did you mean THREADS?)"));
  result = kernelarc({"eval", "softmax", "--knob", "ONE_PASS=1", "--knob", "STORE_EXP=1"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "kernelarc eval: the knobs ONE_PASS=1 STORE_EXP=1 break template \"rows\"'s constraint \"ONE_PASS * STORE_EXP == 0\"\n");
}

TEST(HelpTest, EveryTopicAndCommandHasAPage) {
  for (const char* topic : {"verdict", "environment", "config", "exit-codes", "run", "eval", "runs", "export", "report", "serve"}) {
    const auto result = kernelarc({"help", topic});
    EXPECT_EQ(result.exit_code, 0) << topic << ": " << result.output;
    EXPECT_GT(result.output.size(), 200u) << topic;
  }
  EXPECT_THAT(kernelarc({"help", "verdict"}).output, HasSubstr("T_sol     the speed-of-light time"));
  EXPECT_THAT(kernelarc({"help", "run"}).output, HasSubstr("--budget INT:>=1=64 (Env:KERNELARC_BUDGET)"));
  EXPECT_THAT(kernelarc({"help"}).output, HasSubstr("Topics: config, environment, exit-codes, verdict (kernelarc help TOPIC)"));
}

TEST(CompletionTest, BashCompletesCommandsOptionsAndTaskNames) {
  const std::string script = std::string("source <(\"") + KERNELARC_BINARY + "\" completion bash); complete() { :; }; "
                             "c() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _kernelarc; echo \"${COMPREPLY[*]}\"; }; "
                             "c kernelarc ru; c kernelarc run --bud; c kernelarc eval soft; c kernelarc help verd; c kernelarc rep; c kernelarc board --cs";
  const auto result = common::run_command({"bash", "-c", script}, std::chrono::seconds(60));
  EXPECT_EQ(result.output, "run runs\n--budget\nsoftmax softmax_bf16\nverdict\nreport\n--csv\n");
  const auto zsh = kernelarc({"completion", "zsh"});
  EXPECT_EQ(zsh.exit_code, 0);
  EXPECT_THAT(zsh.output, HasSubstr("#compdef kernelarc\n"));
  EXPECT_THAT(zsh.output, HasSubstr("bashcompinit"));
}

}  // namespace
}  // namespace kernelarc

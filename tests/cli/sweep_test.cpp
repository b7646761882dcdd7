// `kernelarc sweep` on the CPU, run as a user runs it: one row per configuration and workload, a deliberately wrong
// configuration marked wrong and dropped, constraints skipped and said, bad input refused with why (exit code 2); with
// --geometry, the judge's launches of known configurations on known workloads, nothing built.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/subprocess.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

// Stdout alone (the data), stderr kept in a file beside it for the failure's message.
// `environment`: variables that replace the test's own of the same name.
common::CommandResult sweep(const std::vector<std::string>& arguments, const fs::path& stderr_file, std::vector<std::string> environment = {}) {
  std::vector<std::string> argv{"sh", "-c", "\"$0\" sweep \"$@\" 2>\"$KERNELARC_SWEEP_TEST_STDERR\"", KERNELARC_BINARY};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  common::CommandOptions options;
  options.timeout = std::chrono::minutes(8);
  environment.push_back("KERNELARC_SWEEP_TEST_STDERR=" + stderr_file.string());
  const auto given = [&environment](const std::string& variable) {
    const auto name = variable.substr(0, variable.find('=') + 1);
    return std::any_of(environment.begin(), environment.end(), [&name](const std::string& v) { return v.starts_with(name); });
  };
  for (char** variable = environ; *variable; ++variable)
    if (!given(*variable)) environment.emplace_back(*variable);
  options.environment = environment;
  return common::run_command(argv, options);
}

common::CommandResult sweep_with_stderr(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), {KERNELARC_BINARY, "sweep"});
  return common::run_command(arguments, std::chrono::seconds(60));
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// softmax with its CPU template given one more knob, WRONG_SCALE: at 1 every output is doubled, a wrong answer.
fs::path softmax_with_a_wrong_knob(const fs::path& where) {
  const fs::path task = where / "softmax_wrong_knob";
  fs::remove_all(task);
  fs::copy(fs::path(KERNELARC_TASKS) / "softmax", task, fs::copy_options::recursive);
  json definition = json::parse(read_file(task / "definition.json"));
  for (auto& tmpl : definition["kernelarc"]["templates"])
    if (tmpl["name"] == "rows")
      tmpl["knobs"].push_back({{"name", "WRONG_SCALE"}, {"values", {0, 1}}, {"strategy", "precision"}, {"description", "doubles every output"}});
  std::ofstream(task / "definition.json") << definition.dump(2);
  std::string source = read_file(task / "softmax_rows.cpp");
  const auto last_return = source.rfind("  return 0;\n}");
  source.insert(last_return, "  if (WRONG_SCALE) for (std::int64_t i = 0; i < rows * cols; ++i) y[i] *= 2;\n");
  std::ofstream(task / "softmax_rows.cpp") << source;
  return task;
}

fs::path work_folder() {
  const fs::path folder = fs::path(testing::TempDir()) / "kernelarc-sweep-test";
  fs::create_directories(folder);
  return folder;
}

TEST(SweepTest, OneRowPerConfigurationAndWorkloadAndAWrongConfigurationIsDropped) {
  const fs::path work = work_folder();
  const fs::path task = softmax_with_a_wrong_knob(work);
  const auto result = sweep({task.string(), "--template", "rows", "--knob", "WRONG_SCALE=0,1", "--knob", "VEC=1,4", "--workloads",
                             "softmax-7x1000,softmax-1x4096", "--iterations", "3", "--seed", "5", "--json"},
                            work / "json.stderr");
  ASSERT_EQ(result.exit_code, 0) << result.output << read_file(work / "json.stderr");
  const json out = json::parse(result.output);
  EXPECT_EQ(out["template"], "rows");
  EXPECT_EQ(out["protocol"]["rounds"], 1);
  EXPECT_EQ(out["protocol"]["iterations"], 3);
  ASSERT_EQ(out["configurations"].size(), 4u);
  EXPECT_TRUE(out["skipped"].empty());
  for (const auto& configuration : out["configurations"]) {
    ASSERT_EQ(configuration["workloads"].size(), 2u) << configuration.dump();
    const auto& first = configuration["workloads"][0];
    const auto& second = configuration["workloads"][1];
    EXPECT_EQ(first["uuid"], "softmax-7x1000");
    EXPECT_EQ(second["uuid"], "softmax-1x4096");
    if (configuration["knobs"]["WRONG_SCALE"] == 1) {
      EXPECT_EQ(configuration["outcome"], "wrong") << configuration.dump();
      EXPECT_EQ(first["status"], "INCORRECT_NUMERICAL") << configuration.dump();
      EXPECT_TRUE(first["median_ns"].is_null());
      EXPECT_EQ(second["status"], "NOT_SCREENED");  // dropped at its first wrong answer
      EXPECT_TRUE(configuration["geomean_ns"].is_null());
    } else {
      EXPECT_EQ(configuration["outcome"], "measured") << configuration.dump();
      for (const auto& row : configuration["workloads"]) {
        EXPECT_EQ(row["status"], "PASSED") << configuration.dump();
        EXPECT_GT(row["median_ns"].get<double>(), 0);
        EXPECT_EQ(row["samples_ns"].size(), 3u);
      }
      EXPECT_GT(configuration["geomean_ns"].get<double>(), 0);
    }
  }
  EXPECT_EQ(out["configurations"][0]["label"], "WRONG_SCALE=0 VEC=1");
  EXPECT_EQ(out["configurations"][3]["label"], "WRONG_SCALE=1 VEC=4");
}

TEST(SweepTest, CsvHasARowPerConfigurationAndWorkloadAndOneForEachSkippedConfiguration) {
  const fs::path work = work_folder();
  const auto result = sweep({"softmax", "--template", "rows", "--knob", "ONE_PASS=0,1", "--knob", "STORE_EXP=0,1", "--workloads",
                             "softmax-7x1000", "--iterations", "2", "--seed", "5", "--csv"},
                            work / "csv.stderr");
  ASSERT_EQ(result.exit_code, 0) << result.output << read_file(work / "csv.stderr");
  std::vector<std::string> lines;
  std::istringstream text(result.output);
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << result.output;  // the header, three configurations, one skipped
  EXPECT_EQ(lines[0], "configuration,outcome,workload,held_out,status,median_ns,q1_ns,q3_ns,min_ns,sol_ns,reason");
  EXPECT_THAT(lines[1], HasSubstr("ONE_PASS=0 STORE_EXP=0,measured,softmax-7x1000,false,PASSED,"));
  EXPECT_EQ(lines[4], "ONE_PASS=1 STORE_EXP=1,skipped,,,SKIPPED,,,,,,\"breaks the constraint \"\"ONE_PASS * STORE_EXP == 0\"\"\"");
  EXPECT_THAT(read_file(work / "csv.stderr"), HasSubstr("skipped ONE_PASS=1 STORE_EXP=1: breaks the constraint \"ONE_PASS * STORE_EXP == 0\""));
}

// A sweep stopped by --time-limit still prints the configurations it screened and says how many it did not: a device
// script bounded in time keeps what it measured.
TEST(SweepTest, ATimeLimitEndsTheSweepWithWhatWasScreenedAndCountsTheRest) {
  const fs::path work = work_folder();
  const auto result = sweep({"softmax", "--template", "rows", "--knob", "VEC=1,4,8,16", "--knob", "THREADS=1,2", "--workloads",
                             "softmax-7x1000", "--iterations", "2", "--seed", "5", "--time-limit", "0s", "--json"},
                            work / "limit0.stderr");
  ASSERT_EQ(result.exit_code, 0) << result.output << read_file(work / "limit0.stderr");
  EXPECT_EQ(json::parse(result.output)["not_screened"], 0);  // 0: no limit
  ASSERT_EQ(json::parse(result.output)["configurations"].size(), 8u);

  // A limit of 1 s with an empty build cache: the eight builds before the first timing (the CPU's) outlast it.
  const fs::path empty_cache = work / "empty-cache";
  fs::remove_all(empty_cache);
  const auto limited = sweep({"softmax", "--template", "rows", "--knob", "VEC=1,4,8,16", "--knob", "THREADS=1,2", "--workloads",
                              "softmax-7x1000", "--iterations", "2", "--seed", "5", "--time-limit", "1", "--json"},
                             work / "limit1.stderr", {"KERNELARC_CACHE_DIR=" + empty_cache.string()});
  const json out = json::parse(limited.output);
  const auto screened = out["configurations"].size();
  EXPECT_LT(screened, 8u);
  EXPECT_EQ(screened + out["not_screened"].get<std::size_t>(), 8u);
  EXPECT_EQ(limited.exit_code, screened > 0 ? 0 : 1) << read_file(work / "limit1.stderr");
  EXPECT_THAT(read_file(work / "limit1.stderr"), HasSubstr("time limit reached: " + std::to_string(8 - screened) + " of 8 configurations not screened"));
}

// --geometry: the judge's launch of each configuration on each workload, nothing built. swiglu's vector_cuda launches
// grid [ceil_div(intermediate_size, BLOCK * ITEMS * vec), rows] and block [BLOCK]; with WAVES > 0 the rows are capped
// at floor(num_sms * WAVES / column_blocks), which is how num_sms reaches the launch.
TEST(SweepGeometryTest, EachConfigurationsLaunchOnEachWorkloadIsTheJudgesWithoutBuildingAnything) {
  const fs::path work = work_folder();
  const auto launch_of = [](const json& out, const std::string& label, const std::string& uuid) {
    for (const auto& configuration : out["templates"][0]["configurations"])
      if (configuration["label"] == label)
        for (const auto& row : configuration["workloads"])
          if (row["uuid"] == uuid) return row;
    return json();
  };
  const auto result = sweep({"swiglu", "--geometry", "--each-knob", "--num-sms", "64", "--json"}, work / "geometry.stderr");
  ASSERT_EQ(result.exit_code, 0) << result.output << read_file(work / "geometry.stderr");
  const json out = json::parse(result.output);
  EXPECT_EQ(out["task"], "swiglu");
  EXPECT_EQ(out["num_sms"], 64);
  EXPECT_EQ(out["refused"], 0);
  ASSERT_EQ(out["templates"].size(), 1u) << "swiglu's one kernel-only CUDA template";
  const json& tmpl = out["templates"][0];
  EXPECT_EQ(tmpl["template"], "vector_cuda");
  EXPECT_EQ(tmpl["source"], "swiglu_vector.cu");
  EXPECT_EQ(tmpl["kernel"], "swiglu_vector");
  // The default, then VEC 3 more values, BLOCK 4, ITEMS 2, WAVES 3, FP32_MATH 2, STREAMING 2, SMALL_VEC 3.
  ASSERT_EQ(tmpl["configurations"].size(), 20u);
  EXPECT_EQ(tmpl["configurations"][0]["label"], "default");
  EXPECT_EQ(tmpl["configurations"][1]["label"], "VEC=1");
  EXPECT_EQ(tmpl["configurations"][0]["knobs"]["BLOCK"], 64);
  EXPECT_TRUE(tmpl["skipped"].empty());
  const json by_default = launch_of(out, "default", "swiglu-1x14336");  // 14336 / (64 * 8) = 28 column blocks
  EXPECT_EQ(by_default["grid"], json({28, 1})) << by_default.dump();
  EXPECT_EQ(by_default["block"], json({64}));
  EXPECT_EQ(by_default["shared_bytes"], 0);
  EXPECT_EQ(by_default["arguments"], json({1, 14336})) << "every var axis, in the definition's order";
  EXPECT_EQ(launch_of(out, "BLOCK=256", "swiglu-16x8192")["grid"], json({4, 16}));  // 8192 / (256 * 8)
  EXPECT_EQ(launch_of(out, "WAVES=1", "swiglu-16x8192")["grid"], json({16, 4})) << "floor(64 SMs * 1 wave / 16 column blocks)";
  const auto at_132 = sweep({"swiglu", "--geometry", "--knob", "WAVES=1", "--workloads", "swiglu-16x8192", "--json"}, work / "geometry.stderr");
  ASSERT_EQ(at_132.exit_code, 0) << read_file(work / "geometry.stderr");
  EXPECT_EQ(launch_of(json::parse(at_132.output), "WAVES=1", "swiglu-16x8192")["grid"], json({16, 8})) << "num_sms 132 by default";

  const auto csv = sweep({"swiglu", "--geometry", "--workloads", "swiglu-1x14336", "--csv"}, work / "geometry.stderr");
  ASSERT_EQ(csv.exit_code, 0) << read_file(work / "geometry.stderr");
  EXPECT_EQ(csv.output,
            "template,configuration,knobs,workload,held_out,grid,block,shared_bytes,error\n"
            "vector_cuda,default,BLOCK=64 FP32_MATH=2 ITEMS=1 SMALL_VEC=0 STREAMING=2 VEC=8 WAVES=0,swiglu-1x14336,false,28;1,64,0,\n");
}

// A launch the judge would refuse is said with the judge's reason, and the exit code is 1.
TEST(SweepGeometryTest, ALaunchTheJudgeWouldRefuseIsSaidWithWhy) {
  const fs::path work = work_folder();
  const fs::path task = work / "swiglu_big_block";
  fs::remove_all(task);
  fs::copy(fs::path(KERNELARC_TASKS) / "swiglu", task, fs::copy_options::recursive);
  // Edited as text: a JSON library would sort the "let" bindings, whose order matters.
  std::string definition = read_file(task / "definition.json");
  const std::string block = "\"block\": [\n      \"BLOCK\"\n     ]";
  ASSERT_NE(definition.find(block), std::string::npos);
  definition.replace(definition.find(block), block.size(), "\"block\": [\"BLOCK * 2\"]");
  std::ofstream(task / "definition.json") << definition;
  const auto result = sweep({task.string(), "--geometry", "--knob", "BLOCK=512,1024", "--workloads", "swiglu-1x14336", "--json"},
                            work / "refused.stderr");
  EXPECT_EQ(result.exit_code, 1) << read_file(work / "refused.stderr");
  const json out = json::parse(result.output);
  EXPECT_EQ(out["refused"], 1);
  const json& configurations = out["templates"][0]["configurations"];
  ASSERT_EQ(configurations.size(), 2u);
  EXPECT_EQ(configurations[0]["workloads"][0]["block"], json({1024}));
  EXPECT_EQ(configurations[1]["workloads"][0]["error"], "\"BLOCK * 2\" is 2048 (expected 1 to 1024)");
  EXPECT_FALSE(configurations[1]["workloads"][0].contains("grid"));
}

// Every kernel-only CUDA template of every built-in task launches within CUDA's limits on every workload, at its default
// knobs and at each single-knob change its constraints allow, on an H100's and an H200-NVL's SM count alike.
TEST(SweepGeometryTest, EveryBuiltInKernelTemplateLaunchesOnEveryWorkloadAtEachSingleKnobChange) {
  const fs::path work = work_folder();
  for (const int num_sms : {132, 114}) {
    int launches = 0, templates = 0;
    for (const auto& entry : fs::directory_iterator(KERNELARC_TASKS)) {
      if (!fs::exists(entry.path() / "definition.json")) continue;
      const auto result = sweep({entry.path().string(), "--geometry", "--each-knob", "--num-sms", std::to_string(num_sms), "--json"},
                                work / "every.stderr");
      if (result.exit_code == 2 && read_file(work / "every.stderr").find("has no kernel-only CUDA template") != std::string::npos) continue;
      ASSERT_EQ(result.exit_code, 0) << entry.path() << read_file(work / "every.stderr") << result.output.substr(0, 2000);
      const json out = json::parse(result.output);
      EXPECT_EQ(out["refused"], 0) << entry.path();
      for (const auto& tmpl : out["templates"]) {
        ++templates;
        ASSERT_FALSE(tmpl["configurations"].empty()) << entry.path();
        EXPECT_EQ(tmpl["configurations"][0]["label"], "default") << entry.path() << ": the default knobs break a constraint";
        // The kernel the launch names is an extern "C" __global__ function of the source (found there by the driver).
        const std::string kernel = tmpl["kernel"];
        const std::regex declared("extern\\s+\"C\"\\s+__global__[^;{]*?\\b" + kernel + "\\s*\\(");
        EXPECT_TRUE(!kernel.empty() && std::regex_search(read_file(entry.path() / tmpl["source"].get<std::string>()), declared))
            << entry.path() << ": no extern \"C\" __global__ " << kernel << "( in " << tmpl["source"];
        for (const auto& configuration : tmpl["configurations"]) launches += static_cast<int>(configuration["workloads"].size());
      }
    }
    EXPECT_GE(templates, 10) << num_sms;
    EXPECT_GT(launches, 1000) << num_sms;
  }
}

struct BadSweep {
  std::vector<std::string> arguments;
  std::string message;  // the whole output
};
// The test's name in CTest: its arguments, not the struct's bytes (which hold addresses and change every run).
void PrintTo(const BadSweep& bad, std::ostream* out) {
  for (const auto& argument : bad.arguments) *out << argument << ' ';
}

class SweepUsageTest : public ::testing::TestWithParam<BadSweep> {};

TEST_P(SweepUsageTest, IsRefusedWithWhyBeforeAnythingIsBuilt) {
  const auto result = sweep_with_stderr(GetParam().arguments);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_EQ(result.output, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, SweepUsageTest,
    ::testing::Values(
        BadSweep{{"softmax", "--template", "rows", "--knob", "VECC=1,4"},
                 "kernelarc sweep: template \"rows\" has no knob VECC (did you mean VEC?); its knobs are THREADS, ROWS_PER_STEP, VEC, "
                 "ONE_PASS, FAST_EXP, STORE_EXP, PREFETCH_LINES\n"},
        BadSweep{{"softmax", "--template", "rows", "--knob", "VEC=1,3"},
                 "kernelarc sweep: knob VEC of template \"rows\" does not allow 3; its values are 1, 4, 8, 16\n"},
        BadSweep{{"softmax", "--template", "rows", "--knob", "VEC=1,four"}, "kernelarc sweep: --knob VEC=1,four: \"four\" is not an integer\n"},
        BadSweep{{"softmax", "--template", "rows", "--knob", "VEC"}, "kernelarc sweep: --knob expects NAME=VALUE[,VALUE...], got \"VEC\"\n"},
        BadSweep{{"softmax", "--template", "row"},
                 "kernelarc sweep: task softmax has no template named \"row\"; its templates are rows, rows_cuda, plain_cuda\n"},
        BadSweep{{"softmax", "--template", "rows_cuda"}, "kernelarc sweep: template \"rows_cuda\" is for cuda, not cpu (give --device)\n"},
        BadSweep{{"softmax", "--workloads", "softmax-0x0"}, "kernelarc sweep: task softmax has no workload \"softmax-0x0\"\n"},
        BadSweep{{"softmax", "--geometry", "--template", "rows"},
                 "kernelarc sweep: template \"rows\" is not a kernel-only CUDA template: the judge does not launch it\n"},
        BadSweep{{"softmax", "--geometry", "--each-knob", "--knob", "VEC=1"}, "kernelarc sweep: --knob excludes --each-knob\n  kernelarc help sweep says more\n"},
        BadSweep{{"softmax", "--time-limit", "5 minutes"},
                 "kernelarc sweep: --time-limit expects a duration such as 600, 90s, 15m or 2h, got \"5 minutes\"\n"},
        BadSweep{{"softmax", "--num-sms", "114"}, "kernelarc sweep: --num-sms requires --geometry\n  kernelarc help sweep says more\n"}));

}  // namespace
}  // namespace kernelarc

#include "task/task.h"
#include "task/task_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <filesystem>
#include <fstream>
#include <regex>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "task/safetensors.h"

namespace kernelarc::task {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using ::testing::HasSubstr;

const fs::path kTasks = fs::path(KERNELARC_TASKS);

// A small valid task: M is var, N const 8, MN = M * N; x [M, N] float32, eps a plain scalar; y [MN].
json base_definition() {
  return json::parse(R"J({
    "name": "toy",
    "op_type": "toy_op",
    "description": "a toy",
    "axes": {
      "M": {"type": "var", "description": "rows"},
      "N": {"type": "const", "value": 8},
      "MN": {"type": "expr", "expression": "M * N"}
    },
    "constraints": ["M >= 1"],
    "inputs": {
      "x": {"shape": ["M", "N"], "dtype": "float32", "description": "data"},
      "eps": {"shape": null, "dtype": "float32"}
    },
    "outputs": {
      "y": {"shape": ["MN"], "dtype": "float32"}
    },
    "reference": "def run(x, eps):\n    return x.flatten() + eps\n"
  })J");
}

json base_workload(const std::string& uuid = "w1", std::int64_t m = 2) {
  return json{{"uuid", uuid}, {"axes", {{"M", m}}}, {"inputs", {{"eps", {{"type", "scalar"}, {"value", 0.5}}}}}};
}

std::string lines(const std::vector<json>& workloads) {
  std::string text;
  for (const auto& workload : workloads) text += workload.dump() + "\n";
  return text;
}

class TaskLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc_task_loader_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = fs::canonical(pattern);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  // A fresh task directory holding definition.json, workload.jsonl and any extra files (name -> text).
  fs::path write_task(const std::string& definition, const std::string& workloads,
                      const std::map<std::string, std::string>& extra = {}) {
    const fs::path directory = root_ / ("task" + std::to_string(++count_));
    fs::create_directories(directory);
    write(directory / "definition.json", definition);
    write(directory / "workload.jsonl", workloads);
    for (const auto& [name, text] : extra) {
      fs::create_directories((directory / name).parent_path());
      write(directory / name, text);
    }
    return directory;
  }
  fs::path write_task(const json& definition, const std::vector<json>& workloads,
                      const std::map<std::string, std::string>& extra = {}) {
    return write_task(definition.dump(2), lines(workloads), extra);
  }

  static void write(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary);
    out << text;
  }

  // Loads and expects a TaskError; anything else (another exception, or success) fails the test.
  static std::string load_error(const fs::path& directory, std::string* field = nullptr) {
    try {
      load_task(directory);
    } catch (const TaskError& error) {
      if (field) *field = error.field();
      return error.what();
    } catch (const std::exception& error) {
      ADD_FAILURE() << "expected a TaskError, got another exception: " << error.what();
      return "";
    }
    ADD_FAILURE() << "expected a TaskError, but the task loaded";
    return "";
  }

  // The message names the file, the field and what was expected.
  static void expect_error(const fs::path& directory, const std::string& file, const std::string& field,
                           const std::vector<std::string>& expected) {
    std::string error_field;
    const std::string message = load_error(directory, &error_field);
    EXPECT_THAT(message, HasSubstr(file));
    EXPECT_THAT(message, HasSubstr(field));
    if (field == "(top level)") EXPECT_EQ(error_field, "");  // printed as "(top level)"
    else EXPECT_THAT(error_field, HasSubstr(field));
    for (const auto& text : expected) EXPECT_THAT(message, HasSubstr(text));
  }

  fs::path root_;
  int count_ = 0;
};

// ---- the built-in tasks ----

TEST_F(TaskLoaderTest, EveryBuiltInTaskLoads) {
  const auto directories = task_directories(kTasks);
  ASSERT_GE(directories.size(), 4u);
  for (const auto& directory : directories) {
    const std::string name = directory.filename().string();
    SCOPED_TRACE(name);
    Task task;
    ASSERT_NO_THROW(task = load_task(directory));
    EXPECT_EQ(task.definition.name, name);
    EXPECT_FALSE(task.workloads.empty());
    EXPECT_FALSE(task.content_hash.empty());
    EXPECT_FALSE(task.definition.reference.empty()) << "a PyTorch reference";
    EXPECT_FALSE(task.definition.native_reference.empty());
    EXPECT_TRUE(fs::is_regular_file(task.definition.native_reference.at("cpu")));
    EXPECT_TRUE(fs::is_regular_file(task.definition.native_reference.at("cuda")));
    // A CPU template, and CUDA templates in both forms (kernel-only with launch geometry, full source).
    const auto count = [&](const std::string& device, TemplateForm form) {
      return std::count_if(task.definition.templates.begin(), task.definition.templates.end(),
                           [&](const Template& t) { return t.device == device && t.form == form; });
    };
    EXPECT_GE(count("cpu", TemplateForm::full), 1);
    EXPECT_EQ(count("cuda", TemplateForm::full), 1);
    EXPECT_GE(count("cuda", TemplateForm::kernel), 1);
    for (const auto& t : task.definition.templates) {
      if (t.form == TemplateForm::kernel) EXPECT_TRUE(t.launch.has_value()) << t.name;
      for (const auto& knob : t.knobs) EXPECT_FALSE(knob.strategy.empty()) << t.name << " " << knob.name << " names the strategy that owns it";
    }
    const auto held_out = std::count_if(task.workloads.begin(), task.workloads.end(), [](const Workload& w) { return w.held_out; });
    EXPECT_GE(held_out, 1);
    EXPECT_LT(held_out, static_cast<long>(task.workloads.size()));
    for (const auto& workload : task.workloads) EXPECT_NO_THROW(resolve_workload(task, workload));
  }
}

// The benchmark's harness refuses a workload without "inputs" (its Workload model requires the field), so a built-in
// task exported to it must say how each input is made, in every line.
TEST_F(TaskLoaderTest, EveryBuiltInWorkloadNamesHowEachInputIsMade) {
  for (const auto& directory : task_directories(kTasks)) {
    SCOPED_TRACE(directory.filename().string());
    const Task task = load_task(directory);
    std::ifstream lines(directory / "workload.jsonl");
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      const auto workload = nlohmann::json::parse(line);
      ASSERT_TRUE(workload.contains("inputs")) << workload.value("uuid", line);
      for (const auto& input : task.definition.inputs)
        EXPECT_TRUE(workload["inputs"].contains(input.name)) << workload["uuid"] << " says nothing of " << input.name;
    }
  }
}

// A knob's values are written once, in definition.json: a template source that also defines a default (#ifndef KNOB /
// #define KNOB v) can drift from it unseen, since the judge always defines every knob (matmul's had: 64 against 16).
TEST_F(TaskLoaderTest, NoTemplateSourceDefinesItsOwnKnobs) {
  // #define KNOB, #ifndef KNOB or #if !defined(KNOB): each is a default in waiting.
  const auto defines_own = [](const std::string& text, const std::string& knob) {
    return std::regex_search(text, std::regex("(^|\\n)[ \\t]*#[ \\t]*(define[ \\t]+" + knob + "\\b|ifndef[ \\t]+" + knob +
                                              "\\b|if[ \\t]*![ \\t]*defined[ \\t]*\\(?[ \\t]*" + knob + "\\b)"));
  };
  EXPECT_TRUE(defines_own("x\n#ifndef VEC\n", "VEC") && defines_own("# if !defined(VEC)", "VEC") && defines_own("  #define VEC 2", "VEC"));
  EXPECT_FALSE(defines_own("#ifndef VECTOR\n#define VECS 2\nstatic_assert(VEC == 1);", "VEC"));
  for (const auto& directory : task_directories(kTasks)) {
    const auto task = load_task(directory);
    for (const auto& t : task.definition.templates) {
      std::ifstream in(t.source);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      ASSERT_FALSE(text.empty()) << t.source.string();
      for (const auto& knob : t.knobs)
        EXPECT_FALSE(defines_own(text, knob.name))
            << t.source.string() << " defines or tests for knob " << knob.name << ", whose values definition.json holds";
    }
  }
}

// Issue 7's family: real-model sizes from one token to 32k, at least 12 workloads, no tensor over 256 Mi elements (a
// round of inputs and reference outputs stays near 1 GB, so the judge's round cache holds every round of a task).
TEST_F(TaskLoaderTest, TheFamilyTasksSpanDecodeToPrefill) {
  for (const char* name : {"softmax_bf16", "fused_add_rmsnorm", "post_rmsnorm", "layernorm", "swiglu", "gelu_tanh_mul", "rotary",
                           "qk_rmsnorm"}) {
    SCOPED_TRACE(name);
    if (!fs::exists(kTasks / name / "definition.json")) {
      ADD_FAILURE() << "missing";
      continue;
    }
    const Task task = load_task(kTasks / name);
    EXPECT_GE(task.workloads.size(), 12u);
    std::int64_t fewest_rows = std::numeric_limits<std::int64_t>::max(), most_rows = 0;
    for (const auto& workload : task.workloads) {
      const auto resolved = resolve_workload(task, workload);
      const auto rows = resolved.input_shapes.front().front();  // tokens or rows: every family task's first input leads with them
      fewest_rows = std::min(fewest_rows, rows), most_rows = std::max(most_rows, rows);
      for (const auto& shape : resolved.input_shapes) EXPECT_LE(element_count(shape), std::int64_t{256} << 20) << workload.uuid;
      for (const auto& shape : resolved.output_shapes) EXPECT_LE(element_count(shape), std::int64_t{256} << 20) << workload.uuid;
    }
    EXPECT_EQ(fewest_rows, 1) << "a single decode token";
    EXPECT_GE(most_rows, 8192) << "a prefill";
    for (const auto& t : task.definition.templates)
      if (t.device == "cuda" && t.form == TemplateForm::kernel) EXPECT_GE(t.knobs.size(), 4u) << t.name;
  }
}

// The CUDA kernel-only template of a task whose launch fits a 2-D block [X, Y] to the row, starting from BLOCK 0; null
// (with the failures recorded) if it has none.
const Template* fitted_kernel_template(const Task& task) {
  const auto cuda = std::find_if(task.definition.templates.begin(), task.definition.templates.end(),
                                 [](const Template& t) { return t.device == "cuda" && t.form == TemplateForm::kernel; });
  if (cuda == task.definition.templates.end()) return ADD_FAILURE() << "no kernel-only CUDA template", nullptr;
  if (!cuda->launch.has_value() || cuda->launch->block.size() != 2) return ADD_FAILURE() << "no 2-D launch", nullptr;
  const auto block = std::find_if(cuda->knobs.begin(), cuda->knobs.end(), [](const Knob& k) { return k.name == "BLOCK"; });
  if (block == cuda->knobs.end() || block->values.front() != 0) ADD_FAILURE() << "the search starts from the fitted geometry (BLOCK 0)";
  return &*cuda;
}

// Every knob's values, and each knob bound to its first value.
std::pair<std::map<std::string, std::vector<std::int64_t>>, Bindings> knob_domain(const Template& t) {
  std::map<std::string, std::vector<std::int64_t>> domain;
  Bindings names;
  for (const auto& knob : t.knobs) domain[knob.name] = knob.values, names[knob.name] = static_cast<double>(knob.values.front());
  return {domain, names};
}

// Whether the bound knobs and axes satisfy every constraint the template declares.
bool satisfies_constraints(const Template& t, const Bindings& names) {
  return std::all_of(t.constraints.begin(), t.constraints.end(), [&](const Expression& c) { return c.evaluate_condition(names); });
}

// BLOCK 0 of the row-norm templates: the launch fits the threads of a row to hidden_size, and each kernel relies on what
// these expressions promise (whole warps, at most 512 threads a block, every kept pack held; layernorm dispatches on a
// power of two and traps on anything else).
TEST_F(TaskLoaderTest, NormTemplatesFitTheirThreadsToTheRow) {
  for (const char* name : {"layernorm", "post_rmsnorm", "fused_add_rmsnorm"}) {
    SCOPED_TRACE(name);
    const Task task = load_task(kTasks / name);
    const Template* cuda = fitted_kernel_template(task);
    ASSERT_NE(cuda, nullptr);
    auto [domain, names] = knob_domain(*cuda);
    names["BLOCK"] = 0;
    // Only layernorm has DECODE_KEEP (its kernel holds short rows in code compiled for fewer packs).
    const auto decode_keeps = domain.count("DECODE_KEEP") ? domain.at("DECODE_KEEP") : std::vector<std::int64_t>{0};
    int checked = 0;
    for (const auto keep : domain.at("KEEP_ROW"))
      for (const auto vec : domain.at("VEC"))
        for (const auto cluster : domain.at("CLUSTER"))
          for (const auto rows : domain.at("ROWS_PER_BLOCK"))
            for (const std::int64_t hidden : {1, 7, 2048, 2304, 4544, 8192, 14848, 16384, 65536})
              for (const std::int64_t tokens : {1, 3, 132, 133, 777, 32768})
                for (const auto decode_keep : decode_keeps) {
                  names["KEEP_ROW"] = static_cast<double>(keep), names["VEC"] = static_cast<double>(vec);
                  if (domain.count("DECODE_KEEP")) names["DECODE_KEEP"] = static_cast<double>(decode_keep);
                  names["CLUSTER"] = static_cast<double>(cluster), names["ROWS_PER_BLOCK"] = static_cast<double>(rows);
                  names["hidden_size"] = static_cast<double>(hidden), names["num_tokens"] = static_cast<double>(tokens);
                  if (!satisfies_constraints(*cuda, names)) continue;
                  const auto at = launch_bindings(*cuda->launch, names);
                  const auto x = cuda->launch->block[0].evaluate_integer(at), y = cuda->launch->block[1].evaluate_integer(at);
                  const auto grid = cuda->launch->grid[0].evaluate_integer(at);
                  SCOPED_TRACE(::testing::Message() << "KEEP_ROW " << keep << " DECODE_KEEP " << decode_keep << " VEC " << vec
                                                    << " CLUSTER " << cluster << " ROWS " << rows << " hidden " << hidden
                                                    << " tokens " << tokens);
                  EXPECT_EQ(x % 32, 0);
                  EXPECT_GE(x, 32);
                  EXPECT_GE(y, 1);
                  EXPECT_LE(y, rows);
                  EXPECT_LE(x * y, 512);
                  if (std::string(name) == "layernorm") EXPECT_EQ(x & (x - 1), 0) << x << " is not a power of two";
                  const auto packs = (hidden + vec - 1) / vec;
                  if (x < 512) EXPECT_GE(keep * x * cluster, packs) << "a row that fits 512 threads is held in registers";
                  const auto fitted = tokens <= 132 && decode_keep > 0 ? std::min(decode_keep, keep) : keep;
                  if (x < 512) EXPECT_GE(fitted * x * cluster, packs) << "a decode row gets DECODE_KEEP packs per thread";
                  const auto fewer = std::string(name) == "layernorm" ? x / 2 : x - 32;  // the next smaller launch it could make
                  if (x > 32) EXPECT_LT(fitted * fewer * cluster, packs) << "the fewest threads that hold the row";
                  EXPECT_EQ(grid % cluster, 0);
                  if (names.at("WAVES") == 0) EXPECT_GE(grid / cluster * y, tokens) << "every token has a group of threads";
                  ++checked;
                }
    EXPECT_GT(checked, 1000);
  }
}

// BLOCK 0 of softmax_bf16: past 132 rows the fewest whole warps, at most 256 threads, whose KEEP_ROW vectors each hold the
// row; at up to 132 rows the fewest threads, a power of two from DECODE_THREADS to 1024, whose DECODE_KEEP vectors each
// hold the row. The kernel reads the count at run time, so what it relies on is whole warps and at most 1024.
TEST_F(TaskLoaderTest, SoftmaxTemplateFitsItsThreadsToTheRow) {
  const Task task = load_task(kTasks / "softmax_bf16");
  const Template* cuda = fitted_kernel_template(task);
  ASSERT_NE(cuda, nullptr);
  auto [domain, names] = knob_domain(*cuda);
  int checked = 0;
  for (const auto keep : domain.at("KEEP_ROW"))
    for (const auto vec : domain.at("VEC"))
      for (const auto cluster : domain.at("CLUSTER"))
        for (const std::int64_t rows_per_block : {1, 4, 16})
          for (const auto decode_keep : domain.at("DECODE_KEEP"))
            for (const auto decode_threads : domain.at("DECODE_THREADS"))
              for (const std::int64_t length : {1, 7, 2048, 3001, 8192, 16384, 32000, 65536})
                for (const std::int64_t rows : {1, 3, 132, 133, 32768}) {
                  names["KEEP_ROW"] = static_cast<double>(keep), names["VEC"] = static_cast<double>(vec);
                  names["CLUSTER"] = static_cast<double>(cluster), names["ROWS_PER_BLOCK"] = static_cast<double>(rows_per_block);
                  names["DECODE_KEEP"] = static_cast<double>(decode_keep), names["DECODE_THREADS"] = static_cast<double>(decode_threads);
                  names["row_length"] = static_cast<double>(length), names["num_rows"] = static_cast<double>(rows);
                  if (!satisfies_constraints(*cuda, names)) continue;
                  const auto at = launch_bindings(*cuda->launch, names);
                  const auto x = cuda->launch->block[0].evaluate_integer(at), y = cuda->launch->block[1].evaluate_integer(at);
                  const auto grid = cuda->launch->grid[0].evaluate_integer(at);
                  SCOPED_TRACE(::testing::Message() << "KEEP_ROW " << keep << " VEC " << vec << " CLUSTER " << cluster << " ROWS "
                                                    << rows_per_block << " DECODE_KEEP " << decode_keep << " DECODE_THREADS "
                                                    << decode_threads << " row_length " << length << " rows " << rows);
                  EXPECT_GE(x, 32);
                  EXPECT_LE(x, 1024);
                  EXPECT_EQ(x % 32, 0) << x << " is not whole warps";
                  EXPECT_GE(y, 1);
                  EXPECT_LE(y, rows_per_block);
                  EXPECT_LE(x * y, 1024);
                  EXPECT_EQ(grid % cluster, 0);
                  if (names.at("WAVES") == 0) EXPECT_GE(grid / cluster * y, rows) << "every row has a group of threads";
                  const auto packs = (length + vec - 1) / vec;
                  if (rows > 132) {
                    const auto held = std::max<std::int64_t>(keep, 1) * cluster;  // vectors per lane over the cluster
                    EXPECT_LE(x, 256);
                    if (x < 256) EXPECT_GE(held * x, packs) << "a row that fits 256 threads is held";
                    if (x > 32) EXPECT_LT(held * (x - 32), packs) << "the fewest warps that hold it";
                  } else {
                    EXPECT_EQ(x & (x - 1), 0) << x << " is not a power of two";
                    const auto fitted = decode_keep > 0 ? std::min(decode_keep, keep) : keep;
                    EXPECT_GE(x, decode_threads);
                    if (x < 1024) EXPECT_GE(fitted * x * cluster, packs) << "a decode row is held in DECODE_KEEP vectors per thread";
                    if (x > decode_threads) EXPECT_LT(fitted * (x / 2) * cluster, packs) << "the fewest threads that hold it";
                  }
                  ++checked;
                }
  EXPECT_GT(checked, 10000);
}

// HEADS 0 of rotary: a block of [lanes, head slots] covers every head of a token in one step, unless a thread per head
// would fill the H200 (132 SMs x 2048 threads); then blocks of about 128 threads, each thread striding over heads (on the
// H200 13-18% faster from 4096 tokens, bench/results/h200-2026-12-04j-sweeps/). The kernel's launch bound is 1024 / ITEMS.
TEST_F(TaskLoaderTest, RotaryTemplateFitsHeadSlotsToTheWork) {
  const Task task = load_task(kTasks / "rotary");
  const auto cuda = std::find_if(task.definition.templates.begin(), task.definition.templates.end(),
                                 [](const Template& t) { return t.device == "cuda" && t.form == TemplateForm::kernel; });
  ASSERT_NE(cuda, task.definition.templates.end());
  ASSERT_TRUE(cuda->launch.has_value());
  ASSERT_EQ(cuda->launch->block.size(), 2u);
  auto [domain, names] = knob_domain(*cuda);
  ASSERT_EQ(domain.at("HEADS").front(), 0) << "the search starts from the fitted head slots";
  int checked = 0, strided = 0;
  for (const auto items : domain.at("ITEMS"))
    for (const auto vec : domain.at("VEC"))
      for (const std::int64_t head_dim : {2, 64, 96, 128, 256, 4096})
        for (const std::int64_t q_heads : {1, 12, 32, 64, 128})
          for (const std::int64_t kv_heads : {1, 8})
            for (const std::int64_t tokens : {1, 32, 512, 1024, 32768}) {
              names["ITEMS"] = static_cast<double>(items), names["VEC"] = static_cast<double>(vec);
              names["head_dim"] = static_cast<double>(head_dim), names["num_q_heads"] = static_cast<double>(q_heads);
              names["num_kv_heads"] = static_cast<double>(kv_heads), names["num_tokens"] = static_cast<double>(tokens);
              names["max_position"] = 4096;
              const auto at = launch_bindings(*cuda->launch, names);
                  const auto x = cuda->launch->block[0].evaluate_integer(at), y = cuda->launch->block[1].evaluate_integer(at);
              SCOPED_TRACE(::testing::Message() << "ITEMS " << items << " VEC " << vec << " head_dim " << head_dim << " heads "
                                                << q_heads << "+" << kv_heads << " tokens " << tokens);
              const auto heads = q_heads + kv_heads, steps = (heads + items - 1) / items;
              EXPECT_EQ(x, std::min((head_dim / 2 + vec - 1) / vec, 1024 / items)) << "a lane per VEC pairs of a head";
              EXPECT_GE(y, 1);
              EXPECT_LE(x * y, 1024 / items) << "within the kernel's launch bound";
              EXPECT_LE(y, steps) << "no idle head slot";
              if (tokens * x * heads < 132 * 2048) {
                EXPECT_EQ(y, std::min(steps, (1024 / items) / x)) << "every head of a token in one step";
              } else {
                EXPECT_LE(x * y, std::max<std::int64_t>(128, x)) << "blocks of at most 128 threads";
                if (y < steps) EXPECT_GT(x * (y + 1), 128) << "as many slots as 128 threads hold";
                strided += y < steps;
              }
              ++checked;
            }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(strided, 100);
}

TEST_F(TaskLoaderTest, BuiltInAddRmsNormDetails) {
  const Task task = load_task(kTasks / "add_rmsnorm");
  // Inputs and outputs keep the file's order: it is the order of run(...) and of the candidate ABI.
  ASSERT_EQ(task.definition.inputs.size(), 4u);
  EXPECT_EQ(task.definition.inputs[0].name, "x");
  EXPECT_EQ(task.definition.inputs[1].name, "residual");
  EXPECT_EQ(task.definition.inputs[2].name, "weight");
  EXPECT_EQ(task.definition.inputs[3].name, "eps");
  EXPECT_TRUE(task.definition.inputs[3].is_scalar());
  EXPECT_EQ(task.definition.inputs[0].dtype, DType::bfloat16);
  ASSERT_EQ(task.definition.outputs.size(), 2u);
  EXPECT_EQ(task.definition.outputs[0].name, "out");
  EXPECT_EQ(task.definition.outputs[1].name, "new_residual");
  ASSERT_EQ(task.definition.axes.size(), 2u);
  EXPECT_EQ(task.definition.axes[0].name, "num_tokens");
  EXPECT_EQ(task.definition.axes[1].name, "hidden_size");
  EXPECT_EQ(task.definition.roofline.math, "fp32");
  ASSERT_TRUE(task.definition.roofline.flops.has_value());
  EXPECT_EQ(task.definition.roofline.flops->text(), "4 * num_tokens * hidden_size");
  ASSERT_EQ(task.definition.templates[0].knobs.size(), 1u);
  EXPECT_EQ(task.definition.templates[0].knobs[0].name, "KEEP_ROW");
  EXPECT_EQ(task.definition.templates[0].knobs[0].values, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(task.definition.templates[0].knobs[0].strategy, "memory");
  // The two held-out uuids are flagged and ordered last.
  const auto n = task.workloads.size();
  ASSERT_GE(n, 3u);
  EXPECT_EQ(task.workloads[n - 2].uuid, "add_rmsnorm-9x2048");
  EXPECT_EQ(task.workloads[n - 1].uuid, "add_rmsnorm-33x4096");
  EXPECT_TRUE(task.workloads[n - 2].held_out);
  EXPECT_FALSE(task.workloads[n - 3].held_out);
  EXPECT_EQ(task.workloads[0].uuid, "add_rmsnorm-1x2048");
  EXPECT_EQ(task.workloads[0].inputs.at("eps").kind, InputKind::scalar);
  EXPECT_DOUBLE_EQ(task.workloads[0].inputs.at("eps").value, 1e-6);
  const auto resolved = resolve_workload(task, task.workloads[0]);
  EXPECT_EQ(resolved.input_shapes[0], (std::vector<std::int64_t>{1, 2048}));
  EXPECT_EQ(resolved.input_shapes[2], (std::vector<std::int64_t>{2048}));
  EXPECT_EQ(resolved.input_shapes[3], (std::vector<std::int64_t>{}));
}

TEST_F(TaskLoaderTest, BuiltInMatmulToleranceAndForbid) {
  const Task task = load_task(kTasks / "matmul");
  EXPECT_EQ(task.definition.forbid, (std::vector<std::string>{"cblas_sgemm", "dgemm_", "sgemm_", "cublasSgemm", "cublasSgemm_v2", "cublasGemmEx",
                                                              "cublasSgemmStridedBatched", "cublasLtMatmul"}));
  EXPECT_DOUBLE_EQ(task.workloads[0].tolerance.max_atol, 0.001);
  EXPECT_DOUBLE_EQ(task.workloads[0].tolerance.max_rtol, 0.001);
  EXPECT_DOUBLE_EQ(task.workloads[0].tolerance.required_matched_ratio, 0.99);
  EXPECT_FALSE(task.workloads[0].tolerance.max_error_cap.has_value());
  EXPECT_EQ(task.workloads.back().uuid, "matmul-100x37x211");
  ASSERT_EQ(task.definition.templates[0].constraints.size(), 1u);
  EXPECT_EQ(task.definition.templates[0].constraints[0].text(), "BLOCK_N % 16 == 0");
}

// ---- positive features ----

// A problem in SOL-ExecBench's format stays untouched: KernelArc's additions come from a file of their own, read as the
// definition's "kernelarc" section, with paths relative to that file; they are part of what the content hash covers.
TEST_F(TaskLoaderTest, AnExtensionsFileAddsTemplatesAndARooflineToAProblemLeftAsItIs) {
  const fs::path problem = write_task(base_definition(), {base_workload()});
  const Task plain = load_task(problem);
  EXPECT_TRUE(plain.definition.templates.empty());
  EXPECT_TRUE(plain.extensions_file.empty());

  const fs::path additions = root_ / "additions";
  fs::create_directories(additions);
  write(additions / "rows.cpp", "// template\n");
  write(additions / "kernelarc.json", R"J({
    "roofline": {"flops": "2 * M * N", "math": "fp32"},
    "templates": [{"name": "rows", "source": "rows.cpp", "device": "cpu",
                   "knobs": [{"name": "UNROLL", "values": [1, 4], "strategy": "pipelining"}]}],
    "held_out": ["w2"]
  })J");
  const fs::path problem_with_two = write_task(base_definition(), {base_workload("w1"), base_workload("w2", 3)});
  const Task extended = load_task(problem_with_two, additions / "kernelarc.json");
  ASSERT_EQ(extended.definition.templates.size(), 1u);
  EXPECT_EQ(extended.definition.templates[0].source, additions / "rows.cpp");
  EXPECT_EQ(extended.definition.templates[0].knobs.at(0).values, (std::vector<std::int64_t>{1, 4}));
  ASSERT_TRUE(extended.definition.roofline.flops);
  EXPECT_EQ(extended.extensions_file, additions / "kernelarc.json");
  ASSERT_EQ(extended.workloads.size(), 2u);
  EXPECT_TRUE(extended.workloads[1].held_out);
  EXPECT_NE(extended.content_hash, load_task(problem_with_two).content_hash) << "the additions are part of the task";

  write(additions / "bad.json", R"J({"roofline": {"flops": "2 * M * K"}})J");
  try {
    load_task(problem, additions / "bad.json");
    ADD_FAILURE() << "a roofline over an unknown axis loaded";
  } catch (const TaskError& error) {
    EXPECT_THAT(error.what(), HasSubstr("bad.json"));
    EXPECT_THAT(error.what(), HasSubstr("unknown axis \"K\""));
  }
  EXPECT_THROW(load_task(problem, additions / "missing.json"), TaskError);
  write(additions / "escapes.json", R"J({"templates": [{"name": "t", "source": "../../etc/passwd"}]})J");
  EXPECT_THROW(load_task(problem, additions / "escapes.json"), TaskError) << "a source outside the file's folder";
}

TEST_F(TaskLoaderTest, BaseTaskLoadsWithDefaults) {
  const Task task = load_task(write_task(base_definition(), {base_workload()}));
  EXPECT_EQ(task.definition.name, "toy");
  EXPECT_EQ(task.definition.op_type, "toy_op");
  EXPECT_EQ(task.definition.description, "a toy");
  EXPECT_EQ(task.definition.axes[0].description, "rows");
  EXPECT_TRUE(task.definition.reference.find("def run(x, eps)") != std::string::npos);
  EXPECT_FALSE(task.definition.custom_inputs_entrypoint.has_value());
  ASSERT_EQ(task.workloads.size(), 1u);
  const auto& tolerance = task.workloads[0].tolerance;
  EXPECT_DOUBLE_EQ(tolerance.max_atol, 1e-2);
  EXPECT_DOUBLE_EQ(tolerance.max_rtol, 1e-2);
  EXPECT_DOUBLE_EQ(tolerance.required_matched_ratio, 0.99);
  EXPECT_FALSE(tolerance.max_error_cap.has_value());
  EXPECT_FALSE(tolerance.allow_negative_inf);
  EXPECT_EQ(task.definition.roofline.math, "fp32");
  EXPECT_FALSE(task.definition.roofline.flops.has_value());
  EXPECT_EQ(task.content_hash.size() > 0, true);
  EXPECT_EQ(task.definition_json, base_definition().dump(2));
}

TEST_F(TaskLoaderTest, ConstVarExprAxesResolve) {
  json definition = base_definition();
  // An expr axis that refers to another expr axis declared after it.
  definition["axes"] = json::parse(R"J({
    "TOTAL": {"type": "expr", "expression": "MN + 1"},
    "M": {"type": "var"},
    "N": {"type": "const", "value": 8},
    "MN": {"type": "expr", "expression": "M * N"},
    "HALF": {"type": "expr", "expression": "ceil_div(M, 2)"}
  })J");
  definition["inputs"]["z"] = {{"shape", json::array()}, {"dtype", "int32"}};
  definition["outputs"]["t"] = {{"shape", {"TOTAL", "HALF"}}, {"dtype", "bfloat16"}};
  const Task task = load_task(write_task(definition, {base_workload("w1", 5)}));
  ASSERT_EQ(task.definition.axes.size(), 5u);
  EXPECT_EQ(task.definition.axes[0].name, "TOTAL");
  EXPECT_EQ(task.definition.axes[0].kind, AxisKind::expression);
  EXPECT_EQ(task.definition.axes[1].kind, AxisKind::variable);
  EXPECT_EQ(task.definition.axes[2].kind, AxisKind::constant);
  EXPECT_EQ(task.definition.axes[2].value, 8);
  EXPECT_EQ(task.workloads[0].axes, (std::map<std::string, std::int64_t>{{"M", 5}}));

  const auto resolved = resolve_workload(task, task.workloads[0]);
  EXPECT_EQ(resolved.axes.at("M"), 5);
  EXPECT_EQ(resolved.axes.at("N"), 8);
  EXPECT_EQ(resolved.axes.at("MN"), 40);
  EXPECT_EQ(resolved.axes.at("TOTAL"), 41);
  EXPECT_EQ(resolved.axes.at("HALF"), 3);
  ASSERT_EQ(resolved.input_shapes.size(), 3u);  // x, eps, z in the file's order
  EXPECT_EQ(task.definition.inputs[0].name, "x");
  EXPECT_EQ(task.definition.inputs[1].name, "eps");
  EXPECT_EQ(task.definition.inputs[2].name, "z");
  EXPECT_EQ(resolved.input_shapes[0], (std::vector<std::int64_t>{5, 8}));
  EXPECT_EQ(resolved.input_shapes[1], (std::vector<std::int64_t>{}));  // plain scalar
  EXPECT_EQ(resolved.input_shapes[2], (std::vector<std::int64_t>{}));  // 0-d tensor
  EXPECT_TRUE(task.definition.inputs[1].is_scalar());
  EXPECT_FALSE(task.definition.inputs[2].is_scalar());
  ASSERT_EQ(resolved.output_shapes.size(), 2u);
  EXPECT_EQ(resolved.output_shapes[0], (std::vector<std::int64_t>{40}));
  EXPECT_EQ(resolved.output_shapes[1], (std::vector<std::int64_t>{41, 3}));
  EXPECT_EQ(element_count(resolved.output_shapes[1]), 123);
  EXPECT_EQ(element_count({}), 1);
  EXPECT_EQ(element_count({4, 0, 3}), 0);
}

TEST_F(TaskLoaderTest, InputOrderIsTheFileOrderNotAlphabetical) {
  json definition = base_definition();
  definition["inputs"] = json::parse(R"J({
    "zeta": {"shape": ["M"], "dtype": "float32"},
    "alpha": {"shape": ["N"], "dtype": "float16"},
    "mid": {"shape": null, "dtype": "float32"}
  })J");
  definition["outputs"] = json::parse(R"J({"out_b": {"shape": ["M"], "dtype": "float32"},
                                          "out_a": {"shape": ["N"], "dtype": "float32"}})J");
  json workload = base_workload();
  workload["inputs"] = {{"mid", {{"type", "scalar"}, {"value", 1}}}};
  const Task task = load_task(write_task(definition, {workload}));
  ASSERT_EQ(task.definition.inputs.size(), 3u);
  EXPECT_EQ(task.definition.inputs[0].name, "zeta");
  EXPECT_EQ(task.definition.inputs[1].name, "alpha");
  EXPECT_EQ(task.definition.inputs[2].name, "mid");
  EXPECT_EQ(task.definition.outputs[0].name, "out_b");
  EXPECT_EQ(task.definition.outputs[1].name, "out_a");
  const auto resolved = resolve_workload(task, task.workloads[0]);
  EXPECT_EQ(resolved.input_shapes[0], (std::vector<std::int64_t>{2}));
  EXPECT_EQ(resolved.input_shapes[1], (std::vector<std::int64_t>{8}));
  EXPECT_EQ(resolved.output_shapes[0], (std::vector<std::int64_t>{2}));
  EXPECT_EQ(resolved.output_shapes[1], (std::vector<std::int64_t>{8}));
}

TEST_F(TaskLoaderTest, EveryTaskFormatDTypeIsAccepted) {
  const std::vector<std::pair<std::string, DType>> names = {
      {"float64", DType::float64},         {"float32", DType::float32},
      {"float16", DType::float16},         {"bfloat16", DType::bfloat16},
      {"float8_e4m3fn", DType::float8_e4m3fn}, {"float8_e5m2", DType::float8_e5m2},
      {"float4_e2m1", DType::float4_e2m1}, {"float4_e2m1fn_x2", DType::float4_e2m1fn_x2},
      {"int64", DType::int64},             {"int32", DType::int32},
      {"int16", DType::int16},             {"int8", DType::int8},
      {"bool", DType::boolean}};
  json definition = base_definition();
  for (const auto& [name, _] : names) definition["inputs"]["in_" + name] = {{"shape", {"M"}}, {"dtype", name}};
  const Task task = load_task(write_task(definition, {base_workload()}));
  ASSERT_EQ(task.definition.inputs.size(), 2 + names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(task.definition.inputs[2 + i].name, "in_" + names[i].first);
    EXPECT_EQ(task.definition.inputs[2 + i].dtype, names[i].second) << names[i].first;
  }
}

TEST_F(TaskLoaderTest, WorkloadInputSourcesAndTolerance) {
  json definition = base_definition();
  definition["custom_inputs_entrypoint"] = "make_inputs";
  definition["inputs"]["w"] = {{"shape", {"N"}}, {"dtype", "float32"}};
  definition["inputs"]["idx"] = {{"shape", {"M"}}, {"dtype", "int64"}};
  definition["inputs"]["flag"] = {{"shape", nullptr}, {"dtype", "bool"}};
  const fs::path directory = root_ / "sources";
  fs::create_directories(directory / "data");
  write_safetensors(directory / "data" / "w.safetensors",
                    {{"w", SafetensorsTensor{DType::float32, {8}, std::vector<std::byte>(32)}}});
  json workload = base_workload();
  workload["inputs"]["x"] = {{"type", "random"}};
  workload["inputs"]["w"] = {{"type", "safetensors"}, {"path", "data/w.safetensors"}, {"tensor_key", "w"}};
  workload["inputs"]["idx"] = {{"type", "custom"}};
  workload["inputs"]["flag"] = {{"type", "scalar"}, {"value", true}};
  workload["tolerance"] = {{"max_atol", 0.25},
                           {"max_rtol", 0},
                           {"required_matched_ratio", 1},
                           {"max_error_cap", 3},
                           {"allow_negative_inf", true}};
  write(directory / "definition.json", definition.dump());
  write(directory / "workload.jsonl", workload.dump() + "\n");
  const Task task = load_task(directory);
  EXPECT_EQ(task.definition.custom_inputs_entrypoint, std::optional<std::string>("make_inputs"));
  const auto& inputs = task.workloads[0].inputs;
  EXPECT_EQ(inputs.at("x").kind, InputKind::random);
  EXPECT_EQ(inputs.at("w").kind, InputKind::safetensors);
  EXPECT_EQ(inputs.at("w").path, fs::canonical(directory / "data" / "w.safetensors"));
  EXPECT_EQ(inputs.at("w").tensor_key, "w");
  EXPECT_EQ(inputs.at("idx").kind, InputKind::custom);
  EXPECT_EQ(inputs.at("flag").kind, InputKind::scalar);
  EXPECT_EQ(inputs.at("flag").value, 1.0);
  EXPECT_EQ(inputs.at("eps").value, 0.5);
  const auto& tolerance = task.workloads[0].tolerance;
  EXPECT_EQ(tolerance.max_atol, 0.25);
  EXPECT_EQ(tolerance.max_rtol, 0);
  EXPECT_EQ(tolerance.required_matched_ratio, 1);
  EXPECT_EQ(tolerance.max_error_cap, std::optional<double>(3));
  EXPECT_TRUE(tolerance.allow_negative_inf);
}

TEST_F(TaskLoaderTest, HeldOutUuidsAreFlaggedAndOrderedLast) {
  json definition = base_definition();
  definition["kernelarc"] = {{"held_out", {"h2", "h1"}}};
  const Task task = load_task(write_task(
      definition, {base_workload("h1", 1), base_workload("v1", 2), base_workload("h2", 3), base_workload("v2", 4)}));
  ASSERT_EQ(task.workloads.size(), 4u);
  // Visible ones first in file order, then the held-out ones in file order.
  EXPECT_EQ(task.workloads[0].uuid, "v1");
  EXPECT_EQ(task.workloads[1].uuid, "v2");
  EXPECT_EQ(task.workloads[2].uuid, "h1");
  EXPECT_EQ(task.workloads[3].uuid, "h2");
  EXPECT_FALSE(task.workloads[0].held_out);
  EXPECT_FALSE(task.workloads[1].held_out);
  EXPECT_TRUE(task.workloads[2].held_out);
  EXPECT_TRUE(task.workloads[3].held_out);
  EXPECT_EQ(task.workloads[2].axes.at("M"), 1);
}

TEST_F(TaskLoaderTest, HeldOutFileIsReadFlaggedAndHashed) {
  json definition = base_definition();
  definition["kernelarc"] = {{"held_out", "private/held.jsonl"}};
  const std::string held = lines({base_workload("h1", 7)});
  const Task task = load_task(write_task(definition.dump(), lines({base_workload("v1", 2)}), {{"private/held.jsonl", held}}));
  ASSERT_EQ(task.workloads.size(), 2u);
  EXPECT_EQ(task.workloads[0].uuid, "v1");
  EXPECT_FALSE(task.workloads[0].held_out);
  EXPECT_EQ(task.workloads[1].uuid, "h1");
  EXPECT_TRUE(task.workloads[1].held_out);
  EXPECT_EQ(resolve_workload(task, task.workloads[1]).input_shapes[0], (std::vector<std::int64_t>{7, 8}));
  // The held-out file is part of the content hash.
  const Task other =
      load_task(write_task(definition.dump(), lines({base_workload("v1", 2)}), {{"private/held.jsonl", lines({base_workload("h1", 9)})}}));
  EXPECT_NE(task.content_hash, other.content_hash);
}

TEST_F(TaskLoaderTest, ContentHashFollowsTheFiles) {
  const json definition = base_definition();
  const Task a = load_task(write_task(definition, {base_workload("w1", 2), base_workload("w2", 3)}));
  const Task same = load_task(write_task(definition, {base_workload("w1", 2), base_workload("w2", 3)}));
  const Task changed = load_task(write_task(definition, {base_workload("w1", 2), base_workload("w2", 4)}));
  json renamed = definition;
  renamed["description"] = "another toy";
  const Task redescribed = load_task(write_task(renamed, {base_workload("w1", 2), base_workload("w2", 3)}));
  EXPECT_EQ(a.content_hash, same.content_hash);  // the directory does not enter the hash
  EXPECT_NE(a.content_hash, changed.content_hash);
  EXPECT_NE(a.content_hash, redescribed.content_hash);
}

TEST_F(TaskLoaderTest, BlankWorkloadLinesAreSkippedAndLineNumbersCount) {
  const std::string text = "\n" + base_workload("w1").dump() + "\n   \n" + base_workload("w2", 3).dump() + "\r\n\n";
  const Task task = load_task(write_task(base_definition().dump(), text));
  ASSERT_EQ(task.workloads.size(), 2u);
  EXPECT_EQ(task.workloads[1].uuid, "w2");
  // A bad line after blank lines still names its real line number.
  const std::string bad = "\n\n" + base_workload("w1").dump() + "\n\n{\"uuid\": \n";
  expect_error(write_task(base_definition().dump(), bad), "workload.jsonl", "line 5", {"expected valid JSON"});
}

TEST_F(TaskLoaderTest, ExtensionsParse) {
  json definition = base_definition();
  definition["kernelarc"] = json::parse(R"J({
    "roofline": {"flops": "2 * M * N", "bytes": "4 * MN", "math": "tensor_core_bf16"},
    "native_reference": {"cpu": "ref.cpp", "cuda": "ref.cu"},
    "templates": [{
      "name": "k", "source": "k.cu", "device": "cuda", "form": "kernel",
      "knobs": [{"name": "BLOCK", "values": [64, 128], "strategy": "tiling"},
                {"name": "USE_X", "values": [false, true], "strategy": "precision", "description": "d", "search": false}],
      "constraints": ["BLOCK % 32 == 0"],
      "launch": {"grid": ["ceil_div(MN, BLOCK)"], "block": ["BLOCK", 1], "shared_bytes": "BLOCK * 4"}
    }],
    "forbid": ["cublasGemmEx"],
    "cflags": ["-O3", "-march=native"]
  })J");
  const Task task = load_task(write_task(definition, {base_workload()},
                                         {{"ref.cpp", "// ref"}, {"ref.cu", "// ref"}, {"k.cu", "// k"}}));
  const auto& d = task.definition;
  EXPECT_EQ(d.roofline.flops->text(), "2 * M * N");
  EXPECT_EQ(d.roofline.bytes->text(), "4 * MN");
  EXPECT_EQ(d.roofline.math, "tensor_core_bf16");
  EXPECT_EQ(d.native_reference.at("cpu"), task.directory / "ref.cpp");
  EXPECT_EQ(d.native_reference.at("cuda"), task.directory / "ref.cu");
  ASSERT_EQ(d.templates.size(), 1u);
  const auto& tmpl = d.templates[0];
  EXPECT_EQ(tmpl.name, "k");
  EXPECT_EQ(tmpl.source, task.directory / "k.cu");
  EXPECT_EQ(tmpl.device, "cuda");
  EXPECT_EQ(tmpl.form, TemplateForm::kernel);
  ASSERT_EQ(tmpl.knobs.size(), 2u);
  EXPECT_EQ(tmpl.knobs[1].values, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(tmpl.knobs[1].description, "d");
  EXPECT_TRUE(tmpl.knobs[0].searched) << "searched unless it says \"search\": false";
  EXPECT_FALSE(tmpl.knobs[1].searched);
  ASSERT_TRUE(tmpl.launch.has_value());
  EXPECT_EQ(tmpl.launch->grid.size(), 1u);
  EXPECT_EQ(tmpl.launch->block.size(), 2u);
  EXPECT_EQ(tmpl.launch->block[1].text(), "1");
  ASSERT_TRUE(tmpl.launch->shared_bytes.has_value());
  EXPECT_EQ(tmpl.launch->shared_bytes->evaluate({{"BLOCK", 64}}), 256);
  EXPECT_EQ(d.forbid, (std::vector<std::string>{"cublasGemmEx"}));
  EXPECT_EQ(d.cflags, (std::vector<std::string>{"-O3", "-march=native"}));
  // A plain string names the CPU reference.
  definition["kernelarc"] = {{"native_reference", "ref.cpp"}};
  const Task plain = load_task(write_task(definition, {base_workload()}, {{"ref.cpp", "// ref"}}));
  EXPECT_EQ(plain.definition.native_reference.size(), 1u);
  EXPECT_EQ(plain.definition.native_reference.at("cpu"), plain.directory / "ref.cpp");
}

// ---- malformed tasks: a TaskError naming file, field and expectation ----

TEST_F(TaskLoaderTest, MissingDirectory) {
  const fs::path missing = root_ / "no_such_task";
  expect_error(missing, missing.string(), "(top level)", {"expected a task directory"});
  // A file is not a directory either.
  write(root_ / "plain_file", "x");
  expect_error(root_ / "plain_file", "plain_file", "(top level)", {"expected a task directory"});
}

TEST_F(TaskLoaderTest, MissingDefinition) {
  const fs::path directory = write_task("{}", lines({base_workload()}));
  fs::remove(directory / "definition.json");
  expect_error(directory, "definition.json", "(top level)", {"cannot be read"});
}

TEST_F(TaskLoaderTest, MissingWorkloadFile) {
  const fs::path directory = write_task(base_definition(), {base_workload()});
  fs::remove(directory / "workload.jsonl");
  expect_error(directory, "workload.jsonl", "(top level)", {"cannot be read"});
}

TEST_F(TaskLoaderTest, InvalidDefinitionJson) {
  expect_error(write_task("{\"name\": \"toy\", ", lines({base_workload()})), "definition.json", "(top level)",
               {"expected valid JSON"});
}

TEST_F(TaskLoaderTest, InvalidWorkloadLineNamesTheLine) {
  const std::string text = lines({base_workload("w1")}) + "{\"uuid\": \"w2\", axes}\n";
  expect_error(write_task(base_definition().dump(), text), "workload.jsonl", "line 2", {"expected valid JSON"});
}

TEST_F(TaskLoaderTest, WorkloadLineNotAnObject) {
  expect_error(write_task(base_definition().dump(), "[1, 2]\n"), "workload.jsonl", "line 1",
               {"expected an object, got an array"});
}

TEST_F(TaskLoaderTest, DefinitionNotAnObject) {
  expect_error(write_task("[1, 2, 3]", lines({base_workload()})), "definition.json", "(top level)",
               {"expected a JSON object"});
  expect_error(write_task("\"toy\"", lines({base_workload()})), "definition.json", "(top level)",
               {"expected a JSON object"});
}

TEST_F(TaskLoaderTest, MissingName) {
  json definition = base_definition();
  definition.erase("name");
  expect_error(write_task(definition, {base_workload()}), "definition.json", "name", {"is required but missing"});
  definition["name"] = "";
  expect_error(write_task(definition, {base_workload()}), "definition.json", "name", {"expected a non-empty name"});
  definition["name"] = 3;
  expect_error(write_task(definition, {base_workload()}), "definition.json", "name",
               {"expected a string, got an integer"});
}

TEST_F(TaskLoaderTest, AxesWrongType) {
  json definition = base_definition();
  definition["axes"] = json::array({"M", "N"});
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes",
               {"expected an object, got an array"});
  definition = base_definition();
  definition["axes"]["M"] = 4;
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.M",
               {"expected an object, got an integer"});
}

TEST_F(TaskLoaderTest, UnknownAxisType) {
  json definition = base_definition();
  definition["axes"]["M"] = {{"type", "variable"}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.M.type",
               {"expected \"const\", \"var\" or \"expr\"", "got \"variable\""});
}

TEST_F(TaskLoaderTest, AxisNameNotAnIdentifier) {
  json definition = base_definition();
  definition["axes"]["2x"] = {{"type", "const"}, {"value", 2}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.2x", {"identifier"});
}

TEST_F(TaskLoaderTest, ConstAxisWithoutValue) {
  json definition = base_definition();
  definition["axes"]["N"] = {{"type", "const"}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.N.value",
               {"is required but missing"});
  definition["axes"]["N"] = {{"type", "const"}, {"value", 2.5}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.N.value",
               {"expected an integer, got a number"});
}

TEST_F(TaskLoaderTest, ConstAxisNegative) {
  json definition = base_definition();
  definition["axes"]["N"] = {{"type", "const"}, {"value", -8}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.N.value",
               {"expected a non-negative integer"});
}

TEST_F(TaskLoaderTest, ExprAxisWithBadExpression) {
  json definition = base_definition();
  definition["axes"]["MN"] = {{"type", "expr"}, {"expression", "M * * N"}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.MN.expression",
               {"expected an expression"});
  definition["axes"]["MN"] = {{"type", "expr"}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.MN.expression",
               {"is required but missing"});
}

TEST_F(TaskLoaderTest, ExprAxisReferringToUnknownAxis) {
  json definition = base_definition();
  definition["axes"]["MN"] = {{"type", "expr"}, {"expression", "M * K"}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "axes.MN.expression",
               {"refers to unknown axis \"K\""});
}

TEST_F(TaskLoaderTest, CycleBetweenExprAxes) {
  json definition = base_definition();
  definition["axes"]["A"] = {{"type", "expr"}, {"expression", "B + 1"}};
  definition["axes"]["B"] = {{"type", "expr"}, {"expression", "A - 1"}};
  expect_error(write_task(definition, {base_workload()}), "workload.jsonl", "workload w1: axes.A",
               {"refer to each other in a cycle"});
  // An axis that refers to itself is a cycle too.
  definition = base_definition();
  definition["axes"]["S"] = {{"type", "expr"}, {"expression", "S * 2"}};
  expect_error(write_task(definition, {base_workload()}), "workload.jsonl", "axes.S", {"cycle"});
}

TEST_F(TaskLoaderTest, ExprAxisNegativeOrFractional) {
  json definition = base_definition();
  definition["axes"]["D"] = {{"type", "expr"}, {"expression", "M - 10"}};
  expect_error(write_task(definition, {base_workload("w1", 2)}), "workload.jsonl", "workload w1: axes.D",
               {"expression gives -8, expected >= 0"});
  definition["axes"]["D"] = {{"type", "expr"}, {"expression", "M / 4"}};
  std::string field;
  EXPECT_THAT(load_error(write_task(definition, {base_workload("w1", 2)}), &field), HasSubstr("workload.jsonl"));
  EXPECT_THAT(field, HasSubstr("axes.D"));
}

TEST_F(TaskLoaderTest, ConstraintWithUnknownAxis) {
  json definition = base_definition();
  definition["constraints"] = {"M >= 1", "H_qo == H_kv * G"};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "constraints[1]",
               {"refers to unknown axis"});
}

TEST_F(TaskLoaderTest, ConstraintWithBadExpression) {
  json definition = base_definition();
  definition["constraints"] = {"M >="};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "constraints[0]",
               {"expected an expression"});
}

TEST_F(TaskLoaderTest, WorkloadViolatingAConstraint) {
  json definition = base_definition();
  definition["constraints"] = {"M >= 1", "M % 2 == 0"};
  expect_error(write_task(definition, {base_workload("ok", 2), base_workload("odd", 3)}), "workload.jsonl",
               "workload odd: constraints", {"\"M % 2 == 0\" does not hold"});
}

TEST_F(TaskLoaderTest, TensorShapeNamingUnknownAxis) {
  json definition = base_definition();
  definition["inputs"]["x"]["shape"] = {"M", "K"};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "inputs.x.shape[1]",
               {"expected the name of an axis, got \"K\""});
  definition = base_definition();
  definition["inputs"]["x"]["shape"] = "M";
  expect_error(write_task(definition, {base_workload()}), "definition.json", "inputs.x.shape",
               {"expected a list, got a string"});
}

TEST_F(TaskLoaderTest, MissingShape) {
  json definition = base_definition();
  definition["outputs"]["y"].erase("shape");
  expect_error(write_task(definition, {base_workload()}), "definition.json", "outputs.y",
               {"expected a \"shape\""});
}

TEST_F(TaskLoaderTest, UnknownDType) {
  json definition = base_definition();
  definition["inputs"]["x"]["dtype"] = "float33";
  expect_error(write_task(definition, {base_workload()}), "definition.json", "inputs.x.dtype",
               {"expected a dtype", "got \"float33\""});
  definition = base_definition();
  definition["outputs"]["y"].erase("dtype");
  expect_error(write_task(definition, {base_workload()}), "definition.json", "outputs.y.dtype",
               {"is required but missing"});
}

TEST_F(TaskLoaderTest, DuplicateTensorNames) {
  json definition = base_definition();
  definition["outputs"]["x"] = {{"shape", {"M"}}, {"dtype", "float32"}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "outputs.x",
               {"\"x\" is used twice", "expected a tensor name used once"});
}

TEST_F(TaskLoaderTest, NoOutputs) {
  json definition = base_definition();
  definition["outputs"] = json::object();
  expect_error(write_task(definition, {base_workload()}), "definition.json", "outputs",
               {"expected at least one output"});
  definition.erase("outputs");
  expect_error(write_task(definition, {base_workload()}), "definition.json", "outputs", {"is required but missing"});
}

TEST_F(TaskLoaderTest, WorkloadWithUnknownAxis) {
  json workload = base_workload();
  workload["axes"]["K"] = 3;
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.axes.K",
               {"is not an axis of the definition"});
}

TEST_F(TaskLoaderTest, WorkloadMissingVarAxis) {
  json workload = base_workload();
  workload["axes"] = json::object();
  expect_error(write_task(base_definition(), {base_workload("w1"), workload}), "workload.jsonl", "line 2.axes",
               {"expected a value for the var axis \"M\""});
  workload.erase("axes");
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.axes", {"is required but missing"});
}

TEST_F(TaskLoaderTest, WorkloadSettingConstAxis) {
  json workload = base_workload();
  workload["axes"]["N"] = 8;
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.axes.N",
               {"is not a var axis, so a workload cannot set it"});
  workload = base_workload();
  workload["axes"]["MN"] = 16;
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.axes.MN", {"is not a var axis"});
}

TEST_F(TaskLoaderTest, NegativeAxisValue) {
  expect_error(write_task(base_definition(), {base_workload("w1", -1)}), "workload.jsonl", "line 1.axes.M",
               {"expected a non-negative integer"});
}

TEST_F(TaskLoaderTest, NonIntegerAxisValue) {
  json workload = base_workload();
  workload["axes"]["M"] = 2.5;
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.axes.M",
               {"expected an integer, got a number"});
  workload["axes"]["M"] = "2";
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.axes.M",
               {"expected an integer, got a string"});
  workload["axes"]["M"] = true;
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.axes.M",
               {"expected an integer, got a boolean"});
}

TEST_F(TaskLoaderTest, MissingOrEmptyUuid) {
  json workload = base_workload();
  workload.erase("uuid");
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.uuid", {"is required but missing"});
  workload["uuid"] = "";
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.uuid", {"expected a non-empty uuid"});
}

TEST_F(TaskLoaderTest, WorkloadInputNotInDefinition) {
  json workload = base_workload();
  workload["inputs"]["q"] = {{"type", "random"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.q",
               {"is not an input of the definition"});
}

TEST_F(TaskLoaderTest, InputKindUnknown) {
  json workload = base_workload();
  workload["inputs"]["x"] = {{"type", "zeros"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.x.type",
               {"expected random, scalar, safetensors or custom", "got \"zeros\""});
  workload["inputs"]["x"] = json::object();
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.x.type",
               {"is required but missing"});
}

TEST_F(TaskLoaderTest, ScalarInputWithoutValue) {
  json workload = base_workload();
  workload["inputs"]["eps"] = {{"type", "scalar"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.eps.value",
               {"is required but missing"});
  workload["inputs"]["eps"] = {{"type", "scalar"}, {"value", "small"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.eps.value",
               {"expected a number, got a string"});
}

TEST_F(TaskLoaderTest, SafetensorsPathOutsideTheTaskDirectory) {
  // The file exists, but outside the task directory.
  write_safetensors(root_ / "outside.safetensors",
                    {{"x", SafetensorsTensor{DType::float32, {1}, std::vector<std::byte>(4)}}});
  json workload = base_workload();
  workload["inputs"]["x"] = {{"type", "safetensors"}, {"path", "../outside.safetensors"}, {"tensor_key", "x"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.x.path",
               {"expected a path inside the task directory", "'../outside.safetensors'"});
  workload["inputs"]["x"]["path"] = (root_ / "outside.safetensors").string();  // absolute
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.x.path",
               {"expected a path inside the task directory"});
  // A sibling directory whose name starts with the task directory's name is still outside.
  const fs::path directory = write_task(base_definition(), {base_workload()});
  fs::create_directories(directory.string() + "_evil");
  write_safetensors(directory.string() + "_evil/x.safetensors",
                    {{"x", SafetensorsTensor{DType::float32, {1}, std::vector<std::byte>(4)}}});
  workload["inputs"]["x"]["path"] = "../" + directory.filename().string() + "_evil/x.safetensors";
  write(directory / "workload.jsonl", workload.dump() + "\n");
  expect_error(directory, "workload.jsonl", "line 1.inputs.x.path", {"expected a path inside the task directory"});
  // A symbolic link inside the directory that points outside is outside.
  fs::create_symlink(root_ / "outside.safetensors", directory / "link.safetensors");
  workload["inputs"]["x"]["path"] = "link.safetensors";
  write(directory / "workload.jsonl", workload.dump() + "\n");
  expect_error(directory, "workload.jsonl", "line 1.inputs.x.path", {"expected a path inside the task directory"});
}

TEST_F(TaskLoaderTest, SafetensorsFileMissing) {
  json workload = base_workload();
  workload["inputs"]["x"] = {{"type", "safetensors"}, {"path", "data/x.safetensors"}, {"tensor_key", "x"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.x.path",
               {"file 'data/x.safetensors' does not exist"});
}

TEST_F(TaskLoaderTest, SafetensorsWithoutTensorKey) {
  json workload = base_workload();
  workload["inputs"]["x"] = {{"type", "safetensors"}, {"path", "x.safetensors"}};
  expect_error(write_task(base_definition(), {workload}, {{"x.safetensors", "not checked here"}}), "workload.jsonl",
               "line 1.inputs.x.tensor_key", {"is required but missing"});
}

TEST_F(TaskLoaderTest, CustomInputWithoutEntrypoint) {
  json workload = base_workload();
  workload["inputs"]["x"] = {{"type", "custom"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.inputs.x",
               {"is \"custom\" but the definition has no custom_inputs_entrypoint"});
}

TEST_F(TaskLoaderTest, PlainScalarGivenAsRandom) {
  json workload = base_workload();
  workload["inputs"]["eps"] = {{"type", "random"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "workload w1: inputs.eps",
               {"is a plain scalar in the definition", "{\"type\": \"scalar\"}"});
  // Leaving it out (which means random) is the same mistake.
  workload["inputs"].erase("eps");
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "workload w1: inputs.eps",
               {"is a plain scalar"});
}

TEST_F(TaskLoaderTest, ToleranceRatioAboveOne) {
  json workload = base_workload();
  workload["tolerance"] = {{"required_matched_ratio", 1.5}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.tolerance.required_matched_ratio",
               {"expected a ratio between 0 and 1"});
  workload["tolerance"] = {{"required_matched_ratio", -0.1}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.tolerance.required_matched_ratio",
               {"expected a ratio between 0 and 1"});
}

TEST_F(TaskLoaderTest, NegativeTolerance) {
  json workload = base_workload();
  workload["tolerance"] = {{"max_atol", -1e-3}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.tolerance",
               {"expected max_atol and max_rtol >= 0"});
  workload["tolerance"] = {{"max_rtol", -1}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.tolerance", {">= 0"});
  workload["tolerance"] = {{"allow_negative_inf", "yes"}};
  expect_error(write_task(base_definition(), {workload}), "workload.jsonl", "line 1.tolerance.allow_negative_inf",
               {"expected true or false, got a string"});
}

TEST_F(TaskLoaderTest, DuplicateUuids) {
  expect_error(write_task(base_definition(), {base_workload("w1", 2), base_workload("w2", 3), base_workload("w1", 4)}),
               "workload.jsonl", "uuid", {"expected unique uuids", "\"w1\" appears twice"});
}

TEST_F(TaskLoaderTest, EmptyWorkloadFile) {
  expect_error(write_task(base_definition().dump(), ""), "workload.jsonl", "(top level)",
               {"expected at least one workload line"});
  expect_error(write_task(base_definition().dump(), "\n  \n\n"), "workload.jsonl", "(top level)",
               {"expected at least one workload line"});
}

TEST_F(TaskLoaderTest, HeldOutNamingUnknownUuid) {
  json definition = base_definition();
  definition["kernelarc"] = {{"held_out", {"w1", "nope"}}};
  expect_error(write_task(definition, {base_workload("w1", 2), base_workload("w2", 3)}), "definition.json",
               "kernelarc.held_out", {"names unknown workload \"nope\""});
}

TEST_F(TaskLoaderTest, HeldOutFileMissingOrOutside) {
  json definition = base_definition();
  definition["kernelarc"] = {{"held_out", "held.jsonl"}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "kernelarc.held_out",
               {"file 'held.jsonl' does not exist"});
  definition["kernelarc"] = {{"held_out", "../held.jsonl"}};
  write(root_ / "held.jsonl", lines({base_workload("h1")}));
  expect_error(write_task(definition, {base_workload()}), "definition.json", "kernelarc.held_out",
               {"expected a path inside the task directory"});
  definition["kernelarc"] = {{"held_out", 3}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "kernelarc.held_out",
               {"expected a list, got an integer"});
}

TEST_F(TaskLoaderTest, HeldOutFileWithBadLine) {
  json definition = base_definition();
  definition["kernelarc"] = {{"held_out", "held.jsonl"}};
  const std::string held = lines({base_workload("h1")}) + "{not json\n";
  expect_error(write_task(definition.dump(), lines({base_workload("v1")}), {{"held.jsonl", held}}), "held.jsonl",
               "line 2", {"expected valid JSON"});
  json bad = base_workload("h2");
  bad["axes"]["M"] = -3;
  expect_error(write_task(definition.dump(), lines({base_workload("v1")}), {{"held.jsonl", lines({bad})}}),
               "held.jsonl", "line 1.axes.M", {"expected a non-negative integer"});
  // A uuid used both in the visible and the held-out file.
  expect_error(write_task(definition.dump(), lines({base_workload("v1")}), {{"held.jsonl", lines({base_workload("v1")})}}),
               "workload.jsonl", "uuid", {"\"v1\" appears twice"});
}

TEST_F(TaskLoaderTest, AllWorkloadsHeldOut) {
  json definition = base_definition();
  definition["kernelarc"] = {{"held_out", {"w1", "w2"}}};
  expect_error(write_task(definition, {base_workload("w1", 2), base_workload("w2", 3)}), "definition.json",
               "kernelarc.held_out", {"leaves no visible workload"});
}

json with_template(const json& tmpl) {
  json definition = base_definition();
  definition["kernelarc"] = {{"templates", json::array({tmpl})}};
  return definition;
}

json good_template() {
  return json::parse(R"J({"name": "t", "source": "t.cpp",
                         "knobs": [{"name": "BLOCK", "values": [1, 2], "strategy": "tiling"}]})J");
}

TEST_F(TaskLoaderTest, TemplateWithUnknownStrategy) {
  json tmpl = good_template();
  tmpl["knobs"][0]["strategy"] = "speed";
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].knobs[0].strategy", {"expected one of memory", "got \"speed\""});
}

TEST_F(TaskLoaderTest, TemplateKnobWithEmptyValues) {
  json tmpl = good_template();
  tmpl["knobs"][0]["values"] = json::array();
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].knobs[0].values", {"expected a non-empty list of integers"});
  tmpl["knobs"][0]["values"] = {1, 2.5};
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].knobs[0].values[1]", {"expected an integer, got a number"});
}

TEST_F(TaskLoaderTest, TemplateKnobSearchIsTrueOrFalse) {
  json tmpl = good_template();
  tmpl["knobs"][0]["search"] = "no";
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].knobs[0].search", {"expected true or false, got a string"});
}

TEST_F(TaskLoaderTest, DuplicateKnob) {
  json tmpl = good_template();
  tmpl["knobs"].push_back({{"name", "BLOCK"}, {"values", {4}}, {"strategy", "memory"}});
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].knobs[1]", {"duplicate knob \"BLOCK\""});
}

TEST_F(TaskLoaderTest, KernelTemplateWithoutLaunch) {
  json tmpl = good_template();
  tmpl["form"] = "kernel";
  tmpl["device"] = "cuda";
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0]", {"must declare its \"launch\" geometry"});
  tmpl["launch"] = {{"grid", json::array()}, {"block", {128}}};
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].launch.grid", {"expected 1 to 3 expressions"});
  tmpl["launch"] = {{"grid", {1, 1, 1, 1}}, {"block", {128}}};
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].launch.grid", {"expected 1 to 3 expressions"});
}

// "let" bindings: evaluated in order over the axes, the knobs, num_sms and the bindings before them.
TEST_F(TaskLoaderTest, LaunchLetBindingsAndNumSms) {
  json tmpl = good_template();
  tmpl["form"] = "kernel";
  tmpl["device"] = "cuda";
  tmpl["launch"] = json::parse(R"J({"let": {"per_block": "BLOCK * 2", "blocks": "ceil_div(MN, per_block)",
                                           "waves": "min(blocks, num_sms * 4)"},
                                   "grid": ["waves"], "block": ["per_block", 1], "shared_bytes": "blocks * 0 + num_sms"})J");
  const Task task = load_task(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}));
  const auto& launch = *task.definition.templates[0].launch;
  ASSERT_EQ(launch.let.size(), 3u);
  EXPECT_EQ(launch.let[0].name, "per_block") << "the file's order, not sorted";
  EXPECT_EQ(launch.let[2].name, "waves");
  Bindings names = {{"M", 1000}, {"N", 8}, {"MN", 8000}, {"BLOCK", 2}};
  const auto at = launch_bindings(launch, names, 100);
  EXPECT_EQ(at.at("num_sms"), 100);
  EXPECT_EQ(at.at("per_block"), 4);
  EXPECT_EQ(at.at("blocks"), 2000);
  EXPECT_EQ(launch.grid[0].evaluate_integer(at), 400);
  EXPECT_EQ(launch.shared_bytes->evaluate_integer(at), 100);
  EXPECT_EQ(launch.grid[0].evaluate_integer(launch_bindings(launch, names)), 4 * kDefaultNumSms) << "the fallback";
  names["BLOCK"] = 0;  // ceil_div by zero: the error names the binding
  try {
    launch_bindings(launch, names, 100);
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(std::string(error.what()), HasSubstr("launch binding \"blocks\""));
  }
}

TEST_F(TaskLoaderTest, LaunchNameMistakes) {
  json tmpl = good_template();
  tmpl["form"] = "kernel";
  tmpl["device"] = "cuda";
  const auto expect_launch_error = [&](const std::string& launch, const std::string& field, const std::vector<std::string>& expected) {
    tmpl["launch"] = json::parse(launch);
    expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json", field, expected);
  };
  expect_launch_error(R"J({"grid": ["ceil_div(MN, BLOK)"], "block": [32]})J", "kernelarc.templates[0].launch.grid[0]",
                      {"unknown name \"BLOK\"", "did you mean BLOCK?", "M, N, MN, BLOCK, num_sms"});
  expect_launch_error(R"J({"grid": [1], "block": [32], "shared_bytes": "rows * 4"})J", "kernelarc.templates[0].launch.shared_bytes",
                      {"unknown name \"rows\""});
  expect_launch_error(R"J({"let": {"a": "b + 1", "b": "BLOCK"}, "grid": ["a"], "block": [32]})J", "kernelarc.templates[0].launch.let.a",
                      {"\"b\" is bound later in \"let\""});
  expect_launch_error(R"J({"let": {"a": "a + 1"}, "grid": ["a"], "block": [32]})J", "kernelarc.templates[0].launch.let.a",
                      {"\"a\" uses itself"});
  expect_launch_error(R"J({"let": {"MN": "M"}, "grid": [1], "block": [32]})J", "kernelarc.templates[0].launch.let.MN",
                      {"\"MN\" is already an axis, a knob or a binding"});
  expect_launch_error(R"J({"let": {"num_sms": "132"}, "grid": [1], "block": [32]})J", "kernelarc.templates[0].launch.let.num_sms",
                      {"already the device's SM count"});
  expect_launch_error(R"J({"let": {"2x": "1"}, "grid": [1], "block": [32]})J", "kernelarc.templates[0].launch.let.2x",
                      {"expected a binding name that is an identifier"});
  expect_launch_error(R"J({"let": {"a": "1 +"}, "grid": [1], "block": [32]})J", "kernelarc.templates[0].launch.let.a",
                      {"expected an expression"});
  expect_launch_error(R"J({"let": ["a", "1"], "grid": [1], "block": [32]})J", "kernelarc.templates[0].launch.let",
                      {"expected an object"});
  tmpl["knobs"][0]["name"] = "num_sms";
  expect_launch_error(R"J({"grid": [1], "block": [32]})J", "kernelarc.templates[0].launch", {"an axis or knob is named \"num_sms\""});
}

// TMA tensor maps: an input by name, a box of two expressions over the launch's names, a swizzle the hardware has.
TEST_F(TaskLoaderTest, LaunchTensorMaps) {
  json tmpl = good_template();
  tmpl["form"] = "kernel";
  tmpl["device"] = "cuda";
  tmpl["launch"] = json::parse(R"J({"let": {"rows": "BLOCK * 2"}, "grid": [1], "block": [128],
                                   "tensor_maps": [{"input": "x", "box": ["N", "rows"], "swizzle": 32}, {"input": "x", "box": [4, 1]}]})J");
  const Task task = load_task(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}));
  const auto& maps = task.definition.templates[0].launch->tensor_maps;
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0].input, "x");
  EXPECT_EQ(maps[0].swizzle_bytes, 32);
  EXPECT_EQ(maps[1].swizzle_bytes, 0) << "no swizzle unless asked";
  EXPECT_EQ(maps[0].box[1].evaluate_integer(launch_bindings(*task.definition.templates[0].launch, {{"M", 2}, {"N", 8}, {"MN", 16}, {"BLOCK", 3}})), 6);
  const auto expect_map_error = [&](const std::string& map, const std::string& field, const std::vector<std::string>& expected) {
    tmpl["launch"]["tensor_maps"] = json::array({json::parse(map)});
    expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json", field, expected);
  };
  expect_map_error(R"J({"input": "z", "box": [8, 1]})J", "kernelarc.templates[0].launch.tensor_maps[0].input",
                   {"no input \"z\"", "the inputs are x, eps"});
  expect_map_error(R"J({"input": "eps", "box": [8, 1]})J", "kernelarc.templates[0].launch.tensor_maps[0].input", {"\"eps\" is a scalar"});
  expect_map_error(R"J({"input": "x", "box": [8]})J", "kernelarc.templates[0].launch.tensor_maps[0].box", {"expected two expressions"});
  expect_map_error(R"J({"input": "x", "box": ["ROWS", 1]})J", "kernelarc.templates[0].launch.tensor_maps[0].box[0]", {"unknown name \"ROWS\""});
  expect_map_error(R"J({"input": "x", "box": [8, 1], "swizzle": 256})J", "kernelarc.templates[0].launch.tensor_maps[0].swizzle",
                   {"expected a swizzle of 0, 32, 64 or 128 bytes"});
  expect_map_error(R"J({"input": "x", "box": [8, 1], "multicast": 2})J", "kernelarc.templates[0].launch.tensor_maps[0]", {"unknown field"});
}

TEST_F(TaskLoaderTest, TemplateOtherMistakes) {
  json tmpl = good_template();
  tmpl["form"] = "partial";
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].form", {"expected \"full\" or \"kernel\"", "got \"partial\""});
  tmpl = good_template();
  tmpl["device"] = "tpu";
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].device", {"expected \"cpu\" or \"cuda\""});
  tmpl = good_template();
  expect_error(write_task(with_template(tmpl), {base_workload()}), "definition.json", "kernelarc.templates[0].source",
               {"file 't.cpp' does not exist"});
  tmpl["knobs"][0]["name"] = "not an identifier";
  expect_error(write_task(with_template(tmpl), {base_workload()}, {{"t.cpp", "//"}}), "definition.json",
               "kernelarc.templates[0].knobs[0].name", {"expected an identifier"});
}

TEST_F(TaskLoaderTest, NativeReferenceMissingFile) {
  json definition = base_definition();
  definition["kernelarc"] = {{"native_reference", {{"cpu", "reference_cpu.cpp"}}}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "kernelarc.native_reference.cpu",
               {"file 'reference_cpu.cpp' does not exist"});
  definition["kernelarc"] = {{"native_reference", {{"fpga", "ref.cpp"}}}};
  expect_error(write_task(definition, {base_workload()}, {{"ref.cpp", "//"}}), "definition.json",
               "kernelarc.native_reference.fpga", {"expected the device kind \"cpu\" or \"cuda\""});
}

TEST_F(TaskLoaderTest, RooflineFlopsWithBadExpression) {
  json definition = base_definition();
  definition["kernelarc"] = {{"roofline", {{"flops", "2 * M *"}}}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "kernelarc.roofline.flops",
               {"expected an expression"});
}

TEST_F(TaskLoaderTest, RooflineReferringToUnknownAxis) {
  // Caught at load time, not when the judge first estimates T_sol mid-run.
  json definition = base_definition();
  definition["kernelarc"] = {{"roofline", {{"flops", "2 * M * K"}}}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "kernelarc.roofline.flops",
               {"refers to unknown axis \"K\""});
  definition["kernelarc"] = {{"roofline", {{"bytes", "4 * bytes_per_row"}}}};
  expect_error(write_task(definition, {base_workload()}), "definition.json", "kernelarc.roofline.bytes",
               {"refers to unknown axis \"bytes_per_row\""});
}

TEST_F(TaskLoaderTest, GarbageNeverCrashes) {
  // Values of every JSON type in every place: always a TaskError, never another exception.
  const std::vector<json> values = {nullptr, 1, -1, 2.5, "s", true, json::array(), json::array({1}), json::object()};
  const std::vector<std::vector<std::string>> places = {
      {"axes"}, {"axes", "M"}, {"axes", "M", "type"}, {"inputs"}, {"inputs", "x"}, {"inputs", "x", "shape"},
      {"inputs", "x", "dtype"}, {"outputs"}, {"constraints"}, {"kernelarc"}, {"reference"}};
  int errors = 0, loaded = 0;
  for (const auto& place : places) {
    for (const auto& value : values) {
      json definition = base_definition();
      json* target = &definition;
      for (std::size_t i = 0; i + 1 < place.size(); ++i) target = &(*target)[place[i]];
      (*target)[place.back()] = value;
      const fs::path directory = write_task(definition, {base_workload()});
      try {
        load_task(directory);
        ++loaded;
      } catch (const TaskError& error) {
        // Most land in definition.json; some only show as a workload that no longer fits it.
        const std::string what = error.what();
        EXPECT_TRUE(what.find("definition.json") != std::string::npos || what.find("workload.jsonl") != std::string::npos)
            << what;
        ++errors;
      } catch (const std::exception& error) {
        ADD_FAILURE() << "not a TaskError for " << definition.dump() << ": " << error.what();
      }
    }
  }
  EXPECT_GT(errors, 70);
  EXPECT_GT(loaded, 0);  // e.g. a null kernelarc object or reference
}

}  // namespace
}  // namespace kernelarc::task

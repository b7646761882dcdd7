// solution.json read back as a candidate: the source with the ABI's entry point is taken; what cannot be judged is
// refused with why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "task/solution_file.h"

namespace kernelarc::task {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

const char* const kKernel = "#include <kernelarc/candidate_abi.h>\nKERNELARC_CANDIDATE(inputs, ni, outputs, no, stream) { return 0; }\n";
const char* const kBinding = "#include <torch/extension.h>\nextern \"C\" int kernelarc_run(...);\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n";

json solution(json sources) {
  return {{"name", "kernelarc_softmax"}, {"definition", "softmax"}, {"author", "tests"},
          {"spec", {{"languages", {"cuda_cpp"}}, {"target_hardware", {"LOCAL", "B200"}}, {"entry_point", "binding.cpp::run"}}},
          {"sources", std::move(sources)}};
}

std::string refusal(const json& document) {
  try {
    (void)read_solution(document.dump());
  } catch (const SolutionError& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted: " << document.dump();
  return "";
}

TEST(SolutionFileTest, TheKernelBesideItsBindingIsTheCandidate) {
  const auto read = read_solution(solution({{{"path", "binding.cpp"}, {"content", kBinding}},
                                            {{"path", "kernel.cu"}, {"content", kKernel}},
                                            {{"path", "kernelarc/candidate_abi.h"}, {"content", "// kernelarc_run declared here\n"}}})
                                      .dump());
  EXPECT_EQ(read.name, "kernelarc_softmax");
  EXPECT_EQ(read.definition, "softmax");
  EXPECT_EQ(read.source_path, "kernel.cu");
  EXPECT_EQ(read.source, kKernel);
  EXPECT_EQ(read.languages, std::vector<std::string>{"cuda_cpp"});
  EXPECT_EQ(read.target_hardware, (std::vector<std::string>{"LOCAL", "B200"}));
}

TEST(SolutionFileTest, WhatCannotBeJudgedIsRefusedWithWhy) {
  EXPECT_THAT(refusal(solution({{{"path", "kernel.cu"}, {"content", kBinding}}})), HasSubstr("the entry file binding.cpp is not among the sources"));
  EXPECT_THAT(refusal(solution({{{"path", "a.cu"}, {"content", kKernel}}, {{"path", "b.cu"}, {"content", kKernel}}})),
              HasSubstr("2 sources define the entry point"));
  EXPECT_THAT(refusal(solution({{{"path", "kernel.cu"}, {"content", kKernel}}, {{"path", "helpers.cu"}, {"content", "int helper();\n"}}})),
              HasSubstr("helpers.cu is a second translation unit"));
  EXPECT_THAT(refusal(solution(json::array())), HasSubstr("\"sources\" is missing or empty"));
  EXPECT_THAT(refusal(solution({{{"path", "kernel.cu"}}})), HasSubstr("string \"path\" and \"content\""));
  json nameless = solution({{{"path", "kernel.cu"}, {"content", kKernel}}});
  nameless.erase("definition");
  EXPECT_THAT(refusal(nameless), HasSubstr("\"definition\" is missing"));
  json bad_spec = solution({{{"path", "kernel.cu"}, {"content", kKernel}}});
  bad_spec["spec"]["languages"] = "cuda_cpp";
  EXPECT_THAT(refusal(bad_spec), HasSubstr("spec.languages must be a list"));
  EXPECT_THROW((void)read_solution("{\"name\": "), SolutionError);
  EXPECT_THROW((void)read_solution("[1, 2]"), SolutionError);
}

json benchmark_solution(json spec, json sources) {
  return {{"name", "sol"}, {"definition", "softmax"}, {"author", "tests"}, {"spec", std::move(spec)}, {"sources", std::move(sources)}};
}

TEST(SolutionFileTest, APythonSolutionIsReadByTheBenchmarksRules) {
  const auto read = read_solution(benchmark_solution({{"languages", {"triton"}}, {"target_hardware", {"LOCAL"}}, {"entry_point", "pkg/kernel.py::softmax"},
                                                      {"destination_passing_style", false}},
                                                     {{{"path", "pkg/kernel.py"}, {"content", "def softmax(x): ...\n"}}})
                                      .dump());
  EXPECT_EQ(read.kind, SolutionKind::python);
  EXPECT_TRUE(runs_in_oracle(read));
  EXPECT_EQ(solution_kind_name(read.kind), "python solution through the oracle");
  EXPECT_EQ(read.entry_file, "pkg/kernel.py");
  EXPECT_EQ(read.entry_function, "softmax");
  EXPECT_FALSE(read.destination_passing_style);
  ASSERT_EQ(read.sources.size(), 1u);
  // Destination-passing style unless said otherwise, as the benchmark's BuildSpec.
  EXPECT_TRUE(read_solution(benchmark_solution({{"languages", {"pytorch"}}, {"entry_point", "k.py::run"}}, {{{"path", "k.py"}, {"content", "x"}}}).dump())
                  .destination_passing_style);
}

TEST(SolutionFileTest, ACppSolutionIsATorchExtensionWithTheBenchmarksCompileDefaults) {
  const json sources = {{{"path", "main.cpp"}, {"content", kBinding}}, {{"path", "kernel.cu"}, {"content", "__global__ void k() {}\n"}},
                        {{"path", "kernel.h"}, {"content", "#pragma once\n"}}};
  const auto read = read_solution(benchmark_solution({{"languages", {"cuda_cpp"}}, {"entry_point", "main.cpp::run"}, {"binding", "torch"},
                                                      {"compile_options", {{"cflags", {"-std=c++17"}}}}},
                                                     sources)
                                      .dump());
  EXPECT_EQ(read.kind, SolutionKind::torch_extension);
  EXPECT_EQ(read.cflags, std::vector<std::string>{"-std=c++17"});
  EXPECT_EQ(read.cuda_cflags, (std::vector<std::string>{"-O3", "--use_fast_math"}));  // the benchmark's defaults for what is not given
  EXPECT_EQ(read.ld_flags, std::vector<std::string>{"-lcuda"});
  // No compile options at all: no flags (the benchmark's build_ext.py).
  const auto bare = read_solution(benchmark_solution({{"languages", {"cutlass"}}, {"entry_point", "main.cpp::run"}}, sources).dump());
  EXPECT_TRUE(bare.cuda_cflags.empty() && bare.ld_flags.empty() && bare.cflags.empty());
}

TEST(SolutionFileTest, WhatBreaksTheBenchmarksRulesIsRefusedWithWhy) {
  const json python = {{{"path", "kernel.py"}, {"content", "def run(x): ...\n"}}};
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"pytorch"}}, {"entry_point", "kernel.py"}}, python)), HasSubstr("not \"file::function\""));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"pytorch"}}, {"entry_point", "a::b::c"}}, python)), HasSubstr("not \"file::function\""));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"pytorch", "cuda_cpp"}}, {"entry_point", "kernel.py::run"}}, python)),
              HasSubstr("cannot be mixed"));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"cuda_cpp"}}, {"entry_point", "kernel.py::run"}}, python)), HasSubstr("C++ or CUDA entry file"));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"triton"}}, {"entry_point", "main.cpp::run"}}, {{{"path", "main.cpp"}, {"content", "x"}}})),
              HasSubstr("need a .py entry file"));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"fortran"}}, {"entry_point", "kernel.py::run"}}, python)), HasSubstr("spec.languages has fortran"));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"pytorch"}}, {"entry_point", "other.py::run"}}, python)), HasSubstr("not among the sources"));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"pytorch"}}, {"entry_point", "kernel.py::run"}},
                                         {{{"path", "../kernel.py"}, {"content", "x"}}})),
              HasSubstr("relative and without \"..\""));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"pytorch"}}, {"entry_point", "kernel.py::run"}},
                                         {{{"path", "/tmp/kernel.py"}, {"content", "x"}}})),
              HasSubstr("relative and without"));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"pytorch"}}, {"entry_point", "kernel.py::run"}},
                                         {python[0], {{"path", "./kernel.py"}, {"content", "y"}}})),
              HasSubstr("duplicate source path"));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"pytorch"}}, {"entry_point", "kernel.py::run"}, {"destination_passing_style", "yes"}}, python)),
              HasSubstr("true or false"));
  EXPECT_THAT(refusal(benchmark_solution({{"languages", {"cuda_cpp"}}, {"entry_point", "src/main.cpp::run"}},
                                         {{{"path", "src/main.cpp"}, {"content", kBinding}}})),
              HasSubstr("no C++ or CUDA source at the top"));
  EXPECT_THAT(refusal(benchmark_solution(json::object(), python)), HasSubstr("spec.entry_point"));
}

}  // namespace
}  // namespace kernelarc::task

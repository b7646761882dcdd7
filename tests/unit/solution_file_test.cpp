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
  EXPECT_THAT(refusal(solution({{{"path", "kernel.cu"}, {"content", kBinding}}})), HasSubstr("libtorch"));
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

}  // namespace
}  // namespace kernelarc::task

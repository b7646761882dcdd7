// The forbidden-call checks: names in code count, names in comments and strings do not; a real shared object built by
// g++ is read for what it imports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/subprocess.h"
#include "judge/forbidden_calls.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string> kForbid = {"cblas_sgemm", "sgemm_"};

TEST(ForbiddenCallsTest, ACallInTheCodeIsFoundWithItsLine) {
  const auto reason = forbidden_call_in_source("#include <x>\nint f() {\n  return cblas_sgemm(1);\n}\n", kForbid);
  ASSERT_TRUE(reason);
  EXPECT_THAT(*reason, HasSubstr("line 3 uses cblas_sgemm"));
  EXPECT_THAT(*reason, HasSubstr("kernelarc.forbid"));
}

TEST(ForbiddenCallsTest, CommentsStringsAndLongerNamesAreNotCalls) {
  const std::string source =
      "// no cblas_sgemm here\n/* nor sgemm_\n across lines */\nconst char* s = \"cblas_sgemm \\\" sgemm_\";\nchar c = '\\'';\n"
      "int my_cblas_sgemm_copy = 0; int sgemm_x = 1;\n";
  EXPECT_FALSE(forbidden_call_in_source(source, kForbid));
  EXPECT_FALSE(forbidden_call_in_source("cblas_sgemm();", {})) << "a task that forbids nothing";
  const auto after_comment = forbidden_call_in_source("/* a\nb */ x; // c\nsgemm_();", kForbid);
  ASSERT_TRUE(after_comment);
  EXPECT_THAT(*after_comment, HasSubstr("line 3 uses sgemm_"));
}

class ForbiddenImportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-forbidden-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path build(const std::string& name, const std::string& source) {
    std::ofstream(dir_ / (name + ".cpp")) << source;
    const auto library = dir_ / ("lib" + name + ".so");
    const auto result = common::run_command({"g++", "-shared", "-fPIC", "-o", library.string(), (dir_ / (name + ".cpp")).string()},
                                            std::chrono::seconds(60), 1 << 16);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return library;
  }
  fs::path dir_;
};

TEST_F(ForbiddenImportsTest, AnImportedForbiddenFunctionAndARunTimeLookupAreFound) {
  const auto direct = build("direct", "extern \"C\" void cblas_sgemm(); extern \"C\" void run() { cblas_sgemm(); }\n");
  EXPECT_THAT(imported_symbols(direct), Contains("cblas_sgemm"));
  const auto reason = forbidden_call_in_library(direct, kForbid, false);
  ASSERT_TRUE(reason);
  EXPECT_THAT(*reason, HasSubstr("imports cblas_sgemm"));

  const auto lookup = build("lookup", "#include <dlfcn.h>\nextern \"C\" void* run() { return dlsym(RTLD_DEFAULT, \"x\"); }\n");
  EXPECT_THAT(imported_symbols(lookup), Contains("dlsym"));
  const auto looked_up = forbidden_call_in_library(lookup, kForbid, false);
  ASSERT_TRUE(looked_up);
  EXPECT_THAT(*looked_up, HasSubstr("imports dlsym"));
  EXPECT_FALSE(forbidden_call_in_library(lookup, kForbid, true)) << "on a GPU the CUDA runtime needs dlsym";
  EXPECT_FALSE(forbidden_call_in_library(lookup, {}, false)) << "a task that forbids nothing";
}

TEST_F(ForbiddenImportsTest, AnHonestLibraryImportsNothingForbiddenAndOtherFilesImportNothing) {
  const auto honest = build("honest", "#include <cmath>\nextern \"C\" float run(float x) { return std::exp(x); }\n");
  EXPECT_THAT(imported_symbols(honest), Not(Contains("cblas_sgemm")));
  EXPECT_FALSE(forbidden_call_in_library(honest, kForbid, false));
  std::ofstream(dir_ / "text.so") << "not an ELF file";
  EXPECT_TRUE(imported_symbols(dir_ / "text.so").empty());
  EXPECT_TRUE(imported_symbols(dir_ / "missing.so").empty());
  std::ofstream(dir_ / "short.so") << "\x7f" "ELF\x02";
  EXPECT_TRUE(imported_symbols(dir_ / "short.so").empty()) << "a truncated file";
}

}  // namespace
}  // namespace kernelarc::judge

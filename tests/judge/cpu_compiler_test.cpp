// The CPU candidate compiler: real builds with the system compiler, through the on-disk cache.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <latch>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/subprocess.h"
#include "judge/abi_header.h"
#include "judge/build_cache.h"
#include "judge/cpu_compiler.h"
#include "kernelarc/candidate_abi.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Returns 40 + OFFSET, so a test can see that the knob reached the compiler.
std::string answer_source(const std::string& tag = "") {
  return "// " + tag + R"(
#include <kernelarc/candidate_abi.h>
#ifndef OFFSET
#define OFFSET 0
#endif
KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  return 40 + OFFSET;
}
)";
}

// Loads the library and calls its entry point; -1 when it cannot be loaded.
int call_entry(const fs::path& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return -1;
  auto entry = reinterpret_cast<kernelarc_entry_fn>(dlsym(handle, KERNELARC_ENTRY_POINT_NAME));
  const int result = entry ? entry(nullptr, 0, nullptr, 0, nullptr) : -1;
  dlclose(handle);
  return result;
}

std::vector<std::string> entries(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  return names;
}

class CpuCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-compiler-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    options_.cache_directory = dir_ / "cache";
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path dir_;
  CompilerOptions options_;
};

TEST_F(CpuCompilerTest, BuildProducesALoadableLibraryWithAStableKey) {
  const CpuCompiler compiler(options_);
  EXPECT_FALSE(compiler.compiler_version().empty());
  const auto first = compiler.build({answer_source(), {}, {{"OFFSET", 2}}});
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_FALSE(first.cache_hit);
  EXPECT_FALSE(first.cache_key.empty());
  EXPECT_EQ(first.library, options_.cache_directory / "cpu" / (first.cache_key + ".so"));
  ASSERT_TRUE(fs::is_regular_file(first.library));
  EXPECT_EQ(call_entry(first.library), 42) << "loads, exports kernelarc_run, and the knob became -DOFFSET=2";
  EXPECT_FALSE(first.command.empty());

  // Another compiler on the same cache computes the same key.
  const CpuCompiler again(options_);
  const auto second = again.build({answer_source(), {}, {{"OFFSET", 2}}});
  ASSERT_TRUE(second.ok) << second.diagnostics;
  EXPECT_EQ(second.cache_key, first.cache_key);
  EXPECT_EQ(second.library, first.library);
}

TEST_F(CpuCompilerTest, IdenticalBuildIsACacheHitUnderTenMilliseconds) {
  const CpuCompiler compiler(options_);
  const BuildRequest request{answer_source("cache hit"), {"-DUNUSED_FLAG=1"}, {{"OFFSET", 1}}};
  const auto first = compiler.build(request);
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_FALSE(first.cache_hit);

  const auto started = std::chrono::steady_clock::now();
  const auto second = compiler.build(request);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.cache_key, first.cache_key);
  EXPECT_EQ(second.library, first.library);
  EXPECT_LT(second.seconds, 0.010);
  EXPECT_LT(took, std::chrono::milliseconds(10));
  EXPECT_EQ(call_entry(second.library), 41);
}

TEST_F(CpuCompilerTest, KnobFlagOrSourceChangeGivesAnotherKey) {
  const CpuCompiler compiler(options_);
  const auto base = compiler.build({answer_source(), {}, {{"OFFSET", 1}}});
  const auto other_knob_value = compiler.build({answer_source(), {}, {{"OFFSET", 2}}});
  const auto extra_knob = compiler.build({answer_source(), {}, {{"OFFSET", 1}, {"UNUSED", 0}}});
  const auto extra_flag = compiler.build({answer_source(), {"-fno-math-errno"}, {{"OFFSET", 1}}});
  const auto other_source = compiler.build({answer_source("edited"), {}, {{"OFFSET", 1}}});
  std::set<std::string> keys;
  for (const auto* result : {&base, &other_knob_value, &extra_knob, &extra_flag, &other_source}) {
    ASSERT_TRUE(result->ok) << result->diagnostics;
    EXPECT_FALSE(result->cache_hit);
    keys.insert(result->cache_key);
  }
  EXPECT_EQ(keys.size(), 5u) << "every change is a different key";
  EXPECT_EQ(call_entry(base.library), 41);
  EXPECT_EQ(call_entry(other_knob_value.library), 42);
}

TEST_F(CpuCompilerTest, CompileErrorNamesTheErrorWithoutTemporaryPaths) {
  const CpuCompiler compiler(options_);
  const auto result = compiler.build({R"(#include <kernelarc/candidate_abi.h>
KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  return this_name_is_not_declared;
}
)",
                                      {},
                                      {}});
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.cache_hit);
  EXPECT_THAT(result.diagnostics, HasSubstr("this_name_is_not_declared"));
  EXPECT_THAT(result.diagnostics, HasSubstr("error"));
  EXPECT_THAT(result.diagnostics, HasSubstr("candidate.cpp:4:"));
  EXPECT_THAT(result.diagnostics, Not(HasSubstr(dir_.string()))) << "no temporary build directory";
  EXPECT_THAT(result.diagnostics, Not(HasSubstr("build-")));
  EXPECT_LT(result.diagnostics.size(), 4100u);
  EXPECT_FALSE(fs::exists(result.library)) << "a failed build caches nothing";
  EXPECT_THAT(entries(options_.cache_directory / "cpu"), ::testing::IsEmpty()) << "no leftovers";
}

TEST_F(CpuCompilerTest, TrimKeepsErrorLinesWithContextAndDropsTheTemporaryDirectory) {
  const std::string temporary = "/var/cache/kernelarc/cpu/build-Xy12Zq";
  std::string output;
  output += temporary + "/candidate.cpp: In function 'int kernelarc_run(const DLTensor* const*, int32_t, ...)':\n";
  output += temporary + "/candidate.cpp:7:10: error: 'foo' was not declared in this scope\n";
  output += "    7 |   return foo;\n";
  output += "      |          ^~~\n";
  for (int i = 0; i < 30; ++i) output += "some unrelated chatter line " + std::to_string(i) + "\n";
  output += "/usr/bin/ld: candidate.o: in function `kernelarc_run':\n";
  output += "candidate.cpp:(.text+0x1f): undefined reference to `bar'\n";
  output += "collect2: ld returned 1 exit status\n";

  const std::string trimmed = trim_compiler_output(output, temporary);
  EXPECT_THAT(trimmed, HasSubstr("candidate.cpp:7:10: error: 'foo' was not declared in this scope"));
  EXPECT_THAT(trimmed, HasSubstr("    7 |   return foo;")) << "the context after an error is kept";
  EXPECT_THAT(trimmed, HasSubstr("^~~"));
  EXPECT_THAT(trimmed, HasSubstr("undefined reference to `bar'"));
  EXPECT_THAT(trimmed, Not(HasSubstr(temporary)));
  EXPECT_THAT(trimmed, Not(HasSubstr("build-Xy12Zq")));
  EXPECT_THAT(trimmed, Not(HasSubstr("unrelated chatter line 20"))) << "lines far from any error are dropped";
  EXPECT_LT(trimmed.size(), output.size());
}

TEST_F(CpuCompilerTest, TrimCapsTheLength) {
  std::string output;
  for (int i = 0; i < 2000; ++i) output += "candidate.cpp:" + std::to_string(i + 1) + ":1: error: something went wrong here\n";
  const std::string trimmed = trim_compiler_output(output, "");
  EXPECT_LE(trimmed.size(), 4000u + 32u);
  EXPECT_THAT(trimmed, StartsWith("candidate.cpp:1:1: error: something went wrong here\n")) << "the first error is kept";
  EXPECT_THAT(trimmed, EndsWith("[... trimmed]\n"));
}

TEST_F(CpuCompilerTest, TrimWithoutAnErrorLineKeepsTheHead) {
  std::string output;
  for (int i = 0; i < 100; ++i) output += "candidate.cpp:" + std::to_string(i + 1) + ":1: warning: warning-free line " + std::to_string(i) + "\n";
  const std::string trimmed = trim_compiler_output(output, "");
  EXPECT_THAT(trimmed, StartsWith("candidate.cpp:1:1: warning: warning-free line 0\n"));
  EXPECT_THAT(trimmed, HasSubstr("warning-free line 19\n"));
  EXPECT_THAT(trimmed, Not(HasSubstr("warning-free line 20\n")));
}

// The candidate chooses which file the compiler reads: what the compiler says about any file but the candidate's own
// source (a header it included, an assembler message about a file it pulled in) does not reach the verdict.
TEST_F(CpuCompilerTest, TrimDropsLinesLocatedInOrQuotingOtherFiles) {
  const std::string temporary = "/var/cache/kernelarc/cpu/build-Xy12Zq";
  std::string output;
  output += "In file included from " + temporary + "/candidate.cpp:3:\n";
  output += "                 from " + temporary + "/candidate.cpp:2:\n";
  output += "/home/user/.config/secret.h:1:1: error: 'sk_live_SECRET' does not name a type\n";
  output += "    1 | sk_live_SECRET\n";
  output += "      | ^~~~~~~~~~~~~~\n";
  output += "/home/user/.config/secret.h: In function 'void f()':\n";
  output += "/usr/include/c++/12/bits/stl_vector.h:1234:5: note: candidate: 'SECRET_TWO'\n";
  output += temporary + "/candidate.cpp:9:3: error: 'oops' was not declared in this scope\n";
  output += "    9 |   oops();\n";
  output += "      |   ^~~~\n";
  output += "<command-line>: error: macro names must be identifiers\n";
  output += temporary + "/ccAbCdEf.s: Assembler messages:\n";
  output += temporary + "/ccAbCdEf.s:7: Error: file not found: /etc/hostname\n";
  output += "/etc/hostname:1: Error: no such instruction: `SECRET_THREE'\n";
  output += "SECRET_FOUR printed by something\n";
  output += "compilation terminated.\n";
  const std::string trimmed = trim_compiler_output(output, temporary);
  for (const char* secret : {"SECRET", "secret.h", "stl_vector", "In file included"}) EXPECT_THAT(trimmed, Not(HasSubstr(secret)));
  EXPECT_THAT(trimmed, HasSubstr("candidate.cpp:9:3: error: 'oops' was not declared in this scope\n    9 |   oops();\n      |   ^~~~\n"));
  EXPECT_THAT(trimmed, HasSubstr("<command-line>: error: macro names must be identifiers"));
  EXPECT_THAT(trimmed, HasSubstr("ccAbCdEf.s:7: Error: file not found: /etc/hostname")) << "the candidate's own assembly";
  EXPECT_THAT(trimmed, HasSubstr("compilation terminated."));
  EXPECT_THAT(trimmed, HasSubstr("[9 lines located in or quoting other files dropped]"));
  EXPECT_THAT(trimmed, Not(HasSubstr(temporary)));
}

// A file the candidate must not read (a secret in the user's folder) named by #include or .incbin: the compiler's
// sandbox refuses it, so it is neither in the diagnostics (the verdict's reason) nor in a library.
TEST_F(CpuCompilerTest, FilesOutsideTheCompilersSandboxStayUnread) {
  const fs::path secret = dir_ / "secret.txt";
  write_file_atomically(secret, "kernelarc_secret_5f1c_token here;\n");
  const CpuCompiler compiler(options_);
  const auto included = compiler.build({"#include <kernelarc/candidate_abi.h>\n#include \"" + secret.string() +
                                            "\"\nKERNELARC_CANDIDATE(i, ni, o, no, s) { return 0; }\n",
                                        {},
                                        {}});
  EXPECT_FALSE(included.ok);
  EXPECT_THAT(included.diagnostics, Not(HasSubstr("kernelarc_secret_5f1c_token")));
  const auto embedded = compiler.build({"#include <kernelarc/candidate_abi.h>\nasm(\".section .rodata\\n.incbin \\\"" + secret.string() +
                                            "\\\"\\n.previous\\n\");\nKERNELARC_CANDIDATE(i, ni, o, no, s) { return 0; }\n",
                                        {},
                                        {}});
  EXPECT_THAT(embedded.diagnostics, Not(HasSubstr("kernelarc_secret_5f1c_token")));
  const std::string walls = embedded.sandbox.dump();
  if (walls.find("landlock v") == std::string::npos) GTEST_SKIP() << "no Landlock on this kernel: " << walls;
  EXPECT_FALSE(embedded.ok) << "the assembler read the file: " << embedded.library;
  EXPECT_THAT(embedded.diagnostics, HasSubstr("file not found: " + secret.string()));
}

// The compiler gets PATH and TMPDIR, not the judge's environment (API keys), and reads nothing outside its walls even
// through a program of its own. A stand-in compiler prints what it sees as diagnostics of the candidate's source.
TEST_F(CpuCompilerTest, TheCompilerSeesNeitherTheJudgesEnvironmentNorItsFiles) {
  const fs::path secret = dir_ / "secret.txt";
  write_file_atomically(secret, "kernelarc_secret_file_9d2e\n");
  fs::create_directories(dir_ / "bin");
  const fs::path fake = dir_ / "bin" / "fake-c++";
  write_file_atomically(fake, "#!/bin/sh\n[ \"$1\" = --version ] && { echo fake 1.0; exit 0; }\n"
                              "{ env; cat " + secret.string() + " 2>&1; } | sed 's/^/candidate.cpp:1:1: error: /'\nexit 1\n");
  fs::permissions(fake, fs::perms::owner_all);
  ASSERT_EQ(setenv("KERNELARC_TEST_API_KEY", "sk-kernelarc-test-key", 1), 0);
  CompilerOptions options = options_;
  options.compiler = fake.string();
  const CpuCompiler compiler(options);
  const auto result = compiler.build({answer_source("environment"), {}, {}});
  unsetenv("KERNELARC_TEST_API_KEY");
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.diagnostics, HasSubstr("error: PATH="));
  EXPECT_THAT(result.diagnostics, HasSubstr("error: TMPDIR="));
  EXPECT_THAT(result.diagnostics, Not(HasSubstr("sk-kernelarc-test-key")));
  EXPECT_THAT(result.diagnostics, Not(HasSubstr("HOME=")));
  const std::string walls = result.sandbox.dump();
  if (walls.find("landlock v") == std::string::npos) GTEST_SKIP() << "no Landlock on this kernel: " << walls;
  EXPECT_THAT(result.diagnostics, Not(HasSubstr("kernelarc_secret_file_9d2e")));
  EXPECT_THAT(result.diagnostics, HasSubstr("Permission denied"));
}

TEST_F(CpuCompilerTest, ConcurrentBuildsOfTheSameNewSourceBothSucceedAndLeaveOneLibrary) {
  const CpuCompiler compiler(options_);
  const std::string source = answer_source("concurrent " + std::to_string(std::random_device{}()));
  const BuildRequest request{source, {}, {{"OFFSET", 0}}};
  std::latch start(2);
  BuildResult results[2];
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      results[i] = compiler.build(request);
    });
  for (auto& thread : threads) thread.join();

  for (const auto& result : results) {
    ASSERT_TRUE(result.ok) << result.diagnostics;
    EXPECT_EQ(result.cache_key, results[0].cache_key);
    EXPECT_EQ(result.library, results[0].library);
  }
  const auto names = entries(options_.cache_directory / "cpu");
  EXPECT_THAT(names, ::testing::ElementsAre(results[0].cache_key + ".so")) << "exactly one library, no temporary leftovers";
  EXPECT_EQ(call_entry(results[0].library), 40);
}

TEST_F(CpuCompilerTest, CompilersCreatedConcurrentlyOnAFreshCacheAllWork) {
  // Each compiler writes the ABI header into the cache when it is missing; judges in threads of one process do so
  // at the same moment on a fresh cache.
  for (int attempt = 0; attempt < 10; ++attempt) {
    CompilerOptions options = options_;
    options.cache_directory = dir_ / ("fresh" + std::to_string(attempt));
    constexpr int kThreads = 4;
    std::latch start(kThreads);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        try {
          const CpuCompiler compiler(options);
        } catch (const std::exception& error) {
          errors[i] = error.what();
        }
      });
    for (auto& thread : threads) thread.join();
    for (const auto& error : errors) ASSERT_EQ(error, "") << "attempt " << attempt;
    for (const auto& entry : fs::recursive_directory_iterator(options.cache_directory))
      EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr(".tmp"))) << "a temporary file was left behind";
  }
}

}  // namespace
// Candidates must build where DLPack is not installed (the GPU machine has no dlpack-dev): the cache
// carries both headers the ABI needs, as embedded in the binary, and the compiler finds them there.
TEST(BuildCacheTest, CarriesTheAbiHeaderAndDlpack) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-cache-test-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path root = pattern;
  const kernelarc::judge::BuildCache cache(root);
  const auto include = cache.abi_include_directory();
  EXPECT_EQ(kernelarc::judge::read_text_file(include / "kernelarc" / "candidate_abi.h"), kernelarc::judge::candidate_abi_header());
  // The device code CUDA candidates share travels the same way.
  EXPECT_EQ(kernelarc::judge::read_text_file(include / "kernelarc" / "device.cuh"), kernelarc::judge::device_header());
  EXPECT_NE(kernelarc::judge::device_header().find("namespace kernelarc::device"), std::string_view::npos);
  const std::string dlpack = kernelarc::judge::read_text_file(include / "dlpack" / "dlpack.h");
  EXPECT_EQ(dlpack, kernelarc::judge::dlpack_header());
  EXPECT_NE(dlpack.find("DLTensor"), std::string::npos);
  // The dependency list shows which dlpack.h a candidate's build reads: the cache's, not the system's.
  const fs::path source = root / "probe.cpp";
  kernelarc::judge::write_file_atomically(source, "#include <kernelarc/candidate_abi.h>\n");
  const auto dependencies = kernelarc::common::run_command({"c++", "-M", "-I" + include.string(), source.string()}, std::chrono::seconds(60));
  ASSERT_TRUE(dependencies.ok()) << dependencies.output;
  EXPECT_THAT(dependencies.output, HasSubstr((include / "dlpack" / "dlpack.h").string()));
  EXPECT_THAT(dependencies.output, Not(HasSubstr("/usr/include/dlpack")));
  fs::remove_all(root);
}

}  // namespace

// Builds a CPU candidate into a shared object with the system C++ compiler, through an on-disk cache.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kernelarc::judge {

struct CompilerOptions {
  std::filesystem::path cache_directory;            // empty: default_cache_directory()
  std::string compiler = "c++";
  std::vector<std::string> base_flags = {"-std=c++20", "-O3", "-march=native", "-fPIC", "-shared"};
  std::chrono::milliseconds timeout{120000};
};

struct BuildRequest {
  std::string source;                               // a full C++ source exporting kernelarc_run
  std::vector<std::string> flags;                   // the task's and the candidate's extra flags
  std::map<std::string, std::int64_t> knobs;        // become -DNAME=VALUE
};

struct BuildResult {
  bool ok = false;
  std::filesystem::path library;                    // the cached shared object
  std::string cache_key;
  bool cache_hit = false;
  double seconds = 0;
  std::string diagnostics;                          // the compiler's messages, trimmed to what matters
  std::vector<std::string> command;
  nlohmann::json resources = nlohmann::json::object();  // per kernel: registers, shared memory, spills (CUDA)
};

// $KERNELARC_CACHE_DIR, else $XDG_CACHE_HOME/kernelarc, else ~/.cache/kernelarc.
std::filesystem::path default_cache_directory();

// Keeps the error lines with a little context, drops the temporary paths, caps the length.
std::string trim_compiler_output(const std::string& output, const std::string& temporary_directory);

class CpuCompiler {
 public:
  explicit CpuCompiler(CompilerOptions options = {});
  BuildResult build(const BuildRequest& request) const;
  const std::string& compiler_version() const { return compiler_version_; }

 private:
  CompilerOptions options_;
  std::string compiler_version_;
};

}  // namespace kernelarc::judge

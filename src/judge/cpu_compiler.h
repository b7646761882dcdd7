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
  std::string cuda_architecture;  // a GPU candidate's target ("sm_100a"); empty: the judge's device's (Backend::compile_target)
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
  std::string diagnostics;                          // the compiler's messages about the candidate's own source
  nlohmann::json sandbox;                           // the walls the compiler ran in (null: no compiler ran)
  std::vector<std::string> command;
  nlohmann::json resources = nlohmann::json::object();  // per kernel: registers, shared memory, spills (CUDA)
};

// $KERNELARC_CACHE_DIR, else $XDG_CACHE_HOME/kernelarc, else ~/.cache/kernelarc.
std::filesystem::path default_cache_directory();

// Keeps only the lines about the candidate's own source (its file, named `source_name` or lying in the build's
// temporary folder, and the knobs' -D definitions on the command line) and the compiler programs' own summaries:
// a line located in any other file, or quoting one ("In file included from", a note in a header, an assembler message
// about an included file), is dropped and counted, since the candidate chose which file the compiler read. Then keeps
// the error lines with a little context, drops the temporary paths and caps the length.
std::string trim_compiler_output(const std::string& output, const std::string& temporary_directory,
                                 const std::string& source_name = "candidate.cpp");

// The folders of a compiler's own installation (its bin folder and the prefix's lib, lib64, libexec and include).
std::vector<std::string> compiler_install_paths(const std::string& compiler);

class CpuCompiler {
 public:
  explicit CpuCompiler(CompilerOptions options = {});
  BuildResult build(const BuildRequest& request) const;
  const std::string& compiler_version() const { return compiler_version_; }

 private:
  CompilerOptions options_;
  std::string compiler_version_;
  std::vector<std::string> install_paths_;  // the compiler's own folders, which its sandbox lets it read
};

}  // namespace kernelarc::judge

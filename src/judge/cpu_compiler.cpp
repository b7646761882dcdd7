#include "judge/cpu_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "common/hash.h"
#include "common/subprocess.h"
#include "judge/abi_header.h"
#include "judge/build_cache.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;

fs::path default_cache_directory() {
  if (const char* dir = std::getenv("KERNELARC_CACHE_DIR"); dir && *dir) return dir;
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir && *dir) return fs::path(dir) / "kernelarc";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kernelarc";
  return fs::temp_directory_path() / "kernelarc-cache";
}


std::string trim_compiler_output(const std::string& output, const std::string& temporary_directory) {
  std::string cleaned;
  std::istringstream lines(output);
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line)) {
    for (std::size_t at; !temporary_directory.empty() && (at = line.find(temporary_directory)) != std::string::npos;)
      line.erase(at, temporary_directory.size() + 1);
    all.push_back(line);
  }
  constexpr std::size_t kContextLines = 3;
  constexpr std::size_t kMaxCharacters = 4000;
  std::size_t keep_until = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const bool important = all[i].find("error") != std::string::npos || all[i].find("undefined reference") != std::string::npos;
    if (important) keep_until = i + kContextLines;
    if (important || i < keep_until) cleaned += all[i] + '\n';
  }
  if (cleaned.empty())  // no line said "error": keep the head of what the compiler printed
    for (std::size_t i = 0; i < all.size() && i < 20; ++i) cleaned += all[i] + '\n';
  if (cleaned.size() > kMaxCharacters) cleaned = cleaned.substr(0, kMaxCharacters) + "\n[... trimmed]\n";
  return cleaned;
}

CpuCompiler::CpuCompiler(CompilerOptions options) : options_(std::move(options)) {
  if (options_.cache_directory.empty()) options_.cache_directory = default_cache_directory();
  const auto version = common::run_command({options_.compiler, "--version"}, std::chrono::seconds(30));
  if (!version.ok())
    throw std::runtime_error(fmt::format("the C++ compiler '{}' does not run ({}): {}", options_.compiler,
                                         version.describe(), version.output));
  compiler_version_ = version.output.substr(0, version.output.find('\n'));
  BuildCache cache(options_.cache_directory);  // creates the folders and the ABI header once
}

BuildResult CpuCompiler::build(const BuildRequest& request) const {
  const auto start = std::chrono::steady_clock::now();
  BuildResult result;
  std::vector<std::string> flags = options_.base_flags;
  flags.insert(flags.end(), request.flags.begin(), request.flags.end());
  for (const auto& [name, value] : request.knobs) flags.push_back(fmt::format("-D{}={}", name, value));
  result.cache_key = common::content_hash(fmt::format("{}\n{}\n{}\n{}", compiler_version_, fmt::join(flags, " "),
                                                      std::string(candidate_abi_header()) + std::string(dlpack_header()), request.source));
  const BuildCache cache(options_.cache_directory);
  result.library = cache.entry("cpu", result.cache_key, "so");
  const auto finish = [&]() {
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (fs::exists(result.library)) {
    result.ok = true;
    result.cache_hit = true;
    return finish();
  }
  const fs::path work = cache.make_work_directory("cpu");
  write_file_atomically(work / "candidate.cpp", request.source);
  result.command = {options_.compiler};
  result.command.insert(result.command.end(), flags.begin(), flags.end());
  for (const auto& part : {std::string("-I") + cache.abi_include_directory().string(), std::string("-o"),
                           (work / "candidate.so").string(), (work / "candidate.cpp").string()})
    result.command.push_back(part);
  const auto compiled = common::run_command(result.command, options_.timeout);
  if (compiled.ok()) {
    cache.publish(work / "candidate.so", result.library);
    result.ok = true;
  } else {
    result.diagnostics = trim_compiler_output(compiled.output, work.string());
    if (compiled.timed_out) result.diagnostics = fmt::format("compiler timed out after {} ms\n{}", options_.timeout.count(), result.diagnostics);
  }
  std::error_code ignored;
  fs::remove_all(work, ignored);
  return finish();
}

}  // namespace kernelarc::judge

// Where the judge's benchmarks find their tasks, the kernelarc binary and a scratch folder: compiled-in paths,
// overridable when the benchmark runs from a bundle on another machine (scripts/device run).
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace kernelarc::bench {

inline std::filesystem::path bench_tasks() {
  const char* root = std::getenv("KERNELARC_SOURCE_ROOT");
  return root ? std::filesystem::path(root) / "bench" / "tasks" : std::filesystem::path(KERNELARC_BENCH_TASKS);
}

inline std::filesystem::path kernelarc_binary() {
  const char* bundled = std::getenv("KERNELARC_TEST_BINARY");
  return bundled ? std::filesystem::path(bundled) : std::filesystem::path(KERNELARC_BINARY);
}

// One folder per process, made at first use.
inline std::filesystem::path scratch() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "kernelarc-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp");
    return std::filesystem::path(pattern);
  }();
  return dir;
}

}  // namespace kernelarc::bench

// Builds CUDA candidates through the on-disk cache: kernel-only sources with NVRTC to a cubin (tens
// of milliseconds, what the built-in search uses), full sources with nvcc to a shared object.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "judge/cpu_compiler.h"

namespace kernelarc::judge::cuda {

struct CudaCompilerOptions {
  std::filesystem::path cache_directory;          // empty: default_cache_directory()
  std::filesystem::path toolkit = "/usr/local/cuda";
  std::string architecture = "sm_90a";            // wgmma and setmaxnreg need the "a" target
  std::chrono::milliseconds timeout{180000};
};

// The target a device of compute capability major.minor runs: "sm_90a" (9.0, Hopper), "sm_100a" (10.0, a B200),
// "sm_86" (8.6): the "a" target from Hopper on, whose architecture-specific instructions (wgmma, tcgen05) the
// templates use; a cubin of one is refused by a device of another.
std::string architecture_for(int major, int minor);

struct CudaBuildRequest {
  std::string source;
  std::vector<std::string> flags;                 // extra NVRTC or nvcc options
  std::map<std::string, std::int64_t> knobs;      // become -DNAME=VALUE
};

class CudaCompiler {
 public:
  explicit CudaCompiler(CudaCompilerOptions options = {});

  // Kernel-only source: extern "C" __global__ functions, launched by the judge. Result: a .cubin.
  BuildResult build_kernel(const CudaBuildRequest& request) const;
  // Full source: a host launcher exporting kernelarc_run plus its kernels. Result: a .so.
  BuildResult build_library(const CudaBuildRequest& request) const;

  const std::string& nvrtc_version() const { return nvrtc_version_; }

 private:
  CudaCompilerOptions options_;
  std::string nvrtc_version_;
  std::string nvcc_version_;
  std::filesystem::path include_directory_;
};

}  // namespace kernelarc::judge::cuda

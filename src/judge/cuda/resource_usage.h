// Per-kernel resource usage as ptxas reports it (-v): registers, shared memory, spills, stack, serialised wgmma.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace kernelarc::judge::cuda {

struct KernelResources {
  int registers = 0;
  int shared_bytes = 0;       // static shared memory
  int stack_bytes = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int barriers = 0;
  bool wgmma_serialized = false;  // ptxas C7514: each wgmma waited for, so the tensor cores' pipeline is lost
};

// Kernel name -> resources, from ptxas's verbose output (NVRTC's log or nvcc's stderr).
std::map<std::string, KernelResources> parse_ptxas_report(const std::string& report);

nlohmann::json to_json(const std::map<std::string, KernelResources>& resources);

}  // namespace kernelarc::judge::cuda

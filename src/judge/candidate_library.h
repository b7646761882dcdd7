// A candidate's shared object as a worker holds it: opened with dlopen, its entry point looked up, closed
// before the next one. Shared by the CPU and the GPU worker.
#pragma once

#include <string>

#include "kernelarc/candidate_abi.h"

namespace kernelarc::judge {

class CandidateLibrary {
 public:
  CandidateLibrary() = default;
  CandidateLibrary(const CandidateLibrary&) = delete;
  CandidateLibrary& operator=(const CandidateLibrary&) = delete;
  ~CandidateLibrary() { close(); }

  // Closes any library held, then opens `path`. Returns "" on success, else what went wrong, for the agent.
  std::string open(const std::string& path);
  void close();
  kernelarc_entry_fn entry() const { return entry_; }

 private:
  void* handle_ = nullptr;
  kernelarc_entry_fn entry_ = nullptr;
};

}  // namespace kernelarc::judge

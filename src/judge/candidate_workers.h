// The workers that judge one candidate, each with its load request: the candidate's own (or the GPU's kernel-only worker,
// kept) and the reference's own (or the oracle, kept). Its own folder comes first: removed after its worker has stopped.
// Made by Judge::set_up_workers, for an evaluation (judge/judge.cpp) or a paired measurement (judge/paired_timing.cpp).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

#include "judge/worker_session.h"

namespace kernelarc::judge {

struct CandidateWorkers {
  struct RemovedAtEnd : std::filesystem::path {
    using std::filesystem::path::path;
    ~RemovedAtEnd() {
      std::error_code ignored;
      std::filesystem::remove_all(*this, ignored);
    }
  };
  std::optional<RemovedAtEnd> own_folder;
  std::unique_ptr<WorkerSession> own_candidate, own_reference;
  WorkerSession* candidate = nullptr;
  WorkerSession* reference = nullptr;
};

}  // namespace kernelarc::judge

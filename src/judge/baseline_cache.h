// T_b measured through the oracle, kept on disk, so another process (a resumed run, the next eval) scores a workload
// against the same baseline instead of a new measurement. One small JSON file per key.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kernelarc::judge {

struct CachedBaseline {
  double ns = 0;
  std::string source;  // "torch eager" or "torch.compile"
};

// What a baseline depends on: the task's content, the workload, where it ran, the torch that ran it, and the protocol.
struct BaselineKey {
  std::string task_hash, workload_uuid, device, device_name, torch_version;
  int warmup = 0, iterations = 0;
  std::size_t flush_bytes = 0;
  std::string hash() const;
};

class BaselineCache {
 public:
  explicit BaselineCache(std::filesystem::path directory) : directory_(std::move(directory)) {}
  // Nothing for a missing or damaged entry: it is measured again.
  std::optional<CachedBaseline> find(const BaselineKey& key) const;
  // Written whole or not at all (a temporary file renamed); a failure to write is not an error of the judge.
  void store(const BaselineKey& key, const CachedBaseline& baseline) const;
  const std::filesystem::path& directory() const { return directory_; }

 private:
  std::filesystem::path directory_;
};

}  // namespace kernelarc::judge

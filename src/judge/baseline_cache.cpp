#include "judge/baseline_cache.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/hash.h"
#include "judge/build_cache.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;
using nlohmann::json;

std::string BaselineKey::hash() const {
  return common::content_hash(fmt::format("{}\n{}\n{}\n{}\n{}\n{} {} {}", task_hash, workload_uuid, device, device_name, torch_version, warmup,
                                          iterations, flush_bytes));
}

std::optional<CachedBaseline> BaselineCache::find(const BaselineKey& key) const {
  std::ifstream in(directory_ / (key.hash() + ".json"));
  if (!in) return std::nullopt;
  try {
    const json entry = json::parse(in);
    CachedBaseline baseline{entry.at("ns").get<double>(), entry.at("source").get<std::string>()};
    if (!(baseline.ns > 0)) return std::nullopt;
    return baseline;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void BaselineCache::store(const BaselineKey& key, const CachedBaseline& baseline) const {
  // A cache that cannot be written costs a re-measurement only: any failure is dropped.
  try {
    fs::create_directories(directory_);
    write_file_atomically(directory_ / (key.hash() + ".json"),
                          json{{"ns", baseline.ns}, {"source", baseline.source}, {"workload", key.workload_uuid}, {"device", key.device},
                               {"device_name", key.device_name}, {"torch", key.torch_version}, {"warmup", key.warmup},
                               {"iterations", key.iterations}, {"flush_bytes", key.flush_bytes}}
                              .dump(1));
  } catch (const std::exception&) {
  }
}

}  // namespace kernelarc::judge

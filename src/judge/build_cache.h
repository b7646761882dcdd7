// The on-disk cache of built candidates, shared by every compiler and safe across processes: a
// build happens in a private folder and is renamed into place, so no one sees half a file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kernelarc::judge {

class BuildCache {
 public:
  explicit BuildCache(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  // root/kind/key.extension (kind: "cpu", "cuda").
  std::filesystem::path entry(std::string_view kind, std::string_view key, std::string_view extension) const;
  // A fresh private folder under root/kind for one build; the caller removes it.
  std::filesystem::path make_work_directory(std::string_view kind) const;
  // Moves a finished build into its entry (atomic; the last of two racing builders wins, both are complete).
  void publish(const std::filesystem::path& built, const std::filesystem::path& entry) const;
  // A folder holding kernelarc/candidate_abi.h, kernelarc/device.cuh and dlpack/dlpack.h as embedded in this binary,
  // named by their content.
  const std::filesystem::path& abi_include_directory() const { return abi_include_; }

 private:
  std::filesystem::path root_;
  std::filesystem::path abi_include_;
};

// Writes through a uniquely named temporary file and a rename; on failure throws and leaves no temporary file.
void write_file_atomically(const std::filesystem::path& target, std::string_view content);

// The whole file; throws std::runtime_error naming it when it cannot be read.
std::string read_text_file(const std::filesystem::path& file);

}  // namespace kernelarc::judge

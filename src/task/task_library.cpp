#include "task/task_library.h"

#include <algorithm>

namespace kernelarc::task {

std::vector<std::filesystem::path> task_directories(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> directories;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(root, error))
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "definition.json")) directories.push_back(entry.path());
  std::sort(directories.begin(), directories.end());
  return directories;
}

}  // namespace kernelarc::task

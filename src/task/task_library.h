// A folder of tasks (the built-in library, or any like it): one task per sub-folder with a definition.json.
#pragma once

#include <filesystem>
#include <vector>

namespace kernelarc::task {

// The task folders directly under `root`, sorted by name; empty when `root` is not a folder.
std::vector<std::filesystem::path> task_directories(const std::filesystem::path& root);

}  // namespace kernelarc::task

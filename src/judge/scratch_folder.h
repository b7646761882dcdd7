#pragma once
// The judge's private folder for shared buffers, logs and the candidate's files, usually in /dev/shm, where what is
// left behind is memory nobody gets back. A folder is held by its owner through a lock on a file inside it; the kernel
// drops the lock when the owner dies however it dies (SIGKILL included), so the next judge to start removes the
// folders of owners that are gone.
#include <filesystem>
#include <string>
#include <vector>

namespace kernelarc::judge {

class ScratchFolder {
 public:
  // Creates base/kernelarc-judge-XXXXXX and takes its lock, after sweeping base of dead owners' folders.
  explicit ScratchFolder(const std::filesystem::path& base);
  ~ScratchFolder();  // removes the folder
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int lock_fd_ = -1;
};

// Removes base's judge folders whose owner is gone: its lock is free, or it has no lock file and is older than a
// minute (a folder of a KernelArc from before the locks, or one whose owner died between creating and locking it).
// Returns the folders removed.
std::vector<std::filesystem::path> sweep_abandoned_scratch_folders(const std::filesystem::path& base);

}  // namespace kernelarc::judge

#include "judge/scratch_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace kernelarc::judge {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "kernelarc-judge-";
constexpr const char* kLockFile = "owner.lock";

// True when nobody holds the folder's lock (its owner is dead); false while the owner lives or when unsure.
bool owner_is_gone(const fs::path& folder) {
  const int fd = ::open((folder / kLockFile).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno != ENOENT) return false;
    std::error_code error;
    const auto modified = fs::last_write_time(folder, error);
    return !error && fs::file_time_type::clock::now() - modified > std::chrono::minutes(1);
  }
  const bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);  // releases the lock if this call took it
  return free;
}

}  // namespace

std::vector<fs::path> sweep_abandoned_scratch_folders(const fs::path& base) {
  std::vector<fs::path> removed;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(base, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kPrefix) || !entry.is_directory(error) || entry.is_symlink(error)) continue;
    if (!owner_is_gone(entry.path())) continue;
    std::error_code ignored;
    if (fs::remove_all(entry.path(), ignored) > 0) removed.push_back(entry.path());
  }
  return removed;
}

ScratchFolder::ScratchFolder(const fs::path& base) {
  fs::create_directories(base);
  sweep_abandoned_scratch_folders(base);
  std::string pattern = (base / (std::string(kPrefix) + "XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error(fmt::format("cannot create a scratch folder in {}: {}", base.string(), std::strerror(errno)));
  path_ = pattern;
  // Locked under another name, then renamed: a sweeper never sees an owner.lock that nobody holds yet.
  const fs::path unlocked = path_ / (std::string(kLockFile) + ".new");
  lock_fd_ = ::open(unlocked.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (lock_fd_ < 0 || flock(lock_fd_, LOCK_EX) != 0 || ::rename(unlocked.c_str(), (path_ / kLockFile).c_str()) != 0) {
    const std::string why = std::strerror(errno);
    if (lock_fd_ >= 0) ::close(lock_fd_);
    std::error_code ignored;
    fs::remove_all(path_, ignored);
    throw std::runtime_error(fmt::format("cannot lock the scratch folder {}: {}", path_.string(), why));
  }
}

ScratchFolder::~ScratchFolder() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  ::close(lock_fd_);
}

}  // namespace kernelarc::judge

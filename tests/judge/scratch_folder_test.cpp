// The judge's scratch folder lives in memory (/dev/shm): a judge killed with SIGKILL must not leave it there for good.
// Real processes: an owner is forked, holds a folder, and is killed; the next folder created sweeps what it left.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "judge/scratch_folder.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;

class ScratchFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-scratch-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    base_ = pattern;
  }
  void TearDown() override { fs::remove_all(base_); }

  // A child process that makes a folder with a file in it, says its path and waits to be killed.
  fs::path folder_of_a_child(pid_t& pid) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    pid = fork();
    if (pid == 0) {
      close(fds[0]);
      ScratchFolder folder(base_);
      std::ofstream(folder.path() / "w0-candidate.buf") << std::string(4096, 'x');
      const std::string path = folder.path().string() + "\n";
      (void)!write(fds[1], path.data(), path.size());
      pause();
      _exit(0);
    }
    close(fds[1]);
    std::string path;
    char c;
    while (read(fds[0], &c, 1) == 1 && c != '\n') path += c;
    close(fds[0]);
    return path;
  }

  fs::path base_;
};

TEST_F(ScratchFolderTest, ALiveOwnersFolderIsKeptAndAKilledOwnersIsRemovedByTheNextJudge) {
  pid_t pid = 0;
  const fs::path theirs = folder_of_a_child(pid);
  ASSERT_TRUE(fs::exists(theirs / "w0-candidate.buf"));
  {
    ScratchFolder mine(base_);
    EXPECT_TRUE(fs::exists(theirs)) << "a folder whose owner is alive is never swept";
    EXPECT_NE(mine.path(), theirs);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(fs::exists(theirs)) << "nothing ran to remove it: SIGKILL";
  ScratchFolder next(base_);
  EXPECT_FALSE(fs::exists(theirs)) << "the next judge removes a dead owner's folder";
  EXPECT_TRUE(fs::exists(next.path()));
}

TEST_F(ScratchFolderTest, AFolderIsRemovedWithItsOwner) {
  fs::path path;
  {
    ScratchFolder folder(base_);
    path = folder.path();
    std::ofstream(path / "e1-candidate.log") << "log";
    EXPECT_TRUE(fs::exists(path / "owner.lock"));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(ScratchFolderTest, AnUnlockedFolderIsSweptOnlyOnceItIsAMinuteOld) {
  const fs::path young = base_ / "kernelarc-judge-young1", old = base_ / "kernelarc-judge-old123", other = base_ / "someone-elses";
  for (const auto& folder : {young, old, other}) fs::create_directories(folder);
  const auto two_minutes_ago = fs::file_time_type::clock::now() - std::chrono::minutes(2);
  fs::last_write_time(old, two_minutes_ago);
  fs::last_write_time(other, two_minutes_ago);
  const auto removed = sweep_abandoned_scratch_folders(base_);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0], old) << "a folder from before the locks, or whose owner died before locking it";
  EXPECT_TRUE(fs::exists(young)) << "its owner may be about to lock it";
  EXPECT_TRUE(fs::exists(other)) << "only the judge's own folders are touched";
}

}  // namespace
}  // namespace kernelarc::judge

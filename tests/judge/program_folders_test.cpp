#include "judge/compiler_sandbox.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;

// The oracle's walls let a torch extension's build run ninja where PATH finds it: pip puts ninja beside the interpreter
// (a virtual environment's bin/), often as a link into site-packages, neither of which is a system folder.
class ProgramFoldersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kernelarc-program-folders-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "venv" / "bin");
    fs::create_directories(root_ / "site" / "ninja" / "bin");
    fs::create_directories(root_ / "empty");
    std::ofstream(root_ / "site" / "ninja" / "bin" / "ninja") << "#!/bin/sh\n";
    fs::permissions(root_ / "site" / "ninja" / "bin" / "ninja", fs::perms::owner_all);
    fs::create_symlink(root_ / "site" / "ninja" / "bin" / "ninja", root_ / "venv" / "bin" / "ninja");
    std::ofstream(root_ / "empty" / "c++") << "not executable\n";
    const char* path = std::getenv("PATH");
    saved_ = path ? path : "";
  }
  void TearDown() override {
    ::setenv("PATH", saved_.c_str(), 1);
    fs::remove_all(root_);
  }
  fs::path root_;
  std::string saved_;
};

TEST_F(ProgramFoldersTest, TheFolderPathFindsAProgramInAndItsRealFilesFolder) {
  const std::string path = "relative/bin:" + (root_ / "empty").string() + ":" + (root_ / "venv" / "bin").string();
  ::setenv("PATH", path.c_str(), 1);
  const auto folders = program_folders({"ninja", "c++", "no-such-program"});
  ASSERT_EQ(folders.size(), 2u) << ::testing::PrintToString(folders);
  EXPECT_EQ(folders[0], (root_ / "venv" / "bin").string());
  EXPECT_EQ(folders[1], fs::canonical(root_ / "site" / "ninja" / "bin").string());
}

TEST_F(ProgramFoldersTest, ARelativeFolderOnPathIsNeverOpened) {
  fs::create_directories(root_ / "here");
  std::ofstream(root_ / "here" / "ninja") << "#!/bin/sh\n";
  fs::permissions(root_ / "here" / "ninja", fs::perms::owner_all);
  const fs::path before = fs::current_path();
  fs::current_path(root_);
  ::setenv("PATH", "here", 1);
  const auto folders = program_folders({"ninja"});
  fs::current_path(before);
  EXPECT_TRUE(folders.empty()) << ::testing::PrintToString(folders);
}

}  // namespace
}  // namespace kernelarc::judge

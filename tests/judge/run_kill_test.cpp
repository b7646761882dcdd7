// `kernelarc run` killed with SIGKILL in the middle, then `kernelarc run --resume`: no judged candidate and no
// conclusion is lost, nothing is judged twice, and the run finishes. Real processes, a real store file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "judge/scratch_folder.h"
#include "store/store.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(RunKillTest, ARunKilledMidwayResumesWithoutLosingOrRepeatingAnything) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-run-kill-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern, db = dir / "runs.db";
  const std::string binary = KERNELARC_BINARY, store_path = db.string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The quick fixture task with the peaks given (no calibration): softmax's 16 workloads took 40 s a run for the same checks.
    execl(binary.c_str(), binary.c_str(), "run", KERNELARC_GRID_TASK, "--agents", "2", "--budget", "10", "--rounds", "1", "--warmup", "1",
          "--iterations", "3", "--cpu-bandwidth", "20", "--cpu-gflops", "100", "--seed", "9", "--quiet", "--store", store_path.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for two judged candidates, then kill the orchestrator without warning.
  std::int64_t run_id = 0;
  std::vector<std::int64_t> before;
  const auto deadline = std::chrono::steady_clock::now() + 300s;
  while (std::chrono::steady_clock::now() < deadline && before.size() < 2) {
    std::this_thread::sleep_for(100ms);
    if (!fs::exists(db)) continue;
    auto store = store::Store::open(db);
    const auto runs = store.runs();
    if (runs.empty()) continue;
    run_id = runs.front().id;
    before.clear();
    for (const auto& c : store.candidates(run_id)) before.push_back(c.id);
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it could be killed";
  ASSERT_GE(before.size(), 2u);
  std::size_t conclusions_before = 0;
  {
    auto store = store::Store::open(db);
    ASSERT_EQ(store.run(run_id)->status, "running");
    conclusions_before = store.conclusions("copy_grid").size();
    before.clear();
    for (const auto& c : store.candidates(run_id)) before.push_back(c.id);
  }

  const std::string resume = binary + " run --resume " + std::to_string(run_id) + " --rounds 1 --warmup 1 --iterations 3 --quiet --store " +
                             store_path + " > " + (dir / "resume.txt").string() + " 2>&1";
  EXPECT_EQ(std::system(resume.c_str()), 0);

  auto store = store::Store::open(db);
  EXPECT_EQ(store.run(run_id)->status, "finished");
  const auto after = store.candidates(run_id);
  ASSERT_GE(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i].id, before[i]) << "a candidate judged before the kill";
  std::set<std::string> configurations;
  for (const auto& c : after) EXPECT_TRUE(configurations.insert(c.knobs_json).second) << "judged twice: " << c.knobs_json;
  const auto conclusions = store.conclusions("copy_grid");
  EXPECT_GE(conclusions.size(), conclusions_before);
  EXPECT_EQ(conclusions.size(), after.size() - 1) << "one conclusion per candidate after the start";
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

// Twenty SIGKILLs at random moments (while judging, recording, starting, resuming), each followed by --resume: every
// candidate and conclusion seen in the store before a kill is still there after it, nothing is judged twice, and the
// last resume finishes the budget. A fixture task of 64 quick configurations (60 judged) keeps each candidate under a
// second; a run that finishes before the twentieth kill is followed by another, so a fast machine kills as often, and a slow one waits longer between kills until they fall mid-judging.
TEST(RunKillTest, TwentyKillsAtRandomMomentsLoseNothing) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-run-kills-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern, db = dir / "runs.db";
  const std::string binary = KERNELARC_BINARY;
  constexpr std::size_t kBudget = 60;
  ASSERT_EQ(setenv("KERNELARC_CACHE_DIR", (dir / "cache").c_str(), 1), 0);  // builds as slow as the first time
  const fs::path scratch = dir / "scratch";  // where each judge keeps its buffers: a killed one leaves its folder here
  ASSERT_EQ(setenv("KERNELARC_SCRATCH_DIR", scratch.c_str(), 1), 0);
  // Peaks given: a calibration at every start would take the time the kills should fall in.
  const std::vector<std::string> protocol = {"--rounds", "1", "--warmup", "1", "--iterations", "3", "--cpu-bandwidth", "20", "--cpu-gflops", "100",
                                             "--quiet", "--store", db.string()};
  std::mt19937 random(20261203);
  int longest_delay_ms = 1500;  // grows on a slow machine until kills fall while candidates are being judged

  const auto start = [&](std::vector<std::string> argv) {
    argv.insert(argv.end(), protocol.begin(), protocol.end());
    const pid_t pid = fork();
    if (pid == 0) {
      const int null_fd = open("/dev/null", O_WRONLY);
      dup2(null_fd, STDOUT_FILENO);
      dup2(null_fd, STDERR_FILENO);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    return pid;
  };
  std::vector<std::int64_t> runs;  // every run started, in order; the last may be unfinished
  std::int64_t run_id = 0;
  std::set<std::int64_t> candidates_seen, conclusions_seen;
  int kills = 0, judged_at_kills = 0;
  while (kills < 20) {
    const pid_t pid = run_id == 0 ? start({binary, "run", KERNELARC_GRID_TASK, "--agents", "2", "--budget", std::to_string(kBudget), "--seed",
                                           std::to_string(3 + runs.size())})
                                  : start({binary, "run", "--resume", std::to_string(run_id)});
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(150, longest_delay_ms)(random)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    kills += WIFSIGNALED(status);
    if (!fs::exists(db)) continue;
    auto store = store::Store::open(db);
    if (run_id == 0) {
      const auto all = store.runs();
      if (all.empty() || (!runs.empty() && all.front().id == runs.back())) continue;  // killed before it wrote its run
      run_id = all.front().id;
      runs.push_back(run_id);
      candidates_seen.clear(), conclusions_seen.clear();
    }
    std::set<std::int64_t> candidates, conclusions;
    std::set<std::string> configurations;
    for (const auto& c : store.candidates(run_id)) {
      candidates.insert(c.id);
      EXPECT_TRUE(configurations.insert(c.knobs_json).second) << "judged twice: " << c.knobs_json << " after kill " << kills;
    }
    for (const auto& c : store.conclusions("copy_grid"))
      if (c.run_id == run_id) conclusions.insert(c.id);
    for (const auto id : candidates_seen) EXPECT_TRUE(candidates.count(id)) << "candidate " << id << " lost at kill " << kills;
    for (const auto id : conclusions_seen) EXPECT_TRUE(conclusions.count(id)) << "conclusion " << id << " lost at kill " << kills;
    judged_at_kills += static_cast<int>(candidates.size() - candidates_seen.size());
    if (candidates.size() == candidates_seen.size()) longest_delay_ms = std::min(longest_delay_ms * 5 / 4, 15000);
    candidates_seen = candidates;
    conclusions_seen = conclusions;
    if (store.run(run_id)->status != "running") run_id = 0;  // finished before it was killed: the next kill goes to a new run
  }
  unsetenv("KERNELARC_CACHE_DIR");
  EXPECT_GE(kills, 20);
  ASSERT_FALSE(runs.empty());
  EXPECT_GT(judged_at_kills, 2) << "the kills fell while candidates were being judged, not only at start-up";
  if (run_id != 0) {
    const std::string resume = binary + " run --resume " + std::to_string(run_id) + " --rounds 1 --warmup 1 --iterations 3 --quiet --store " +
                               db.string() + " > /dev/null 2>&1";
    EXPECT_EQ(std::system(resume.c_str()), 0);
  }
  unsetenv("KERNELARC_SCRATCH_DIR");
  // Each start swept what the kill before it left; the last finished run removed its own.
  const auto folders_left = [&] { return std::distance(fs::directory_iterator(scratch), fs::directory_iterator{}); };
  EXPECT_LE(folders_left(), run_id != 0 ? 0 : 1) << "the killed judges' scratch folders (memory, in /dev/shm) were left behind";
  judge::sweep_abandoned_scratch_folders(scratch);
  EXPECT_EQ(folders_left(), 0);
  auto store = store::Store::open(db);
  for (const auto id : runs) {
    EXPECT_EQ(store.run(id)->status, "finished") << "run " << id;
    const auto after = store.candidates(id);
    EXPECT_EQ(after.size(), kBudget) << "run " << id << ": the budget, judged once each";
    std::set<std::string> configurations;
    for (const auto& c : after) EXPECT_TRUE(configurations.insert(c.knobs_json).second) << "run " << id << " judged twice: " << c.knobs_json;
    std::size_t conclusions = 0;
    for (const auto& c : store.conclusions("copy_grid")) conclusions += c.run_id == id;
    EXPECT_EQ(conclusions, after.size() - 1) << "run " << id << ": one conclusion per candidate after the start";
  }
  std::cerr << kills << " kills over " << runs.size() << " run(s); " << judged_at_kills << " candidates judged between kills; delays up to "
            << longest_delay_ms << " ms\n";
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

}  // namespace
}  // namespace kernelarc

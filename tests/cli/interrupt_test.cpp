// Ctrl-C (SIGINT) or SIGTERM in the middle of `kernelarc run`: the run stops after the candidate being judged, says
// how to resume, exits 130 and is marked "interrupted"; `--resume ID` goes on, and `--resume ID --budget N` gives a
// finished run more candidates (issue 27). A resume never makes a store to say there is no such run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "common/subprocess.h"
#include "store/store.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(InterruptTest, ASignalStopsTheRunCleanlyAndAFinishedRunCanBeGivenMoreBudget) {
  const fs::path dir = fs::temp_directory_path() / ("kernelarc-interrupt-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "runs.db").string();
  const std::string protocol = " --rounds 1 --warmup 1 --iterations 3 --cpu-bandwidth 20 --cpu-gflops 100 --quiet";
  ASSERT_EQ(setenv("KERNELARC_CACHE_DIR", (dir / "cache").c_str(), 1), 0);
  for (const char* signal : {"INT", "TERM"}) {
    fs::remove(db);
    // Sent once the first candidate is in the store: the run must then stop before its budget of 40.
    const std::string script = std::string("\"") + KERNELARC_BINARY + "\" run " + KERNELARC_GRID_TASK + " --agents 2 --budget 40 --seed 5 --store " +
                               db + protocol + " & pid=$!; while ! \"" + KERNELARC_BINARY + "\" runs --store " + db +
                               " --format csv 2>/dev/null | grep -qE ',running,.*,[1-9][0-9]*,40,'; do sleep 0.2; done; kill -" + signal +
                               " $pid; wait $pid; echo \"exit code $?\"";
    const auto stopped = common::run_command({"sh", "-c", script}, std::chrono::minutes(4));
    EXPECT_THAT(stopped.output, HasSubstr("kernelarc run: stopping after the candidate being judged (Ctrl-C again to stop at once)\n"));
    EXPECT_THAT(stopped.output, HasSubstr("continue it with: kernelarc run --resume 1 --store " + db + "\n"));
    EXPECT_THAT(stopped.output, HasSubstr("exit code 130"));
    auto store = store::Store::open_existing(db);
    EXPECT_EQ(store.run(1)->status, "interrupted") << signal;
    EXPECT_LT(store.candidates(1).size(), 40u);
  }
  const std::vector<std::string> resume = {KERNELARC_BINARY, "run", "--resume", "1", "--store", db, "--rounds", "1", "--warmup", "1",
                                           "--iterations", "3", "--quiet", "--budget"};
  auto extended = resume;
  extended.push_back("4");
  auto result = common::run_command(extended, std::chrono::minutes(4));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(store::Store::open_existing(db).run(1)->status, "finished");
  EXPECT_EQ(store::Store::open_existing(db).candidates(1).size(), 4u);
  // Finished: only a larger budget takes it further.
  result = common::run_command({KERNELARC_BINARY, "run", "--resume", "1", "--store", db}, std::chrono::minutes(1));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "kernelarc run: run 1 is finished; give it a larger --budget to go on (kernelarc run --resume 1 --budget N)\n");
  extended.back() = "6";
  result = common::run_command(extended, std::chrono::minutes(4));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(store::Store::open_existing(db).candidates(1).size(), 6u);
  const auto listed = common::run_command({KERNELARC_BINARY, "runs", "--store", db, "--format", "csv"}, std::chrono::minutes(1));
  EXPECT_THAT(listed.output, HasSubstr(",6,6,"));
  // No store, no run: said without making one.
  const std::string missing = (dir / "nonexistent.db").string();
  result = common::run_command({KERNELARC_BINARY, "run", "--resume", "999", "--store", missing}, std::chrono::minutes(1));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "kernelarc run: there is no run store at " + missing + ", so no run 999 to resume (give --store, or set KERNELARC_STORE)\n");
  EXPECT_FALSE(fs::exists(missing));
  // A store that cannot be written is said before any judging.
  result = common::run_command({KERNELARC_BINARY, "eval", "softmax", "--store", "/proc/runs.db"}, std::chrono::minutes(1));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "kernelarc eval: cannot use the store /proc/runs.db: open /proc/runs.db: unable to open database file\n");
  result = common::run_command({KERNELARC_BINARY, "eval", "softmax", "--store", (dir / "no" / "such" / "runs.db").string()}, std::chrono::minutes(1));
  EXPECT_EQ(result.output, "kernelarc eval: cannot use the store " + (dir / "no/such/runs.db").string() + ": the folder " +
                               (dir / "no/such").string() + " does not exist (create it, or give another --store)\n");
  EXPECT_FALSE(fs::exists(dir / "no"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kernelarc

// What a user reads while and after work runs (issue 27): one candidate numbering (the store's) in the log's progress
// lines, the summary, `runs` and `export --candidate`; speed ratios said as "2.00x faster" or "0.50x slower", never a
// signed percentage; times in the unit their size calls for; workloads done out of all with the time left for `eval`;
// the machine's load read before and after timing, with a warning in the verdict when it moved. The binary run as a user
// runs it (stderr not a terminal: plain lines), each line asserted whole, numbers as patterns.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "common/subprocess.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kTime = "[0-9]+(\\.[0-9][0-9])? (ns|us|ms|s)";  // "812 ns", "3.41 us", "9.41 ms", "1.20 s"
constexpr const char* kRatio = "[0-9]+\\.[0-9][0-9]x (faster|slower)";

class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kernelarc-progress-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_EQ(setenv("KERNELARC_CACHE_DIR", (dir_ / "cache").c_str(), 1), 0);
    unsetenv("KERNELARC_STORE");
    unsetenv("KERNELARC_LOADAVG");
  }
  void TearDown() override { fs::remove_all(dir_); }

  struct Output {
    int exit_code = 0;
    std::string out, err;
  };
  // `arguments` after the binary, through the shell; stdout and stderr apart.
  Output kernelarc(const std::string& arguments, const std::string& environment = "") {
    const std::string script = environment + " \"" + KERNELARC_BINARY + "\" " + arguments + " >" + (dir_ / "out").string() + " 2>" +
                               (dir_ / "err").string();
    const auto result = common::run_command({"sh", "-c", script}, std::chrono::minutes(5));
    return {result.exit_code, read(dir_ / "out"), read(dir_ / "err")};
  }
  static std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(ProgressTest, OneCandidateNumberingAndRatiosFromTheLogToTheExport) {
  const std::string db = (dir_ / "runs.db").string();
  // A first evaluation in the store: the run's candidates then do not start at 1, as in any store used before.
  ASSERT_EQ(kernelarc("eval softmax --workload softmax-2x2 --correctness-only --quiet --store " + db).exit_code, 0);
  const auto run = kernelarc(std::string("run ") + KERNELARC_GRID_TASK + " --agents 2 --budget 5 --seed 5 --rounds 1 --warmup 1 --iterations 3 " +
                             "--cpu-bandwidth 20 --cpu-gflops 100 --store " + db);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The log: judged out of the budget, then the store's id of the candidate.
  EXPECT_THAT(run.err, HasSubstr("run 2: judging the starting candidate (grid)\n"));
  EXPECT_THAT(run.err, ContainsRegex(std::string("\n  \\[1/5\\] candidate 2 by start: first \\(") + kTime + "\\) copy_grid.grid.CHUNK1_SPIN_US80\n"));
  EXPECT_THAT(run.err, ContainsRegex(std::string("\n  \\[2/5\\] candidate 3 by agent-[12]: [a-z]+ \\(") + kTime + ", " + kRatio +
                                     " than the incumbent.*\\) copy_grid.grid.[A-Z0-9_]+\n"));
  EXPECT_THAT(run.err, ContainsRegex(std::string("\nstatus: 1/5 judged in [0-9]+s, about [0-9ms]+ left; incumbent ") + kTime +
                                     " \\(candidate 2\\), the start, [0-9.]+% of the roofline; board 0 entries; 0 plateaus\n"));
  EXPECT_THAT(run.err, Not(ContainsRegex("[-+][0-9]+\\.[0-9]%"))) << "no signed percentages";
  // The best, by the summary's id: SPIN_US 20 is promoted on a quiet machine, but under heavy load nothing may beat the
  // noise, and the start stays the best.
  std::smatch found;
  ASSERT_TRUE(std::regex_search(run.out, found, std::regex("\n  best:  candidate ([0-9]+), "))) << run.out;
  const std::string best = found[1];
  EXPECT_THAT(run.out, ContainsRegex(std::string("\n  agent     strategy     judged  promoted  backups  rejected       best candidate\n")));
  if (best != "2") {
    // The run's last candidate may be composed by shape class, judged after the budget (kernelarc run --specialise).
    EXPECT_THAT(run.err, ContainsRegex("\n  \\[([2-5]/5\\] candidate " + best + " by agent-[12]|6/5\\] candidate " + best + " by specialise): promoted \\("));
    // The final speed-up: the start and the best timed side by side (Judge::time_paired), in the log and the summary.
    EXPECT_THAT(run.err, HasSubstr("\n  timing the start (candidate 2) and the best (candidate " + best + ") side by side for the final speed-up\n"));
    EXPECT_THAT(run.err, ContainsRegex("\n  side by side: the best takes [0-9.]+ of the start's time \\(20 pairs: .*\\)\n"));
    EXPECT_THAT(run.out, ContainsRegex(std::string("\n  start: candidate 2, ") + kTime + "\n"));
    EXPECT_THAT(run.out, ContainsRegex("\n  best:  candidate " + best + ", " + kTime + ", " + kRatio +
                                       " than the start, timed side by side \\(20 pairs: [^)]*\\), [0-9.]+% of the roofline\n"));
  } else {
    EXPECT_THAT(run.err, Not(HasSubstr("for the final speed-up"))) << "nothing to compare the start with";
    EXPECT_THAT(run.out, ContainsRegex(std::string("\n  start: candidate 2, ") + kTime + "\n"));
    EXPECT_THAT(run.out, ContainsRegex(std::string("\n  best:  candidate 2, ") + kTime +
                                       ", the start \\(nothing faster beyond the noise was found\\), [0-9.]+% of the roofline\n"));
  }
  // runs and export: the same id.
  const auto runs = kernelarc("runs --store " + db);
  EXPECT_THAT(runs.out, ContainsRegex("\n    2  run   copy_grid            cpu     finished     [0-9T:-]+        5/5  best " + std::string(kTime) +
                                      " \\(" + kRatio + " than the start\\), candidate " + best + "\n"));
  const auto exported = kernelarc("export --run 2 --candidate " + best + " --store " + db + " -o " + (dir_ / "best.cpp").string());
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_THAT(exported.err, ContainsRegex("^kernelarc export: candidate " + best + " of run 2 \\(copy_grid.grid.CHUNK[0-9]+_SPIN_US[0-9]+, cpu"));
  // The board's effects and lessons as ratios.
  const auto board = kernelarc("board --run 2 --store " + db);
  EXPECT_THAT(board.out, ContainsRegex(std::string("backup +") + kRatio + "  .* is correct but " + kRatio + " \\(not faster beyond the noise\\)\n"));
  if (best != "2")
    EXPECT_THAT(board.out, ContainsRegex(std::string("promoted +") + kRatio + "  .* is [0-9]+\\.[0-9][0-9]x faster: keep it\n"));
}

// Workloads done out of all, and from the second on the time spent and an estimate of the time left.
TEST_F(ProgressTest, EvalSaysWorkloadsDoneOutOfAllWithTheTimeLeft) {
  const auto eval = kernelarc("eval softmax --workload softmax-2x2 --workload softmax-7x1000 --workload softmax-1x4096 --correctness-only --store " +
                              (dir_ / "runs.db").string());
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  EXPECT_THAT(eval.err, HasSubstr("\nworkload 1/3 softmax-2x2\n"));
  EXPECT_THAT(eval.err, ContainsRegex("\nworkload 2/3 softmax-7x1000 \\(1 done in [0-9]+s, about [0-9]+s left\\)\n"));
  EXPECT_THAT(eval.err, ContainsRegex("\nworkload 3/3 softmax-1x4096 \\(2 done in [0-9]+s, about [0-9]+s left\\)\n"));
}

// The load read before the first timed loop and after the last: said under the table, and a warning when it moved. A
// named pipe stands for /proc/loadavg and gives 0.10, then 3.50.
TEST_F(ProgressTest, EvalWarnsWhenTheMachinesLoadMovedDuringTiming) {
  const fs::path loadavg = dir_ / "loadavg";
  ASSERT_EQ(mkfifo(loadavg.c_str(), 0600), 0);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    // Opened for writing only while the judge has it open for reading (ENXIO otherwise): one text per read, and the next
    // only once that reader has closed it, so two never run into one read.
    const auto open_while_read = [&](bool read) {
      while (!done) {
        const int fd = open(loadavg.c_str(), O_WRONLY | O_NONBLOCK);
        if ((fd >= 0) == read) return fd;
        if (fd >= 0) close(fd);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      return -1;
    };
    for (const char* text : {"0.10 0.20 0.30 1/100 1\n", "3.50 0.90 0.40 3/100 2\n"}) {
      const int fd = open_while_read(true);
      if (fd < 0) return;
      [[maybe_unused]] const auto written = write(fd, text, std::strlen(text));
      close(fd);
      open_while_read(false);  // until the reader has gone
    }
  });
  const auto eval = kernelarc(std::string("eval ") + KERNELARC_GRID_TASK + " --rounds 1 --warmup 1 --iterations 3 --cpu-bandwidth 20 " +
                                  "--cpu-gflops 100 --quiet --store " + (dir_ / "runs.db").string(),
                              "KERNELARC_LOADAVG=" + loadavg.string());
  done = true;
  writer.join();
  EXPECT_EQ(eval.exit_code, 0) << eval.err;
  const std::string cores = std::to_string(std::thread::hardware_concurrency());
  EXPECT_THAT(eval.out, HasSubstr("\nmachine during timing: load 0.10 -> 3.50 (1-minute average, " + cores + " cores)\n"));
  EXPECT_THAT(eval.out, HasSubstr("\nwarning: the machine's load moved during timing, 0.10 -> 3.50 (1-minute load average, " + cores +
                                  " cores): other work shared the cores, so the times may be off; judge again on a quieter machine\n"));
  // Unmoved: the line, no warning.
  const auto quiet = kernelarc(std::string("eval ") + KERNELARC_GRID_TASK + " --rounds 1 --warmup 1 --iterations 3 --cpu-bandwidth 20 " +
                               "--cpu-gflops 100 --quiet --json --store " + (dir_ / "runs.db").string());
  EXPECT_THAT(quiet.out, ContainsRegex("\"conditions\": \\{\n +\"after\": \\{\n +\"load_1min\": [0-9.]+,\n +\"sm_clock_mhz\": null"));
}

}  // namespace
}  // namespace kernelarc

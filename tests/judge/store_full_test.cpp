// The store's disk fills up in the middle of a run: the run stops with a clear message and exit code 3, the store is
// not corrupted and keeps every candidate it recorded, and once there is room the resumed run finishes the budget
// without losing or repeating one. And when it fills while `eval` judges, eval still prints its results and says they
// were not recorded. A real full filesystem: a 512 KiB tmpfs (root only; skipped, and reported as skipped, where
// mounting is not allowed).
#include <errno.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/mount.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>

#include "common/subprocess.h"
#include "store/store.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string integrity(const fs::path& db) {
  sqlite3* handle = nullptr;
  std::string result = "cannot open";
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(handle, "PRAGMA integrity_check", -1, &statement, nullptr) == SQLITE_OK && sqlite3_step(statement) == SQLITE_ROW)
      result = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    sqlite3_finalize(statement);
  }
  sqlite3_close(handle);
  return result;
}

TEST(StoreFullTest, AFullDiskStopsTheRunCleanlyAndTheResumedRunLosesNothing) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-store-full-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern, small = dir / "small", roomy = dir / "roomy";
  fs::create_directories(small);
  fs::create_directories(roomy);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=512k") != 0) {
    const std::string why = std::strerror(errno);
    fs::remove_all(dir);
    GTEST_SKIP() << "cannot mount a small tmpfs here (" << why << "): a full disk needs root to be made";
  }
  ASSERT_EQ(setenv("KERNELARC_CACHE_DIR", (dir / "cache").c_str(), 1), 0);
  const std::vector<std::string> protocol = {"--rounds", "1", "--warmup", "1", "--iterations", "3", "--cpu-bandwidth", "20", "--cpu-gflops", "100",
                                             "--quiet"};
  std::vector<std::string> argv = {KERNELARC_BINARY, "run", KERNELARC_GRID_TASK, "--agents", "2", "--budget", "30", "--seed", "5",
                                   "--store", (small / "runs.db").string()};
  argv.insert(argv.end(), protocol.begin(), protocol.end());
  const auto full = common::run_command(argv, std::chrono::minutes(5), 1 << 20);
  EXPECT_EQ(full.exit_code, 3) << full.output;
  EXPECT_THAT(full.output, HasSubstr("could not be written: commit transaction: database or disk is full"));
  EXPECT_THAT(full.output, HasSubstr("Everything it recorded before is kept"));
  EXPECT_THAT(full.output, HasSubstr("kernelarc run --resume 1 --store " + (small / "runs.db").string()));

  // As the user would: move the store to a disk with room (the database and its write-ahead log).
  for (const char* name : {"runs.db", "runs.db-wal"})
    if (fs::exists(small / name)) fs::copy_file(small / name, roomy / name);
  umount2(small.c_str(), MNT_DETACH);
  const fs::path db = roomy / "runs.db";
  EXPECT_EQ(integrity(db), "ok");
  std::set<std::int64_t> candidates_before, conclusions_before;
  {
    auto store = store::Store::open(db);
    ASSERT_EQ(store.runs().size(), 1u);
    for (const auto& c : store.candidates(1)) candidates_before.insert(c.id);
    for (const auto& c : store.conclusions("copy_grid")) conclusions_before.insert(c.id);
  }
  EXPECT_GE(candidates_before.size(), 2u) << "the store filled before the run had judged anything";
  EXPECT_LT(candidates_before.size(), 30u) << "the store never filled";

  const auto resumed = common::run_command({KERNELARC_BINARY, "run", "--resume", "1", "--store", db.string(), "--rounds", "1", "--warmup", "1",
                                            "--iterations", "3", "--quiet"},
                                           std::chrono::minutes(5), 1 << 20);
  unsetenv("KERNELARC_CACHE_DIR");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  auto store = store::Store::open(db);
  EXPECT_EQ(store.run(1)->status, "finished");
  const auto after = store.candidates(1);
  EXPECT_EQ(after.size(), 30u);
  std::set<std::int64_t> ids;
  std::set<std::string> configurations;
  for (const auto& c : after) {
    ids.insert(c.id);
    EXPECT_TRUE(configurations.insert(c.knobs_json).second) << "judged twice: " << c.knobs_json;
  }
  for (const auto id : candidates_before) EXPECT_TRUE(ids.count(id)) << "candidate " << id << " lost";
  std::set<std::int64_t> conclusions;
  for (const auto& c : store.conclusions("copy_grid")) conclusions.insert(c.id);
  for (const auto id : conclusions_before) EXPECT_TRUE(conclusions.count(id)) << "conclusion " << id << " lost";
  EXPECT_EQ(conclusions.size(), 29u) << "one conclusion per candidate after the start";
  fs::remove_all(dir);
}

TEST(StoreFullTest, EvalPrintsItsResultsWhenTheStoreFillsWhileItJudges) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-eval-store-full-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern, small = dir / "small";
  fs::create_directories(small);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=512k") != 0) {
    const std::string why = std::strerror(errno);
    fs::remove_all(dir);
    GTEST_SKIP() << "cannot mount a small tmpfs here (" << why << "): a full disk needs root to be made";
  }
  const std::string db = (small / "runs.db").string();
  // The store passes eval's check before any judging; the disk is filled once the first workload is being judged.
  const std::string script = std::string("KERNELARC_CACHE_DIR='") + (dir / "cache").string() + "' '" + KERNELARC_BINARY + "' eval " +
                             KERNELARC_GRID_TASK + " --store " + db +
                             " --rounds 1 --warmup 1 --iterations 30 --cpu-bandwidth 20 --cpu-gflops 100 > '" + (dir / "out").string() +
                             "' 2> '" + (dir / "err").string() + "' & pid=$!; until grep -q '^workload 1/' '" + (dir / "err").string() +
                             "' 2>/dev/null; do sleep 0.05; done; dd if=/dev/zero of='" + (small / "filler").string() +
                             "' bs=4k 2>/dev/null; wait $pid; echo \"exit code $?\"";
  const auto result = common::run_command({"sh", "-c", script}, std::chrono::minutes(4));
  std::string out, err;
  for (auto [file, text] : {std::pair{dir / "out", &out}, std::pair{dir / "err", &err}})
    *text = std::string(std::istreambuf_iterator<char>(*std::make_unique<std::ifstream>(file)), {});
  umount2(small.c_str(), MNT_DETACH);
  fs::remove_all(dir);
  EXPECT_THAT(result.output, HasSubstr("exit code 3")) << out << err;
  EXPECT_THAT(out, HasSubstr("PASSED")) << "the results were not printed:\n" << out << err;
  EXPECT_THAT(out, ::testing::Not(HasSubstr("recorded as run")));
  EXPECT_THAT(err, HasSubstr("kernelarc eval: the results above were not recorded in " + db + ": ")) << err;
  EXPECT_THAT(err, HasSubstr("full")) << err;
}

}  // namespace
}  // namespace kernelarc

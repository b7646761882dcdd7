#include "store/store.h"

#include <sqlite3.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace kernelarc::store {
namespace {

namespace fs = std::filesystem;

bool is_utc_millisecond_timestamp(const std::string& text) {
  static const std::regex pattern(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
  return std::regex_match(text, pattern);
}

// The message of the StoreError that body throws, or a failure if it throws none.
template <class F>
std::string store_error_message(F&& body) {
  try {
    body();
  } catch (const StoreError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a StoreError";
  return {};
}

// Forks `count` children that each run body(child_index), waits for all of them
// and returns how many failed (threw, or exited abnormally).
template <class F>
int run_in_child_processes(int count, F&& body) {
  std::vector<pid_t> children;
  for (int child = 0; child < count; ++child) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      int exit_code = 0;
      try {
        body(child);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "child %d: %s\n", child, error.what());
        exit_code = 1;
      }
      _exit(exit_code);  // skip gtest's teardown and atexit handlers in the child
    }
    children.push_back(pid);
  }
  int failures = 0;
  for (const pid_t pid : children) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failures;
    }
  }
  return failures;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc_store_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp failed";
    directory_ = pattern;
  }

  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }

  // Nested under a missing directory so open() has to create it.
  fs::path database_path() const { return directory_ / "nested" / "store.db"; }

  static std::int64_t add_sample_task(Store& store) {
    TaskRecord task;
    task.name = "softmax";
    task.path = "tasks/softmax";
    task.definition_hash = "sha256:abc";
    task.definition_json = R"({"op":"softmax"})";
    return store.upsert_task(task);
  }

  static std::int64_t begin_sample_run(Store& store, std::int64_t task_id) {
    RunRecord run;
    run.task_id = task_id;
    run.kind = "run";
    run.device = "H200";
    run.seed = 42;
    return store.begin_run(run);
  }

  static std::int64_t add_sample_candidate(Store& store, std::int64_t run_id) {
    CandidateRecord candidate;
    candidate.run_id = run_id;
    candidate.name = "softmax-v1";
    candidate.source_hash = "sha256:src";
    candidate.source = "__global__ void k() {}";
    candidate.proposer = "baseline";
    return store.add_candidate(candidate);
  }

  fs::path directory_;
};

TEST_F(StoreTest, OpenCreatesFileAtCurrentSchemaVersion) {
  Store store = Store::open(database_path());
  EXPECT_TRUE(fs::exists(database_path()));
  EXPECT_EQ(store.schema_version(), Store::kSchemaVersion);
}

TEST_F(StoreTest, TaskRoundTripAndUpsertReturnsExistingId) {
  Store store = Store::open(database_path());
  TaskRecord task;
  task.name = "softmax";
  task.path = "tasks/softmax";
  task.definition_hash = "sha256:abc";
  task.definition_json = R"({"op":"softmax","shape":[4096,4096]})";

  const std::int64_t id = store.upsert_task(task);
  ASSERT_GT(id, 0);
  const std::optional<TaskRecord> loaded = store.task(id);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->id, id);
  EXPECT_EQ(loaded->name, task.name);
  EXPECT_EQ(loaded->path, task.path);
  EXPECT_EQ(loaded->definition_hash, task.definition_hash);
  EXPECT_EQ(loaded->definition_json, task.definition_json);

  TaskRecord same_key = task;
  same_key.path = "elsewhere";
  EXPECT_EQ(store.upsert_task(same_key), id);
  EXPECT_EQ(store.task(id)->path, task.path) << "an existing task is left unchanged";

  TaskRecord new_definition = task;
  new_definition.definition_hash = "sha256:def";
  EXPECT_NE(store.upsert_task(new_definition), id);

  EXPECT_FALSE(store.task(id + 100).has_value());
}

TEST_F(StoreTest, RunRoundTripFinishAndNewestFirst) {
  Store store = Store::open(database_path());
  const std::int64_t task_id = add_sample_task(store);

  RunRecord run;
  run.task_id = task_id;
  run.kind = "eval";
  run.device = "NVIDIA H200";
  run.seed = std::numeric_limits<std::uint64_t>::max();
  run.config_json = R"({"budget":100})";
  const std::int64_t first_id = store.begin_run(run);

  std::optional<RunRecord> loaded = store.run(first_id);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->id, first_id);
  EXPECT_EQ(loaded->task_id, task_id);
  EXPECT_EQ(loaded->kind, "eval");
  EXPECT_EQ(loaded->device, "NVIDIA H200");
  EXPECT_EQ(loaded->seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(loaded->config_json, run.config_json);
  EXPECT_EQ(loaded->status, "running");
  EXPECT_EQ(loaded->summary_json, "{}");
  EXPECT_TRUE(is_utc_millisecond_timestamp(loaded->started_at)) << loaded->started_at;
  EXPECT_EQ(loaded->finished_at, "");

  store.finish_run(first_id, "done", R"({"best_score":1.5})");
  loaded = store.run(first_id);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->status, "done");
  EXPECT_EQ(loaded->summary_json, R"({"best_score":1.5})");
  EXPECT_TRUE(is_utc_millisecond_timestamp(loaded->finished_at)) << loaded->finished_at;
  EXPECT_GE(loaded->finished_at, loaded->started_at);

  run.kind = "run";
  run.seed = 7;
  const std::int64_t second_id = store.begin_run(run);
  const std::vector<RunRecord> all = store.runs();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, second_id);
  EXPECT_EQ(all[1].id, first_id);

  EXPECT_FALSE(store.run(second_id + 100).has_value());
  EXPECT_THROW(store.finish_run(second_id + 100, "done", "{}"), StoreError);
}

TEST_F(StoreTest, CandidateRoundTripWithAndWithoutParent) {
  Store store = Store::open(database_path());
  const std::int64_t run_id = begin_sample_run(store, add_sample_task(store));

  CandidateRecord root;
  root.run_id = run_id;
  root.name = "softmax/tile=128/warps=4";
  root.source_hash = "sha256:0123";
  root.source = std::string("// ядро ⚡ 核 — «kernel» 🚀\n__global__ void k() {}\n") +
                std::string(1, '\0') + "after NUL";
  root.knobs_json = R"({"tile":128,"warps":4})";
  root.proposer = "baseline";
  root.hypothesis = "start from the reference kernel";
  root.build_json = R"({"flags":["-O3"],"cache_key":"k1","seconds":1.25,"registers":64})";
  const std::int64_t root_id = store.add_candidate(root);

  CandidateRecord child = root;
  child.name = "softmax/tile=256/warps=8";
  child.source = "__global__ void k2() {}";
  child.parent_id = root_id;
  child.proposer = "llm";
  child.hypothesis = "wider tiles hide latency";
  const std::int64_t child_id = store.add_candidate(child);

  const std::vector<CandidateRecord> loaded = store.candidates(run_id);
  ASSERT_EQ(loaded.size(), 2u);

  EXPECT_EQ(loaded[0].id, root_id);
  EXPECT_EQ(loaded[0].run_id, run_id);
  EXPECT_EQ(loaded[0].name, root.name);
  EXPECT_EQ(loaded[0].source_hash, root.source_hash);
  EXPECT_EQ(loaded[0].source, root.source);
  EXPECT_EQ(loaded[0].knobs_json, root.knobs_json);
  EXPECT_FALSE(loaded[0].parent_id.has_value());
  EXPECT_EQ(loaded[0].proposer, root.proposer);
  EXPECT_EQ(loaded[0].hypothesis, root.hypothesis);
  EXPECT_EQ(loaded[0].build_json, root.build_json);
  EXPECT_TRUE(is_utc_millisecond_timestamp(loaded[0].created_at)) << loaded[0].created_at;

  EXPECT_EQ(loaded[1].id, child_id);
  EXPECT_EQ(loaded[1].source, child.source);
  ASSERT_TRUE(loaded[1].parent_id.has_value());
  EXPECT_EQ(*loaded[1].parent_id, root_id);
  EXPECT_EQ(loaded[1].proposer, "llm");

  EXPECT_TRUE(store.candidates(run_id + 100).empty());
}

TEST_F(StoreTest, VerdictRoundTripWithExactSamples) {
  Store store = Store::open(database_path());
  const std::int64_t candidate_id =
      add_sample_candidate(store, begin_sample_run(store, add_sample_task(store)));

  VerdictRecord passed;
  passed.candidate_id = candidate_id;
  passed.workload_uuid = "6f1c2a9e-0000-4000-8000-000000000001";
  passed.held_out = true;
  passed.status = "PASSED";
  passed.reason = "";
  passed.median_ns = 12345.678901234567;
  passed.sol_ns = 1.0 / 3.0;
  passed.baseline_ns = 2e18;
  passed.score = -0.1;
  passed.samples_ns = {0.1,
                       1.0 / 3.0,
                       12345.0,
                       1e-300,
                       std::numeric_limits<double>::denorm_min(),
                       std::numeric_limits<double>::max(),
                       std::numeric_limits<double>::epsilon(),
                       -7.25};
  passed.details_json = R"({"max_abs_error":1e-6})";
  const std::int64_t passed_id = store.add_verdict(passed);

  VerdictRecord failed;
  failed.candidate_id = candidate_id;
  failed.workload_uuid = "6f1c2a9e-0000-4000-8000-000000000002";
  failed.status = "COMPILE_ERROR";
  failed.reason = "error: expected ';' — ошибка";
  const std::int64_t failed_id = store.add_verdict(failed);

  const std::vector<VerdictRecord> loaded = store.verdicts(candidate_id);
  ASSERT_EQ(loaded.size(), 2u);

  EXPECT_EQ(loaded[0].id, passed_id);
  EXPECT_EQ(loaded[0].candidate_id, candidate_id);
  EXPECT_EQ(loaded[0].workload_uuid, passed.workload_uuid);
  EXPECT_TRUE(loaded[0].held_out);
  EXPECT_EQ(loaded[0].status, "PASSED");
  EXPECT_EQ(loaded[0].reason, "");
  EXPECT_EQ(loaded[0].median_ns, passed.median_ns);
  EXPECT_EQ(loaded[0].sol_ns, passed.sol_ns);
  EXPECT_EQ(loaded[0].baseline_ns, passed.baseline_ns);
  EXPECT_EQ(loaded[0].score, passed.score);
  EXPECT_EQ(loaded[0].samples_ns, passed.samples_ns);  // exact equality, not approximate
  EXPECT_EQ(loaded[0].details_json, passed.details_json);

  EXPECT_EQ(loaded[1].id, failed_id);
  EXPECT_FALSE(loaded[1].held_out);
  EXPECT_EQ(loaded[1].status, "COMPILE_ERROR");
  EXPECT_EQ(loaded[1].reason, failed.reason);
  EXPECT_FALSE(loaded[1].median_ns.has_value());
  EXPECT_FALSE(loaded[1].sol_ns.has_value());
  EXPECT_FALSE(loaded[1].baseline_ns.has_value());
  EXPECT_FALSE(loaded[1].score.has_value());
  EXPECT_TRUE(loaded[1].samples_ns.empty());
  EXPECT_EQ(loaded[1].details_json, "{}");
}

TEST_F(StoreTest, NonFiniteSampleIsRefused) {
  Store store = Store::open(database_path());
  const std::int64_t candidate_id =
      add_sample_candidate(store, begin_sample_run(store, add_sample_task(store)));
  VerdictRecord verdict;
  verdict.candidate_id = candidate_id;
  verdict.status = "PASSED";
  verdict.samples_ns = {1.0, std::numeric_limits<double>::quiet_NaN()};
  const std::string message = store_error_message([&] { store.add_verdict(verdict); });
  EXPECT_NE(message.find("samples_ns[1]"), std::string::npos) << message;
  EXPECT_TRUE(store.verdicts(candidate_id).empty());
}

TEST_F(StoreTest, ConclusionRoundTripNewestFirstPerTask) {
  Store store = Store::open(database_path());
  const std::int64_t run_id = begin_sample_run(store, add_sample_task(store));

  ConclusionRecord without_run;
  without_run.task = "softmax";
  without_run.workload_class = "large-rows";
  without_run.strategy = "tiling";
  without_run.change = "tile 128 -> 256";
  without_run.outcome = "faster";
  without_run.effect = 0.123456789012345;
  without_run.lesson = "wider tiles help when rows exceed 8k — 大";
  const std::int64_t older_id = store.add_conclusion(without_run);

  ConclusionRecord with_run = without_run;
  with_run.run_id = run_id;
  with_run.outcome = "slower";
  with_run.effect = -0.5;
  const std::int64_t newer_id = store.add_conclusion(with_run);

  ConclusionRecord other_task = without_run;
  other_task.task = "layernorm";
  store.add_conclusion(other_task);

  const std::vector<ConclusionRecord> loaded = store.conclusions("softmax");
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].id, newer_id);
  ASSERT_TRUE(loaded[0].run_id.has_value());
  EXPECT_EQ(*loaded[0].run_id, run_id);
  EXPECT_EQ(loaded[0].outcome, "slower");
  EXPECT_EQ(loaded[0].effect, -0.5);

  EXPECT_EQ(loaded[1].id, older_id);
  EXPECT_FALSE(loaded[1].run_id.has_value());
  EXPECT_EQ(loaded[1].task, without_run.task);
  EXPECT_EQ(loaded[1].workload_class, without_run.workload_class);
  EXPECT_EQ(loaded[1].strategy, without_run.strategy);
  EXPECT_EQ(loaded[1].change, without_run.change);
  EXPECT_EQ(loaded[1].outcome, without_run.outcome);
  EXPECT_EQ(loaded[1].effect, without_run.effect);
  EXPECT_EQ(loaded[1].lesson, without_run.lesson);
  EXPECT_TRUE(is_utc_millisecond_timestamp(loaded[1].created_at)) << loaded[1].created_at;

  EXPECT_EQ(store.conclusions("layernorm").size(), 1u);
  EXPECT_TRUE(store.conclusions("unknown").empty());
}

TEST_F(StoreTest, EventRoundTripOldestFirst) {
  Store store = Store::open(database_path());
  const std::int64_t run_id = begin_sample_run(store, add_sample_task(store));

  EventRecord started;
  started.run_id = run_id;
  started.kind = "run_started";
  const std::int64_t started_id = store.add_event(started);

  EventRecord proposed;
  proposed.run_id = run_id;
  proposed.kind = "candidate_proposed";
  proposed.payload_json = R"({"name":"softmax-v2","note":"→ ok"})";
  const std::int64_t proposed_id = store.add_event(proposed);

  const std::vector<EventRecord> loaded = store.events(run_id);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].id, started_id);
  EXPECT_EQ(loaded[0].run_id, run_id);
  EXPECT_EQ(loaded[0].kind, "run_started");
  EXPECT_EQ(loaded[0].payload_json, "{}");
  EXPECT_TRUE(is_utc_millisecond_timestamp(loaded[0].created_at)) << loaded[0].created_at;
  EXPECT_EQ(loaded[1].id, proposed_id);
  EXPECT_EQ(loaded[1].kind, "candidate_proposed");
  EXPECT_EQ(loaded[1].payload_json, proposed.payload_json);

  EXPECT_TRUE(store.events(run_id + 100).empty());
}

TEST_F(StoreTest, ReopenKeepsData) {
  std::int64_t run_id = 0;
  {
    Store store = Store::open(database_path());
    run_id = begin_sample_run(store, add_sample_task(store));
    EventRecord event;
    event.run_id = run_id;
    event.kind = "persisted";
    store.add_event(event);
  }
  Store reopened = Store::open(database_path());
  EXPECT_EQ(reopened.schema_version(), Store::kSchemaVersion);
  ASSERT_TRUE(reopened.run(run_id).has_value());
  EXPECT_EQ(reopened.run(run_id)->device, "H200");
  ASSERT_EQ(reopened.events(run_id).size(), 1u);
  EXPECT_EQ(reopened.events(run_id)[0].kind, "persisted");
}

TEST_F(StoreTest, MovedStoreKeepsWorking) {
  Store original = Store::open(database_path());
  Store moved = std::move(original);
  const std::int64_t task_id = add_sample_task(moved);
  Store assigned = Store::open(directory_ / "other.db");
  assigned = std::move(moved);
  EXPECT_TRUE(assigned.task(task_id).has_value());
}

TEST_F(StoreTest, NewerSchemaVersionIsRefused) {
  { Store store = Store::open(database_path()); }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(database_path().c_str(), &db), SQLITE_OK);
    const std::string sql = "PRAGMA user_version = " + std::to_string(Store::kSchemaVersion + 1);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  const std::string message = store_error_message([&] { Store::open(database_path()); });
  EXPECT_NE(message.find("newer"), std::string::npos) << message;
}

TEST_F(StoreTest, NonDatabaseFileIsRefused) {
  const fs::path file = directory_ / "not_a_database.db";
  {
    std::ofstream out(file);
    for (int line = 0; line < 100; ++line) out << "this is plain text, not a SQLite database\n";
  }
  const std::string message = store_error_message([&] { Store::open(file); });
  EXPECT_NE(message.find("not a database"), std::string::npos) << message;
}

TEST_F(StoreTest, ForeignKeyViolationThrows) {
  Store store = Store::open(database_path());
  VerdictRecord orphan;
  orphan.candidate_id = 999;
  orphan.status = "PASSED";
  orphan.samples_ns = {1.0, 2.0};
  const std::string message = store_error_message([&] { store.add_verdict(orphan); });
  EXPECT_NE(message.find("add_verdict"), std::string::npos) << message;
  EXPECT_NE(message.find("FOREIGN KEY"), std::string::npos) << message;
  EXPECT_TRUE(store.verdicts(999).empty());
}

TEST_F(StoreTest, InvalidJsonIsRefused) {
  Store store = Store::open(database_path());
  const std::int64_t run_id = begin_sample_run(store, add_sample_task(store));
  EventRecord event;
  event.run_id = run_id;
  event.kind = "broken";
  event.payload_json = "{not json";
  EXPECT_THROW(store.add_event(event), StoreError);
  EXPECT_TRUE(store.events(run_id).empty());
}

TEST_F(StoreTest, TransactionCommitsAndRollsBackOnException) {
  Store store = Store::open(database_path());
  const std::int64_t run_id = begin_sample_run(store, add_sample_task(store));
  EventRecord event;
  event.run_id = run_id;
  event.kind = "tick";

  EXPECT_THROW(store.transaction([&] {
    store.add_event(event);
    store.add_event(event);
    throw std::runtime_error("abort");
  }),
               std::runtime_error);
  EXPECT_TRUE(store.events(run_id).empty());

  const std::int64_t committed_id = store.transaction([&] { return store.add_event(event); });
  ASSERT_EQ(store.events(run_id).size(), 1u);
  EXPECT_EQ(store.events(run_id)[0].id, committed_id);

  // A failing nested transaction undoes only its own part.
  store.transaction([&] {
    store.add_event(event);
    EXPECT_THROW(store.transaction([&] {
      store.add_event(event);
      throw std::runtime_error("inner abort");
    }),
                 std::runtime_error);
  });
  EXPECT_EQ(store.events(run_id).size(), 2u);
}

TEST_F(StoreTest, ConcurrentProcessesAppendEvents) {
  constexpr int kProcesses = 4;
  constexpr int kEventsPerProcess = 200;
  std::int64_t run_id = 0;
  {
    // Closed before fork so no child inherits an open connection.
    Store store = Store::open(database_path());
    run_id = begin_sample_run(store, add_sample_task(store));
  }

  const int failures = run_in_child_processes(kProcesses, [&](int process) {
    Store store = Store::open(database_path());
    for (int i = 0; i < kEventsPerProcess; ++i) {
      EventRecord event;
      event.run_id = run_id;
      event.kind = "child_" + std::to_string(process);
      event.payload_json = "{\"i\":" + std::to_string(i) + "}";
      store.transaction([&] { store.add_event(event); });
    }
  });
  EXPECT_EQ(failures, 0);

  Store store = Store::open(database_path());
  const std::vector<EventRecord> events = store.events(run_id);
  EXPECT_EQ(events.size(), static_cast<std::size_t>(kProcesses * kEventsPerProcess));
  for (int process = 0; process < kProcesses; ++process) {
    const std::string kind = "child_" + std::to_string(process);
    EXPECT_EQ(std::count_if(events.begin(), events.end(),
                            [&](const EventRecord& event) { return event.kind == kind; }),
              kEventsPerProcess);
  }
}

TEST_F(StoreTest, ConcurrentProcessesCreateTheSameFile) {
  // A fresh file: every child races to enable WAL and apply the migrations.
  for (int round = 0; round < 5; ++round) {
    const fs::path file = directory_ / ("round" + std::to_string(round)) / "store.db";
    const int failures = run_in_child_processes(4, [&](int) {
      Store store = Store::open(file);
      if (store.schema_version() != Store::kSchemaVersion) {
        throw std::runtime_error("wrong schema version");
      }
    });
    EXPECT_EQ(failures, 0) << "round " << round;
    EXPECT_EQ(Store::open(file).schema_version(), Store::kSchemaVersion);
  }
}

}  // namespace
}  // namespace kernelarc::store

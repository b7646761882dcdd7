// The judge's side of a worker, against the real `kernelarc worker --device cpu`: replies, refusals, crashes,
// deadlines and restarts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "judge/cpu_compiler.h"
#include "judge/shared_buffer.h"
#include "judge/worker_process.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

const char* outcome_name(ReplyOutcome outcome) {
  switch (outcome) {
    case ReplyOutcome::ok: return "ok";
    case ReplyOutcome::refused: return "refused";
    case ReplyOutcome::crashed: return "crashed";
    case ReplyOutcome::timed_out: return "timed_out";
    case ReplyOutcome::forged: return "forged";
  }
  return "?";
}

// Waits until `pid` has died (a zombie, or gone), so a request after kill() never races the signal.
bool wait_until_dead(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return true;
    const auto close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && (text[close + 2] == 'Z' || text[close + 2] == 'X')) return true;
    std::this_thread::sleep_for(1ms);
  }
  return false;
}

class WorkerProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-worker-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  WorkerOptions options(const std::string& device = "cpu") const { return {KERNELARC_BINARY, device, dir_ / "worker.log"}; }

  fs::path dir_;
};

TEST_F(WorkerProcessTest, HelloReturnsOkWithThePid) {
  WorkerProcess worker(options());
  EXPECT_FALSE(worker.running()) << "started lazily, by the first request";
  const auto reply = worker.request({{"op", "hello"}}, 10s);
  ASSERT_TRUE(reply.ok()) << outcome_name(reply.outcome) << ": " << reply.description;
  EXPECT_TRUE(worker.running());
  ASSERT_TRUE(reply.body.contains("pid")) << reply.body.dump();
  EXPECT_EQ(reply.body.at("pid").get<pid_t>(), worker.pid());
  EXPECT_TRUE(reply.body.contains("protocol")) << reply.body.dump();
  EXPECT_GT(reply.round_trip.count(), 0);
  EXPECT_EQ(worker.restarts(), 0);
  worker.stop();
  EXPECT_FALSE(worker.running());
}

TEST_F(WorkerProcessTest, UnknownOpIsRefusedNotACrash) {
  WorkerProcess worker(options());
  ASSERT_TRUE(worker.request({{"op", "hello"}}, 10s).ok());
  const pid_t pid = worker.pid();

  const auto reply = worker.request({{"op", "frobnicate"}}, 5s);
  EXPECT_STREQ(outcome_name(reply.outcome), "refused") << reply.description;
  EXPECT_THAT(reply.description, HasSubstr("unknown op"));
  EXPECT_THAT(reply.description, HasSubstr("frobnicate"));

  const auto incomplete = worker.request({{"op", "load"}}, 5s);  // no "library"
  EXPECT_STREQ(outcome_name(incomplete.outcome), "refused") << incomplete.description;

  EXPECT_TRUE(worker.running());
  EXPECT_EQ(worker.pid(), pid) << "a refusal keeps the same worker";
  const auto again = worker.request({{"op", "hello"}}, 5s);
  ASSERT_TRUE(again.ok()) << again.description;
  EXPECT_EQ(again.body.at("pid").get<pid_t>(), pid);
  EXPECT_EQ(worker.restarts(), 0);
}

TEST_F(WorkerProcessTest, WorkerKilledFromOutsideIsReportedAsCrashedThenRestarted) {
  WorkerProcess worker(options());
  ASSERT_TRUE(worker.request({{"op", "hello"}}, 10s).ok());
  const pid_t first = worker.pid();
  ASSERT_EQ(kill(first, SIGKILL), 0);
  ASSERT_TRUE(wait_until_dead(first, 5s));

  const auto reply = worker.request({{"op", "hello"}}, 5s);
  EXPECT_STREQ(outcome_name(reply.outcome), "crashed") << reply.description;
  EXPECT_THAT(reply.description, HasSubstr("SIGKILL"));
  EXPECT_FALSE(worker.running());

  const auto restarted = worker.request({{"op", "hello"}}, 10s);
  ASSERT_TRUE(restarted.ok()) << restarted.description;
  EXPECT_EQ(worker.restarts(), 1);
  EXPECT_NE(worker.pid(), first);
  EXPECT_EQ(restarted.body.at("pid").get<pid_t>(), worker.pid());
}

TEST_F(WorkerProcessTest, DeadlineKillsAWorkerThatDoesNotAnswer) {
  WorkerProcess worker(options());
  ASSERT_TRUE(worker.request({{"op", "hello"}}, 10s).ok());
  const pid_t pid = worker.pid();

  // Allocating and touching 1 GiB takes far longer than 1 ms.
  const auto started = std::chrono::steady_clock::now();
  const auto reply = worker.request({{"op", "flush"}, {"bytes", std::size_t{1} << 30}}, 1ms);
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_STREQ(outcome_name(reply.outcome), "timed_out") << reply.description;
  EXPECT_THAT(reply.description, HasSubstr("no reply within 1 ms"));
  EXPECT_LT(waited, 2s);
  EXPECT_FALSE(worker.running());
  errno = 0;
  EXPECT_EQ(kill(pid, 0), -1) << "the hung worker is killed and reaped";
  EXPECT_EQ(errno, ESRCH);

  const auto next = worker.request({{"op", "hello"}}, 10s);
  ASSERT_TRUE(next.ok()) << next.description;
  EXPECT_EQ(worker.restarts(), 1);
}

TEST_F(WorkerProcessTest, DeadlineKillsAHungCandidateAndItsOutputIsInTheLog) {
  CompilerOptions compiler_options;
  compiler_options.cache_directory = dir_ / "cache";
  const CpuCompiler compiler(compiler_options);
  const auto build = compiler.build({R"(// Hangs: prints a line, then sleeps far past any deadline.
#include <kernelarc/candidate_abi.h>
#include <stdio.h>
#include <unistd.h>
KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  fprintf(stderr, "hung candidate says hello\n");
  fflush(stderr);
  sleep(100);
  return 0;
}
)",
                                     {},
                                     {}});
  ASSERT_TRUE(build.ok) << build.diagnostics;
  const auto buffer = SharedBuffer::create(dir_ / "buffer", 4096);

  WorkerProcess worker(options());
  const auto step = [&](const json& message) {
    const auto reply = worker.request(message, 10s);
    EXPECT_TRUE(reply.ok()) << message.dump() << ": " << reply.description;
  };
  step({{"op", "load"}, {"library", build.library.string()}});
  step({{"op", "map"}, {"file", buffer.file().string()}, {"bytes", buffer.size()}});
  step({{"op", "bind"}, {"inputs", json::array()}, {"outputs", json::array()}});
  const pid_t pid = worker.pid();

  const auto started = std::chrono::steady_clock::now();
  const auto reply = worker.request({{"op", "call"}, {"inputs", json::array()}, {"outputs", json::array()}}, 300ms);
  EXPECT_STREQ(outcome_name(reply.outcome), "timed_out") << reply.description;
  EXPECT_THAT(reply.description, HasSubstr("no reply within 300 ms"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
  EXPECT_FALSE(worker.running());
  EXPECT_EQ(kill(pid, 0), -1) << "killed and reaped";
  EXPECT_THAT(worker.log_tail(), HasSubstr("hung candidate says hello"));
}

TEST_F(WorkerProcessTest, LogTailReturnsWhatTheWorkerWroteToStderr) {
  // A device this build does not support: the worker says so on stderr and exits with code 2.
  WorkerProcess worker(options("no-such-device"));
  const auto reply = worker.request({{"op", "hello"}}, 10s);
  EXPECT_STREQ(outcome_name(reply.outcome), "crashed") << reply.description;
  EXPECT_THAT(reply.description, HasSubstr("exited with code 2"));
  const std::string tail = worker.log_tail();
  EXPECT_THAT(tail, HasSubstr("device \"no-such-device\" is not supported"));
  EXPECT_FALSE(tail.empty() || tail.back() == '\n') << "trailing newlines are trimmed";
  EXPECT_LE(worker.log_tail(10).size(), 10u) << "capped to the bytes asked for";
  EXPECT_THAT(tail, ::testing::EndsWith(worker.log_tail(10))) << "the end of the log, not its start";
}

TEST_F(WorkerProcessTest, LogTailOfAWorkerThatWroteNothingIsEmpty) {
  WorkerProcess worker(options());
  EXPECT_EQ(worker.log_tail(), "") << "no log file yet";
  ASSERT_TRUE(worker.request({{"op", "hello"}}, 10s).ok());
  EXPECT_EQ(worker.log_tail(), "");
}

// Pages are faulted in when a buffer is mapped: a first touch inside a timed call would cost the candidate
// microseconds per page (measured: about 50 us per 16 KiB on the dev VM) and the judge as much again.
TEST_F(WorkerProcessTest, SharedBuffersAreResidentAsSoonAsTheyAreMapped) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = 256 * page;
  const auto resident_pages = [&](const SharedBuffer& buffer) {
    std::vector<unsigned char> state(bytes / page);
    EXPECT_EQ(mincore(buffer.data(), bytes, state.data()), 0) << std::strerror(errno);
    std::size_t resident = 0;
    for (unsigned char s : state) resident += s & 1;
    return resident;
  };
  const auto created = SharedBuffer::create(dir_ / "resident", bytes);
  EXPECT_EQ(resident_pages(created), bytes / page);
  const auto opened = SharedBuffer::open(created.file(), bytes);
  EXPECT_EQ(resident_pages(opened), bytes / page);
}

// "copy" moves ranges within the mapped buffer (on a GPU, within its device copy) and refuses ranges outside it.
TEST_F(WorkerProcessTest, CopyMovesRangesWithinTheBufferAndRefusesOutsideIt) {
  auto buffer = SharedBuffer::create(dir_ / "copy.buf", 8192);
  for (std::size_t i = 0; i < 8192; ++i) buffer.data()[i] = static_cast<std::byte>(i % 251);
  WorkerProcess worker(options());
  ASSERT_TRUE(worker.request({{"op", "map"}, {"file", buffer.file().string()}, {"bytes", buffer.size()}}, 10s).ok());
  const auto copied = worker.request({{"op", "copy"}, {"ranges", {{0, 4096, 100}}}}, 10s);
  ASSERT_TRUE(copied.ok()) << copied.description;
  for (std::size_t i = 0; i < 100; ++i) ASSERT_EQ(buffer.data()[4096 + i], static_cast<std::byte>(i % 251)) << i;
  EXPECT_EQ(buffer.data()[4196], static_cast<std::byte>(4196 % 251));
  const auto outside = worker.request({{"op", "copy"}, {"ranges", {{0, 8100, 100}}}}, 10s);
  EXPECT_FALSE(outside.ok());
  EXPECT_THAT(outside.description, HasSubstr("outside the shared buffer"));
}

}  // namespace
}  // namespace kernelarc::judge

// The report and the live page in a real browser (Debian's chromium, headless): they render without console messages,
// each chart has the points the store says it should, a 10,000-candidate report loads in under two seconds, the live
// page shows a candidate recorded after it opened, and the event stream brings a new candidate within two seconds. Screenshots are kept under the build folder
// (test-artifacts/). Skipped where chromium is not installed (scripts/setup installs it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <regex>
#include <thread>

#include "common/subprocess.h"
#include "engine/journal.h"
#include "report_store.h"
#include "store/run_reader.h"

extern char** environ;

namespace kernelarc::report {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const char* chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(path)) return path;
  return nullptr;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Markers inside the chart `id` of the DOM chromium built (its serialisation, not our text).
std::size_t chart_points(const std::string& dom, const std::string& id) {
  const auto at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return 0;
  return count(dom.substr(at, dom.find("</svg>", at) - at), "class=\"pt\"");
}

struct Browser {
  std::string dom;
  std::string log;  // chromium's stderr: console messages appear as INFO:CONSOLE lines
};

// One headless page load: the DOM once loaded, and a screenshot beside it.
Browser open_page(const std::string& url, const fs::path& screenshot) {
  const fs::path profile = fs::temp_directory_path() / ("kernelarc-chromium-" + std::to_string(::getpid()));
  std::vector<std::string> common_args = {chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile.string(),
                                          "--enable-logging=stderr", "--v=0", "--window-size=1280,4000"};
  auto dump = common_args;
  dump.push_back("--dump-dom");
  dump.push_back(url);
  // The DOM on stdout, the log on stderr: two files keep them apart.
  const fs::path out = profile.string() + ".dom", err = profile.string() + ".log";
  const std::string shell = fmt::format("\"$@\" >'{}' 2>'{}'", out.string(), err.string());
  std::vector<std::string> argv = {"sh", "-c", shell, "sh"};
  argv.insert(argv.end(), dump.begin(), dump.end());
  const auto result = common::run_command(argv, std::chrono::seconds(120));
  EXPECT_TRUE(result.ok()) << result.describe() << result.output;
  Browser b;
  std::ifstream dom_file(out), log_file(err);
  b.dom.assign(std::istreambuf_iterator<char>(dom_file), {});
  b.log.assign(std::istreambuf_iterator<char>(log_file), {});
  auto shot = common_args;
  shot.push_back("--screenshot=" + screenshot.string());
  shot.push_back(url);
  EXPECT_TRUE(common::run_command(shot, std::chrono::seconds(120)).ok());
  std::error_code ignored;
  fs::remove_all(profile, ignored), fs::remove(out, ignored), fs::remove(err, ignored);
  return b;
}

std::string console_messages(const std::string& log) {
  std::string out;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) out += line + "\n";
  return out;
}

class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!chromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup installs it)";
    fs::create_directories(artifacts_);
    softmax_ = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
    const auto& cpu = testing::first_template(softmax_, "cpu", task::TemplateForm::full);
    const auto knobs = testing::first_knobs(cpu), moved = testing::moved_knobs(cpu);
    auto store = store::Store::open(store_path_);
    run_ = testing::record_run(store, softmax_, cpu, "cpu",
                               {{knobs, "first", 1000}, {moved, "promoted", 800, "PASSED", 790}, {knobs, "rejected", 0, "INCORRECT_NUMERICAL"},
                                {moved, "backup", 900}, {moved, "promoted", 500, "PASSED", 505}, {knobs, "backup", 700}});
    second_ = testing::record_run(store, softmax_, cpu, "cpu", {{knobs, "first", 1200}, {moved, "promoted", 600, "PASSED", 610}});
  }

  testing::TemporaryDirectory directory_;
  fs::path store_path_ = directory_.path() / "runs.db";
  fs::path artifacts_ = fs::path(KERNELARC_ARTIFACTS);
  task::Task softmax_;
  testing::RecordedRun run_, second_;
};

TEST_F(BrowserTest, TheReportRendersWithoutConsoleMessagesAndEveryChartHasItsPoints) {
  const fs::path html = artifacts_ / "report.html";
  const auto made = common::run_command({KERNELARC_BINARY, "report", std::to_string(run_.run_id), "-o", html.string(), "--store", store_path_.string()},
                                        std::chrono::seconds(60));
  ASSERT_TRUE(made.ok()) << made.output;
  const auto page = open_page("file://" + html.string(), artifacts_ / "report.png");
  EXPECT_EQ(console_messages(page.log), "");
  // 5 correct candidates as dots and 3 incumbents (the start, two promotions); the incumbents again over wall time;
  // a start and a best bar per workload.
  EXPECT_EQ(chart_points(page.dom, "best-time-candidates"), 8u);
  EXPECT_EQ(chart_points(page.dom, "best-time-wall"), 3u);
  EXPECT_EQ(chart_points(page.dom, "workloads"), 2 * softmax_.workloads.size());
  EXPECT_THAT(page.dom, HasSubstr("id=\"lineage\""));
  EXPECT_TRUE(fs::file_size(artifacts_ / "report.png") > 10000);

  const fs::path compare = artifacts_ / "compare.html";
  ASSERT_TRUE(common::run_command({KERNELARC_BINARY, "report", std::to_string(run_.run_id), std::to_string(second_.run_id), "-o", compare.string(),
                                   "--store", store_path_.string()},
                                  std::chrono::seconds(60))
                  .ok());
  const auto compared = open_page("file://" + compare.string(), artifacts_ / "compare.png");
  EXPECT_EQ(console_messages(compared.log), "");
  EXPECT_EQ(chart_points(compared.dom, "compare-candidates"), 5u);
}

// The browser's own clock from navigation start to the load event, with the style and layout of the whole page forced
// (reading offsetHeight) before it is read: a copy of the report gains a script that writes performance.now() into the
// DOM in its load handler, and --dump-dom prints that DOM once the page has loaded. The report itself has no script.
TEST_F(BrowserTest, ATenThousandCandidateReportLoadsInUnderTwoSeconds) {
  std::int64_t run_id = 0;
  {
    auto store = store::Store::open(store_path_);
    run_id = testing::record_ten_thousand_candidates(store, softmax_);
  }
  const fs::path html = artifacts_ / "report-10000.html";
  const auto made =
      common::run_command({KERNELARC_BINARY, "report", std::to_string(run_id), "-o", html.string(), "--store", store_path_.string()}, std::chrono::seconds(120));
  ASSERT_TRUE(made.ok()) << made.output;
  const auto bytes = fs::file_size(html);
  EXPECT_LT(bytes, 5u * 1000 * 1000);
  std::ifstream in(html);
  std::string page((std::istreambuf_iterator<char>(in)), {});
  ASSERT_THAT(page, Not(HasSubstr("<script")));
  const auto body_end = page.rfind("</body>");
  ASSERT_NE(body_end, std::string::npos);
  page.insert(body_end,
              "<script>addEventListener('load', () => { const height = document.documentElement.offsetHeight; "
              "document.body.dataset.loadedMs = performance.now().toFixed(1); document.body.dataset.height = height; });</script>");
  const fs::path timed = artifacts_ / "report-10000-timed.html";
  std::ofstream(timed) << page;
  // The median of three loads: one load on this shared machine may pay for another process's burst.
  std::vector<double> load_ms;
  for (int i = 0; i < 3; ++i) {
    const auto loaded = open_page("file://" + timed.string(), artifacts_ / "report-10000.png");
    EXPECT_EQ(console_messages(loaded.log), "");
    std::smatch found;
    ASSERT_TRUE(std::regex_search(loaded.dom, found, std::regex("data-loaded-ms=\"([0-9.]+)\""))) << "the load handler did not run";
    load_ms.push_back(std::stod(found[1]));
    EXPECT_EQ(chart_points(loaded.dom, "best-time-candidates"), chart_points(page, "best-time-candidates"));
  }
  std::sort(load_ms.begin(), load_ms.end());
  EXPECT_LT(load_ms[1], 2000) << "navigation start to load event, median of three";
  std::cout << fmt::format("10,000-candidate report: {} bytes, loaded in {:.0f} ms (median of {:.0f}, {:.0f}, {:.0f} ms; navigation start to the "
                           "load event, layout forced)",
                           bytes, load_ms[1], load_ms[0], load_ms[1], load_ms[2])
            << std::endl;
}

// A `kernelarc serve` child on a free port, stopped (SIGTERM) with the test.
class Server {
 public:
  Server(const fs::path& store, int port) : port_(port) {
    const std::vector<std::string> args = {KERNELARC_BINARY, "serve", "--store", store.string(), "--port", std::to_string(port)};
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ), 0);
    httplib::Client client("127.0.0.1", port);
    for (int i = 0; i < 100 && !client.Get("/"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ~Server() {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "serve did not stop cleanly on SIGTERM";
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  pid_t pid_ = 0;
  int port_;
};

// A port free now: the kernel's choice for a socket bound to port 0, released (20000 + pid % 20000 collided with a port in
// use on a CI machine). Another process could take it before serve does; one bind apart, that is unlikely.
int free_port() {
  const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool bound = probe >= 0 && ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                     ::getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  if (probe >= 0) ::close(probe);
  EXPECT_TRUE(bound) << "no free loopback port";
  return ntohs(address.sin_port);
}

// A new judged candidate in the store, as `kernelarc run` writes one; returns its id.
std::int64_t add_candidate(const fs::path& store_path, std::int64_t run_id, std::int64_t number) {
  auto store = store::Store::open(store_path);
  std::int64_t id = 0;
  store.transaction([&] {
    store::CandidateRecord c;
    c.run_id = run_id, c.name = "live", c.source_hash = "h", c.source = "int x;", c.proposer = "agent-2";
    id = store.add_candidate(c);
    engine::journal::Judged judged;
    judged.number = number, judged.candidate = id, judged.agent = "agent-2", judged.strategy = "tiling";
    judged.decision = engine::Decision::promoted;
    engine::journal::write(store, run_id, judged);
  });
  return id;
}

// Headless chromium cannot wait in real time for a stream (--virtual-time-budget stalls on an open EventSource,
// --timeout does not wait), so the page is loaded after a candidate was added while the server ran; that the stream
// delivers a new one within two seconds is the next test's.
TEST_F(BrowserTest, TheLivePageRendersTheCandidatesRecordedWhileTheServerRuns) {
  Server server(store_path_, free_port());
  const auto runs_page = open_page(server.url("/"), artifacts_ / "serve-runs.png");
  EXPECT_EQ(console_messages(runs_page.log), "");
  EXPECT_THAT(runs_page.dom, HasSubstr("/run/" + std::to_string(run_.run_id)));

  const std::int64_t added = add_candidate(store_path_, run_.run_id, 7);
  const auto live = open_page(server.url("/run/" + std::to_string(run_.run_id)), artifacts_ / "serve-live.png");
  EXPECT_EQ(console_messages(live.log), "");
  EXPECT_THAT(live.dom, HasSubstr(fmt::format("data-candidate=\"{}\"", run_.candidate_ids.front())));
  EXPECT_THAT(live.dom, HasSubstr(fmt::format("data-candidate=\"{}\"", added)));
  EXPECT_THAT(live.dom, HasSubstr("data-judged=\"7\""));
}

TEST_F(BrowserTest, TheEventStreamBringsANewCandidateWithinTwoSeconds) {
  const int port = free_port();
  Server server(store_path_, port);
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10, 0);
  std::string received;
  std::atomic<bool> opened{false};
  std::chrono::steady_clock::time_point arrived;
  std::int64_t added = -1;
  const auto events = store::RunReader::open(store_path_).events(run_.run_id);
  const std::int64_t last_event = events.empty() ? 0 : events.back().id;
  std::thread reader([&] {
    client.Get(("/events/" + std::to_string(run_.run_id) + "?after=" + std::to_string(last_event)).c_str(), [&](const char* data, std::size_t size) {
      opened = true;
      received.append(data, size);
      if (added > 0 && received.find(fmt::format("\"candidate\":{}", added)) != std::string::npos) {
        arrived = std::chrono::steady_clock::now();
        return false;
      }
      return true;
    });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const auto recorded = std::chrono::steady_clock::now();
  added = add_candidate(store_path_, run_.run_id, 7);
  // The stream only writes when there is something to write: the reader sees it with the next poll.
  reader.join();
  ASSERT_THAT(received, HasSubstr("event: judged"));
  EXPECT_LT(std::chrono::duration<double>(arrived - recorded).count(), 2.0);
  EXPECT_THAT(client.Get("/events/999")->status, 404);
  EXPECT_THAT(client.Get("/report/999")->status, 404);
}

}  // namespace
}  // namespace kernelarc::report

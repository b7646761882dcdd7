// The HTML report from a real store file written through the Store API: what it shows, its charts' points, its errors,
// that it never writes the store, and the weight of a 10,000-candidate run.
#include "report/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "report_store.h"
#include "store/run_reader.h"

namespace kernelarc::report {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The markers inside the <svg> whose id is `id`, and the count it declares.
std::pair<std::size_t, std::size_t> chart_points(const std::string& html, const std::string& id) {
  const auto at = html.find("id=\"" + id + "\"");
  if (at == std::string::npos) return {0, 0};
  const auto end = html.find("</svg>", at);
  const auto declared_at = html.find("data-points=\"", at) + 13;
  return {count(html.substr(at, end - at), "class=\"pt\""), std::stoul(html.substr(declared_at, html.find('"', declared_at) - declared_at))};
}

class HtmlReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    softmax_ = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
    matmul_ = task::load_task(fs::path(KERNELARC_TASKS) / "matmul");
    const auto& cpu = testing::first_template(softmax_, "cpu", task::TemplateForm::full);
    const auto knobs = testing::first_knobs(cpu), moved = testing::moved_knobs(cpu);
    auto store = store::Store::open(path_);
    run_ = testing::record_run(store, softmax_, cpu, "cpu",
                               {{knobs, "first", 1000}, {moved, "promoted", 800, "PASSED", 790}, {knobs, "rejected", 0, "INCORRECT_NUMERICAL"},
                                {moved, "backup", 900}, {moved, "promoted", 500, "PASSED", 505}});
    second_ = testing::record_run(store, softmax_, cpu, "cpu", {{knobs, "first", 1100}, {moved, "promoted", 700, "PASSED", 700}});
    const auto& matmul_cpu = testing::first_template(matmul_, "cpu", task::TemplateForm::full);
    other_ = testing::record_run(store, matmul_, matmul_cpu, "cpu", {{testing::first_knobs(matmul_cpu), "first", 2000}});
  }

  task::Task softmax_, matmul_;
  testing::TemporaryDirectory directory_;
  fs::path path_ = directory_.path() / "runs.db";
  testing::RecordedRun run_, second_, other_;
};

TEST_F(HtmlReportTest, ShowsTheRunItsChartsAndTheBestSource) {
  const auto reader = store::RunReader::open(path_);
  const RunData data = load_run(reader, run_.run_id);
  ASSERT_EQ(data.candidates.size(), 5u);
  ASSERT_TRUE(data.best);
  EXPECT_EQ(data.best->id, run_.candidate_ids[4]);
  const std::string html = run_report_html(data);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  // Nothing loaded from outside: the only URL is the SVG namespace, a name that is never fetched.
  std::string without_namespace = html;
  for (auto at = without_namespace.find("xmlns=\"http://www.w3.org/2000/svg\""); at != std::string::npos;
       at = without_namespace.find("xmlns=\"http://www.w3.org/2000/svg\""))
    without_namespace.erase(at, 34);
  EXPECT_THAT(without_namespace, Not(HasSubstr("http://")));
  EXPECT_THAT(without_namespace, Not(HasSubstr("https://")));
  // Candidates chart: 4 correct candidates as dots, 3 incumbents (start and two promotions) as markers.
  EXPECT_EQ(chart_points(html, "best-time-candidates"), std::make_pair(std::size_t{7}, std::size_t{7}));
  EXPECT_EQ(chart_points(html, "best-time-wall"), std::make_pair(std::size_t{3}, std::size_t{3}));
  // 16 workloads, each with a start and a best bar (no T_b, no T_sol recorded by the helper).
  EXPECT_EQ(chart_points(html, "workloads").first, 2 * softmax_.workloads.size());
  EXPECT_THAT(html, HasSubstr("id=\"no-score\""));
  EXPECT_THAT(html, HasSubstr("id=\"no-roofline\""));
  EXPECT_THAT(html, HasSubstr("id=\"lineage\""));
  EXPECT_THAT(html, HasSubstr("lesson 5"));
  EXPECT_THAT(html, HasSubstr("1.98x faster"));  // the best as promoted (its second measurement, 505 ns) against the start (1000 ns)
  // The source is there, escaped: the template's includes show as &lt;...&gt;.
  EXPECT_THAT(html, HasSubstr("#include &lt;"));
  EXPECT_THAT(html, HasSubstr("id=\"knobs\""));
}

TEST_F(HtmlReportTest, AnUnknownRunIsAClearErrorAndTheStoreIsNotWritten) {
  const auto before = fs::last_write_time(path_);
  const auto size = fs::file_size(path_);
  const auto reader = store::RunReader::open(path_);
  try {
    load_run(reader, 999);
    FAIL() << "no error for an unknown run";
  } catch (const ReportError& error) {
    EXPECT_THAT(error.what(), HasSubstr("no run 999"));
  }
  EXPECT_EQ(fs::last_write_time(path_), before);
  EXPECT_EQ(fs::file_size(path_), size);
  EXPECT_THROW(store::RunReader::open(directory_.path() / "missing.db"), store::StoreError);
  EXPECT_FALSE(fs::exists(directory_.path() / "missing.db"));
}

TEST_F(HtmlReportTest, ComparesRunsOfOneTaskAndRefusesAnother) {
  const auto reader = store::RunReader::open(path_);
  const std::string html = comparison_html({load_run(reader, run_.run_id), load_run(reader, second_.run_id)});
  EXPECT_EQ(chart_points(html, "compare-candidates").first, 5u);  // 3 incumbents of the first run, 2 of the second
  EXPECT_EQ(chart_points(html, "compare-workloads").first, 2 * softmax_.workloads.size());
  EXPECT_THAT(html, HasSubstr("run 1 best"));
  try {
    comparison_html({load_run(reader, run_.run_id), load_run(reader, other_.run_id)});
    FAIL() << "no error for runs of two tasks";
  } catch (const ReportError& error) {
    EXPECT_THAT(error.what(), HasSubstr("is on task matmul"));
  }
}

TEST_F(HtmlReportTest, RooflineAndScoreFromRecordedDetails) {
  {
    auto store = store::Store::open(path_);
    const auto& cpu = testing::first_template(softmax_, "cpu", task::TemplateForm::full);
    const auto recorded = testing::record_run(store, softmax_, cpu, "cpu", {});
    store.transaction([&] {
      store::CandidateRecord c;
      c.run_id = recorded.run_id, c.name = "start", c.source_hash = "h", c.source = "int main() {}", c.proposer = "start", c.build_json = R"({"ok":true})";
      const auto id = store.add_candidate(c);
      for (const auto& w : softmax_.workloads) {
        store::VerdictRecord v;
        v.candidate_id = id, v.workload_uuid = w.uuid, v.held_out = w.held_out, v.status = "PASSED";
        v.median_ns = 2000, v.sol_ns = 100, v.baseline_ns = 4000, v.score = 0.6;
        v.details_json = R"({"roofline":{"sol_ns":100,"flops":5000,"bytes":1000000,"bound":"memory"}})";
        store.add_verdict(v);
      }
      store.add_event({0, recorded.run_id, "judged", R"({"number":1,"candidate":)" + std::to_string(id) + R"(,"agent":"start","decision":"first","knobs":{}})", ""});
    });
    const auto reader = store::RunReader::open(path_);
    const RunData data = load_run(reader, recorded.run_id);
    EXPECT_DOUBLE_EQ(data.memory_roof, 1e6 / 100e-9);
    const std::string html = run_report_html(data);
    EXPECT_THAT(html, HasSubstr("id=\"roofline\""));
    EXPECT_EQ(chart_points(html, "roofline").first, 2 * softmax_.workloads.size());  // start and best (the same candidate)
    EXPECT_EQ(chart_points(html, "score-candidates").first, 1u);
    EXPECT_EQ(chart_points(html, "workloads").first, 4 * softmax_.workloads.size());
  }
}

// 10,000 candidates (every workload judged, roofline details, scores, a conclusion and a judged event each) make a page
// under 5 MB, read and written in seconds.
TEST_F(HtmlReportTest, TenThousandCandidatesWeighUnderFiveMegabytes) {
  std::int64_t run_id = 0;
  {
    auto store = store::Store::open(path_);
    run_id = testing::record_ten_thousand_candidates(store, softmax_);
  }
  const auto started = std::chrono::steady_clock::now();
  const auto reader = store::RunReader::open(path_);
  const std::string html = run_report_html(load_run(reader, run_id));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(html.size(), 5u * 1000 * 1000) << html.size() << " bytes";
  EXPECT_LT(seconds, 30) << "read and rendered in " << seconds << " s";
  EXPECT_EQ(chart_points(html, "best-time-candidates").first, chart_points(html, "best-time-candidates").second);
  EXPECT_GT(chart_points(html, "best-time-candidates").first, 8000u);
  EXPECT_THAT(html, HasSubstr("kernelarc board --run"));  // the board is cut, and says where the rest is
  std::cout << "10,000 candidates: " << html.size() << " bytes in " << seconds << " s" << std::endl;
}

}  // namespace
}  // namespace kernelarc::report

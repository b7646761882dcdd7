// The scripted run of the engine's tests: a judge whose times come from a formula over two knobs of the softmax CPU
// template (cut down to them: 6 configurations), and a fixture with a store in a temporary folder.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "brains/brains.h"
#include "engine/run.h"
#include "store/store.h"
#include "task/task.h"

namespace kernelarc::engine {

namespace fs = std::filesystem;

// Time falls with ROWS_PER_STEP and with ONE_PASS; ROWS_PER_STEP=2 with ONE_PASS=1 is wrong.
inline judge::CandidateVerdict scripted(const judge::CandidateSource& source, double noise = 0.0) {
  judge::CandidateVerdict verdict;
  verdict.name = source.name;
  verdict.build.ok = true;
  const auto rows = source.knobs.at("ROWS_PER_STEP"), one_pass = source.knobs.at("ONE_PASS");
  judge::WorkloadVerdict row;
  row.uuid = "w";
  if (rows == 2 && one_pass == 1) {
    row.status = judge::Status::incorrect_numerical;
    row.reason = "output 'y': 3 of 10 values outside tolerance";
  } else {
    judge::TimingStats timing;
    timing.median_ns = 1000.0 / static_cast<double>(rows) * (one_pass ? 0.8 : 1.0);
    timing.q1_ns = timing.median_ns * (1 - noise);
    timing.q3_ns = timing.median_ns * (1 + noise);
    row.timing = timing;
  }
  verdict.workloads.push_back(row);
  return verdict;
}

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-run-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    task_ = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
    // The scripted judge knows two knobs: the CPU template is cut down to them, 6 configurations.
    auto& rows = task_.definition.templates.front();
    ASSERT_EQ(rows.name, "rows");
    std::erase_if(rows.knobs, [](const task::Knob& knob) { return knob.name != "ROWS_PER_STEP" && knob.name != "ONE_PASS"; });
    rows.constraints.clear();
    ASSERT_EQ(rows.knobs.size(), 2u);
  }
  void TearDown() override { fs::remove_all(dir_); }

  RunSummary run(RunOptions options, const std::string& store_name = "runs.db") {
    auto store = store::Store::open(dir_ / store_name);
    engine::Run optimisation(task_, options, [](const judge::CandidateSource& source) { return scripted(source, 0.005); }, brains::brain_factory("search"), store);
    return optimisation.execute();
  }
  std::vector<std::string> decisions(std::int64_t run_id, const std::string& store_name = "runs.db") {
    auto store = store::Store::open(dir_ / store_name);
    std::vector<std::string> out;
    for (const auto& e : store.events(run_id)) {
      const auto payload = nlohmann::json::parse(e.payload_json);
      out.push_back(e.kind + (payload.contains("knobs") ? payload["knobs"].dump() + payload["decision"].get<std::string>() : ""));
    }
    return out;
  }

  fs::path dir_;
  task::Task task_;
};

}  // namespace kernelarc::engine

// A kernel-only launch's TMA tensor maps: what the judge asks the worker to encode, checked against the driver's rules
// before any GPU is involved.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "judge/launch_request.h"
#include "judge/worker_messages.h"
#include "task/task.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class LaunchRequestTest : public ::testing::Test {
 protected:
  LaunchRequestTest() {
    for (const auto& t : task_.definition.templates)
      if (t.name == "wgmma_cuda") tmpl_ = &t;
    candidate_.form = task::TemplateForm::kernel;
    for (const auto& knob : tmpl_->knobs) candidate_.knobs[knob.name] = knob.values.front();
    candidate_.launch = *tmpl_->launch;
  }

  // The map of x, BK elements wide and BM rows tall, with a 128-byte swizzle, at knobs BM = 128 and BK = 64.
  void map_x(const std::string& box_columns = "BK", const std::string& box_rows = "BM", int swizzle = 128) {
    candidate_.launch->tensor_maps = {{"x", {task::Expression::parse(box_columns), task::Expression::parse(box_rows)}, swizzle}};
    candidate_.knobs["BM"] = 128, candidate_.knobs["BK"] = 64;
  }

  nlohmann::json at(std::int64_t m, std::int64_t n, std::int64_t k) {
    task::Workload workload = task_.workloads.front();
    workload.axes = {{"M", m}, {"N", n}, {"K", k}};
    return launch_request(task_, task::resolve_workload(task_, workload), candidate_, 132);
  }

  void expect_refused(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& why) {
    try {
      at(m, n, k);
      ADD_FAILURE() << "expected a refusal: " << why;
    } catch (const std::runtime_error& error) {
      EXPECT_THAT(std::string(error.what()), HasSubstr(why));
    }
  }

  task::Task task_ = task::load_task(fs::path(KERNELARC_TASKS) / "gemm_bf16");
  const task::Template* tmpl_ = nullptr;
  CandidateSource candidate_;
};

TEST_F(LaunchRequestTest, ALaunchWithoutTensorMapsAsksForNone) {
  EXPECT_FALSE(at(1571, 4096, 4096).contains("tensor_maps"));
  EXPECT_TRUE(at(1571, 4096, 4096).get<message::Launch>().tensor_maps.empty());
}

TEST_F(LaunchRequestTest, AMapSeesItsInputAsRowsOfItsLastAxis) {
  map_x();
  const auto launch = at(1571, 4096, 5120).get<message::Launch>();
  ASSERT_EQ(launch.tensor_maps.size(), 1u);
  const auto& map = launch.tensor_maps[0];
  EXPECT_EQ(map.input, 0);  // x is the first input
  EXPECT_EQ(map.element_bytes, 2u);
  EXPECT_EQ(map.columns, 5120);  // K
  EXPECT_EQ(map.rows, 1571);     // M
  EXPECT_EQ(map.box_columns, 64u);
  EXPECT_EQ(map.box_rows, 128u);
  EXPECT_EQ(map.swizzle_bytes, 128u);
  // What the worker reads is what the judge wrote.
  const auto again = nlohmann::json(launch).get<message::Launch>().tensor_maps.at(0);
  EXPECT_EQ(again.columns, map.columns);
  EXPECT_EQ(again.rows, map.rows);
  EXPECT_EQ(again.box_columns, map.box_columns);
  EXPECT_EQ(again.box_rows, map.box_rows);
  EXPECT_EQ(again.swizzle_bytes, map.swizzle_bytes);
}

TEST_F(LaunchRequestTest, WhatTheCopyEngineCannotDoIsRefusedWithItsReason) {
  map_x("BK", "BM * 4");
  expect_refused(1571, 4096, 4096, "box \"BM * 4\" is 512 (expected 1 to 256)");
  map_x("BK * 2");
  expect_refused(1571, 4096, 4096, "a box row of 256 bytes is wider than its 128-byte swizzle");
  map_x("BK * 2", "BM", 0);
  EXPECT_EQ(at(1571, 4096, 4096).get<message::Launch>().tensor_maps.at(0).box_columns, 128u) << "no swizzle: no limit but 256";
  map_x("3", "BM", 0);
  expect_refused(1571, 4096, 4096, "a box row of 6 bytes (a multiple of 16 is needed)");
  map_x();
  expect_refused(1571, 4096, 4100, "its rows are 8200 bytes apart (a multiple of 16 is needed)");
  EXPECT_NO_THROW(at(1, 4096, 4100)) << "one row: no stride to align";
}

}  // namespace
}  // namespace kernelarc::judge

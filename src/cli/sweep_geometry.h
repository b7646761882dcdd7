// `kernelarc sweep --geometry`: each configuration's launch (grid, block, dynamic shared bytes, the scalar arguments) on
// each workload, as the judge would launch it (judge/launch_request.h), with nothing built, run or timed: no GPU needed.
// For looking at a launch rule, and for comparing launch rules before and after an edit (scripts/launch-geometry-diff).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "task/knob_grid.h"
#include "task/task.h"

namespace kernelarc::cli {

struct TemplateGrid {
  const task::Template* tmpl;  // a kernel-only CUDA template of the task
  task::KnobGrid grid;
};

// {"task", "num_sms", "templates": [{"template", "source" (relative to the task's directory), "kernel", "configurations":
// [{"label" (the knobs that differ from the default, or "default"), "knobs", "workloads": [{"uuid", "held_out", "grid",
// "block", "shared_bytes", "arguments"} or {"uuid", "held_out", "error"}]}], "skipped": [{"label", "knobs",
// "constraint"}]}], "refused": the launches the judge would refuse}.
nlohmann::json sweep_geometry(const task::Task& task, const std::vector<TemplateGrid>& grids, int num_sms);

// One row per template, configuration and workload (`template,configuration,knobs,workload,held_out,grid,block,
// shared_bytes,error`; a list cell's items joined by ';'), then one per skipped configuration (error: the constraint).
std::string sweep_geometry_csv(const nlohmann::json& geometry);

void print_sweep_geometry(const nlohmann::json& geometry);

}  // namespace kernelarc::cli

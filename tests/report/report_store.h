// A run store written through the Store API the way `kernelarc run` writes one (task, run, candidates with their
// verdicts, judged events through the run's journal, conclusions, the run_finished summary), with real template
// sources: what the report tests export and print, without judging anything. Also a 10,000-candidate run, the size
// the report must stay light and fast for.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/controller.h"
#include "engine/journal.h"
#include "judge/build_cache.h"
#include "store/store.h"
#include "task/task.h"

namespace kernelarc::report::testing {

struct RecordedCandidate {
  std::map<std::string, std::int64_t> knobs;
  std::string decision = "first";  // the controller's: first, promoted, backup, rejected
  double time_ns = 1000;           // the first workload's median; the others are multiples
  std::string status = "PASSED";   // every workload's verdict
  double again_ns = 0;             // > 0: measured a second time (before a promotion), the first workload at this
  std::string source;              // empty: the template's
  std::vector<std::string> build_command;  // the compiler's command as the judge records it (none: not recorded)
};

struct RecordedRun {
  std::int64_t run_id = 0;
  std::vector<std::int64_t> candidate_ids;
};

// A fresh folder under the temp directory, removed with the object.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kernelarc-report-test-XXXXXX").string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline const task::Template& template_named(const task::Task& task, const std::string& name) {
  for (const auto& t : task.definition.templates)
    if (t.name == name) return t;
  ADD_FAILURE() << task.definition.name << " has no template " << name;
  return task.definition.templates.front();
}

// The first template of the task for the device in the given form.
inline const task::Template& first_template(const task::Task& task, const std::string& device_kind, task::TemplateForm form) {
  for (const auto& t : task.definition.templates)
    if (t.device == device_kind && t.form == form) return t;
  ADD_FAILURE() << task.definition.name << " has no " << device_kind << " template in that form";
  return task.definition.templates.front();
}

// Every knob at its first value (the starting candidate of a run).
inline std::map<std::string, std::int64_t> first_knobs(const task::Template& t) {
  std::map<std::string, std::int64_t> knobs;
  for (const auto& knob : t.knobs) knobs[knob.name] = knob.values.front();
  return knobs;
}

// The first values with one knob moved to another value that the template's constraints allow: a candidate whose
// knobs differ from the source's own defaults, so an export that dropped them would show.
inline std::map<std::string, std::int64_t> moved_knobs(const task::Template& t) {
  for (const auto& knob : t.knobs)
    for (std::size_t v = knob.values.size(); v-- > 1;) {
      auto knobs = first_knobs(t);
      knobs[knob.name] = knob.values[v];
      task::Bindings names;
      for (const auto& [name, value] : knobs) names[name] = static_cast<double>(value);
      bool allowed = true;
      for (const auto& constraint : t.constraints) allowed = allowed && constraint.evaluate_condition(names);
      if (allowed) return knobs;
    }
  return first_knobs(t);
}

inline RecordedRun record_run(store::Store& store, const task::Task& task, const task::Template& tmpl, const std::string& device,
                              const std::vector<RecordedCandidate>& candidates, bool finished = true, const std::string& kind = "run") {
  using nlohmann::json;
  RecordedRun recorded;
  const std::string source = judge::read_text_file(tmpl.source);
  store.transaction([&] {
    const auto task_id = store.upsert_task({0, task.definition.name, task.directory.string(), task.content_hash, task.definition_json});
    const json config = {{"device", device}, {"template", tmpl.name}, {"agents", 2}};
    recorded.run_id = store.begin_run({0, task_id, kind, device, 1, config.dump(), "running", "{}", "", ""});
  });
  std::optional<std::int64_t> best;
  std::int64_t number = 0;
  for (const auto& spec : candidates) {
    store.transaction([&] {
      store::CandidateRecord candidate;
      candidate.run_id = recorded.run_id;
      std::string knob_text;
      for (const auto& [name, value] : spec.knobs) knob_text += (knob_text.empty() ? "" : "_") + name + std::to_string(value);
      candidate.name = task.definition.name + "." + tmpl.name + "." + knob_text;
      candidate.source_hash = "test";
      candidate.source = spec.source.empty() ? source : spec.source;
      candidate.knobs_json = json(spec.knobs).dump();
      candidate.parent_id = best;
      candidate.proposer = number == 0 ? "start" : "agent-1";
      candidate.hypothesis = number == 0 ? "the template's knobs at their first values" : "a step of one knob";
      candidate.build_json = (spec.build_command.empty() ? json{{"ok", true}} : json{{"ok", true}, {"command", spec.build_command}}).dump();
      const auto id = store.add_candidate(candidate);
      for (const bool again : {false, true}) {
        const double first_ns = again ? spec.again_ns : spec.time_ns;
        if (first_ns <= 0 && spec.status == "PASSED") continue;
        double factor = 1;
        for (const auto& workload : task.workloads) {
          store::VerdictRecord verdict;
          verdict.candidate_id = id;
          verdict.workload_uuid = workload.uuid;
          verdict.held_out = workload.held_out;
          verdict.status = spec.status;
          if (spec.status == "PASSED") {
            verdict.median_ns = first_ns * factor;
            verdict.samples_ns = {first_ns * factor, first_ns * factor * 1.01};
            if (again) verdict.details_json = json{{"measurement", "measured again before a promotion"}}.dump();
          } else {
            verdict.reason = "element 3: expected 1, got 2";
          }
          store.add_verdict(verdict);
          factor *= 1.5;
        }
        if (spec.status != "PASSED") break;
      }
      recorded.candidate_ids.push_back(id);
      ++number;
      engine::journal::Judged judged;
      judged.number = number, judged.candidate = id, judged.agent = candidate.proposer, judged.knobs = spec.knobs;
      judged.decision = engine::parse_decision(spec.decision).value();
      engine::journal::write(store, recorded.run_id, judged);
      if (spec.decision == "first" || spec.decision == "promoted") best = id;
      if (spec.decision != "first")
        store.add_conclusion({0, recorded.run_id, task.definition.name, "all", "tiling", candidate.hypothesis + " " + std::to_string(number),
                              spec.decision == "rejected" ? "rejected: INCORRECT_NUMERICAL" : spec.decision,
                              spec.decision == "promoted" ? 0.25 : spec.decision == "backup" ? -0.05 : 0.0,
                              "lesson " + std::to_string(number), ""});
    });
  }
  if (finished) {
    const json summary = {{"judged", candidates.size()}, {"best_candidate", best ? json(*best) : json()}};
    store.finish_run(recorded.run_id, best ? "finished" : "failed", summary.dump());
  }
  return recorded;
}

// A run of 10,000 candidates on softmax's CPU template, as `kernelarc run` records one: every workload judged with its
// roofline details and scores, one candidate in five incorrect, promotions whenever one is faster, a conclusion and a
// judged event (with the model's usage) each, a plateau every 16 and a few large sources. Returns the run's id.
inline std::int64_t record_ten_thousand_candidates(store::Store& store, const task::Task& softmax) {
  using nlohmann::json;
  const auto& cpu = first_template(softmax, "cpu", task::TemplateForm::full);
  const std::int64_t run_id = record_run(store, softmax, cpu, "cpu", {}, false).run_id;
  store.transaction([&] {
    std::optional<std::int64_t> parent;
    double best = 1e6;
    for (int n = 1; n <= 10000; ++n) {
      store::CandidateRecord c;
      c.run_id = run_id, c.name = "softmax.rows." + std::to_string(n), c.source_hash = "h", c.proposer = n == 1 ? "start" : "agent-" + std::to_string(n % 4);
      c.source = n == 1 || n % 997 == 0 ? std::string(20000, 'x') : "k";
      c.parent_id = parent;
      c.build_json = json{{"ok", true}}.dump();
      const auto id = store.add_candidate(c);
      const double time = 1e6 / (1 + 0.001 * (n % 1500)) * (1 + 0.1 * (n % 7));
      const bool passed = n % 5 != 0;
      for (const auto& w : softmax.workloads) {
        store::VerdictRecord v;
        v.candidate_id = id, v.workload_uuid = w.uuid, v.held_out = w.held_out, v.status = passed ? "PASSED" : "INCORRECT_NUMERICAL";
        if (passed) v.median_ns = time, v.sol_ns = 1000, v.baseline_ns = 2e6, v.score = 0.7, v.samples_ns = {time, time};
        v.details_json = R"({"roofline":{"sol_ns":1000,"flops":5000,"bytes":1000000,"bound":"memory"}})";
        store.add_verdict(v);
      }
      const std::string decision = n == 1 ? "first" : passed && time < best ? "promoted" : passed ? "backup" : "rejected";
      if (decision == "first" || decision == "promoted") best = time, parent = id;
      engine::journal::Judged judged;
      judged.number = n, judged.candidate = id, judged.agent = c.proposer, judged.strategy = "tiling", judged.knobs = {{"ROWS", n % 8}};
      judged.decision = engine::parse_decision(decision).value();
      judged.usage = engine::ModelUsage{1, 0, 1000, 200, 0.001};
      engine::journal::write(store, run_id, judged);
      if (n > 1) store.add_conclusion({0, run_id, "softmax", "all", "tiling", "step " + std::to_string(n), decision, 0.01, "lesson", ""});
      if (n % 16 == 0) engine::journal::write(store, run_id, engine::journal::Plateau{n, 16, 0.02, 16, {"tiling"}, std::nullopt});
    }
  });
  return run_id;
}

}  // namespace kernelarc::report::testing

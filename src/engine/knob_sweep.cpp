#include "engine/knob_sweep.h"

#include <fmt/format.h>

#include <chrono>
#include <future>

#include "engine/candidate_source.h"
#include "engine/compile_pool.h"

namespace kernelarc::engine {

double KnobSweep::configurations_per_minute() const {
  return seconds > 0 ? static_cast<double>(screenings.size()) * 60.0 / seconds : 0.0;
}

KnobSweep sweep_knob_grid(const task::Task& task, const task::Template& tmpl, const task::KnobGrid& grid, judge::Screener& screener,
                          bool builds_while_timing, const ScreenedCallback& screened, const judge::ProgressCallback& progress,
                          std::chrono::steady_clock::time_point deadline) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<judge::CandidateSource> sources;
  for (const auto& knobs : grid.configurations) sources.push_back(candidate_source(task, tmpl, knobs, {}));
  KnobSweep sweep;
  {
    CompilePool pool([&screener](const judge::CandidateSource& source) { screener.build(source); });
    std::vector<std::shared_future<void>> built;
    for (const auto& source : sources) built.push_back(pool.submit(source));
    if (!builds_while_timing && !sources.empty()) {
      if (progress) progress(fmt::format("building {} configurations on {} threads before timing", sources.size(), pool.threads()));
      for (const auto& build : built) {
        if (deadline == std::chrono::steady_clock::time_point::max()) build.wait();
        else build.wait_until(deadline);  // max() would overflow inside wait_until
      }
    }
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (std::chrono::steady_clock::now() >= deadline) {
        sweep.not_screened = sources.size() - i;
        if (progress) progress(fmt::format("time limit reached: {} of {} configurations not screened", sweep.not_screened, sources.size()));
        break;
      }
      built[i].wait();  // the screening's own build is then a cache hit
      sweep.screenings.push_back(screener.screen(sources[i]));  // the judge's lines per workload would drown the sweep's
      if (screened) screened(sweep.screenings.back(), i, sources.size());
    }
  }
  sweep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return sweep;
}

}  // namespace kernelarc::engine

// A run's options, and their record in the run's row: what it was started with, written once, so a resumed run goes on
// with the same agents, budget, judge and limits.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/controller.h"
#include "engine/plateau.h"
#include "store/store.h"

namespace kernelarc::engine {

struct RunOptions {
  std::string device = "cpu";
  int agents = 4;
  std::vector<std::string> strategies;          // empty: the template's strategies that own knobs, dealt out in turn
  int budget = 64;                              // candidates judged, the starting one included (second measurements not counted)
  std::chrono::seconds time_limit{0};           // 0: none
  std::optional<std::size_t> board_capacity;    // nullopt: unlimited
  std::uint64_t seed = 1;                       // the agents'
  std::uint64_t judge_seed = 0;                 // the judge's inputs: secret from the agents, recorded so a run can be replayed
  PlateauOptions plateau;
  ControllerOptions controller;
  std::string template_name;                    // empty: the task's first template for the device that has knobs
  std::string brain = "search";                 // recorded with the run; the factory itself is given to Run
  std::string reference = "auto";               // the judge's reference (auto, native, python): recorded, so a resumed run checks alike
  std::filesystem::path extensions_file;        // read back from a recorded run (the task's own extensions file is recorded)
  bool baseline_torch = false;                  // T_b measured through the oracle (cached on disk, so a resumed run reads the same)
  std::map<std::string, double> baseline_ns;    // T_b by workload uuid for the SOL score: recorded, so a resumed run scores alike
  std::optional<double> max_cost_usd;           // language models' spend at which the run stops; nullopt: no limit
  std::string llm_config;                       // the LLM team's configuration (JSON, no keys in it), so a resumed run asks the same models
  std::string start = "default";                // default: the template's first values; random: a seeded random allowed configuration
  // Screening (Run::screen_with): proposals are screened, a round's fastest screened again longer, and the fastest of those
  // judged in full. Off, or without a screening function, every proposal is judged in full.
  bool screening = true;
  int screen_round = 16;                        // proposals screened per round
  double screen_keep = 0.25;                    // the fraction of a round (faster than the incumbent) screened again, longer
  int finalists = 2;                            // at most this many of those judged in full per round
  int scouts = 16;                              // random configurations screened as the first round (0: none)
  bool remeasure_start = true;                  // judge the starting candidate again at the end: the final speed-up's reference
  std::size_t specialise = 4;                   // at the end, a candidate composed of up to this many configurations by shape class; 1: none
};

// The options as the run's row keeps them, with what the run chose: the strategies dealt, the template, the task's own
// extensions file.
nlohmann::json run_config(const RunOptions& options, const std::vector<std::string>& strategies, const std::string& template_name,
                          const std::filesystem::path& extensions_file);

// The options a run was started with, read back from its record in the store (for resume).
RunOptions run_options_from_store(const store::RunRecord& run);

}  // namespace kernelarc::engine

#include "engine/run_options.h"

namespace kernelarc::engine {

using nlohmann::json;

json run_config(const RunOptions& options, const std::vector<std::string>& strategies, const std::string& template_name,
                const std::filesystem::path& extensions_file) {
  return {{"device", options.device}, {"judge_seed", options.judge_seed}, {"brain", options.brain}, {"reference", options.reference},
          {"extensions", extensions_file.string()}, {"baseline_torch", options.baseline_torch}, {"agents", options.agents}, {"strategies", strategies}, {"budget", options.budget},
          {"time_limit_s", options.time_limit.count()}, {"template", template_name},
          {"board_capacity", options.board_capacity ? json(*options.board_capacity) : json("unlimited")},
          {"plateau", {{"window", options.plateau.window}, {"min_gain", options.plateau.min_gain}}},
          {"min_improvement", options.controller.min_improvement}, {"backup_capacity", options.controller.backup_capacity},
          {"baseline_ns", options.baseline_ns}, {"specialise", options.specialise},
          {"max_cost_usd", options.max_cost_usd ? json(*options.max_cost_usd) : json()},
          {"llm", options.llm_config.empty() ? json() : json::parse(options.llm_config)},
          {"start", options.start},
          {"screening", {{"on", options.screening}, {"round", options.screen_round}, {"keep", options.screen_keep}, {"finalists", options.finalists}, {"scouts", options.scouts}}}};
}

RunOptions run_options_from_store(const store::RunRecord& run) {
  const json config = json::parse(run.config_json);
  RunOptions options;
  options.device = run.device;
  options.seed = run.seed;
  options.judge_seed = config.value("judge_seed", run.seed);  // runs recorded before the judge had its own seed used the agents'
  options.agents = config.at("agents").get<int>();
  options.strategies = config.at("strategies").get<std::vector<std::string>>();
  options.budget = config.at("budget").get<int>();
  options.time_limit = std::chrono::seconds(config.at("time_limit_s").get<long long>());
  options.template_name = config.at("template").get<std::string>();
  options.brain = config.value("brain", "search");
  options.reference = config.value("reference", "auto");
  options.extensions_file = config.value("extensions", std::string());
  options.baseline_torch = config.value("baseline_torch", false);
  if (config.contains("llm") && config.at("llm").is_object()) options.llm_config = config.at("llm").dump();
  if (config.contains("max_cost_usd") && config.at("max_cost_usd").is_number()) options.max_cost_usd = config.at("max_cost_usd").get<double>();
  if (config.contains("baseline_ns")) options.baseline_ns = config.at("baseline_ns").get<std::map<std::string, double>>();
  options.start = config.value("start", "default");
  if (config.contains("screening")) {  // runs recorded before screening judged every proposal in full
    const auto& screening = config.at("screening");
    options.screening = screening.at("on").get<bool>();
    options.screen_round = screening.at("round").get<int>();
    options.screen_keep = screening.at("keep").get<double>();
    options.finalists = screening.at("finalists").get<int>();
    options.scouts = screening.value("scouts", 0);  // runs recorded before scouting had none
  } else {
    options.screening = false;
  }
  options.specialise = config.value("specialise", std::size_t{1});  // a run recorded before specialisation goes on without
  const auto& capacity = config.at("board_capacity");
  options.board_capacity = capacity.is_string() ? std::nullopt : std::optional<std::size_t>(capacity.get<std::size_t>());
  options.plateau = {config.at("plateau").at("window").get<std::size_t>(), config.at("plateau").at("min_gain").get<double>()};
  options.controller = {config.at("min_improvement").get<double>(), config.at("backup_capacity").get<std::size_t>()};
  return options;
}

}  // namespace kernelarc::engine

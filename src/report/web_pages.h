// The pages of `kernelarc serve`: the runs of the store, and one run followed live (server-sent events from the store).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "store/run_reader.h"

namespace kernelarc::report {

// Every run of the store, newest first, each linked to its live page and its report.
std::string runs_page_html(const store::RunReader& reader, const std::string& store_path);

// One run: its header and a table of the candidates judged so far, kept up to date by an EventSource on
// /events/RUN_ID (a small inline script, the page's only one). Throws ReportError for a run the store lacks.
std::string live_page_html(const store::RunReader& reader, std::int64_t run_id);

// What the live page receives for one store event: {"id", "kind", ...} with, for a judged candidate, its number,
// candidate id, agent, strategy, decision and time; null for an event the page does not show.
nlohmann::json live_event_json(const store::RunReader& reader, const store::EventRecord& event);

}  // namespace kernelarc::report

#include "engine/candidate_source.h"

#include <fmt/format.h>

#include "engine/composition.h"
#include "judge/build_cache.h"

namespace kernelarc::engine {

judge::CandidateSource candidate_source(const task::Task& task, const task::Template& tmpl, const Knobs& knobs,
                                        const std::map<std::int64_t, std::string>& sources) {
  if (const auto parts = composed_parts(knobs)) return composed_source(task, tmpl, *parts, composed_axis(knobs));
  judge::CandidateSource source;
  source.knobs = knobs;
  source.form = tmpl.form;
  source.launch = tmpl.launch;
  std::string text, origin = tmpl.name;
  if (const auto own = knobs.find(kSourceKnob); own != knobs.end()) {
    source.source = sources.at(own->second);
    source.knobs.erase(kSourceKnob);
    origin = fmt::format("proposed-{:012x}", static_cast<std::uint64_t>(own->second) & 0xffffffffffffull);
  } else {
    source.source = judge::read_text_file(tmpl.source);
  }
  for (const auto& [name, value] : source.knobs) text += fmt::format("{}{}{}", text.empty() ? "" : "_", name, value);
  source.name = fmt::format("{}.{}.{}", task.definition.name, origin, text);
  return source;
}

}  // namespace kernelarc::engine

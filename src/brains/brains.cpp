#include "brains/brains.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "brains/random_brain.h"
#include "brains/search_brain.h"

namespace kernelarc::brains {

namespace {

template <typename B>
engine::BrainFactory factory_of() {
  return [](const task::Template& tmpl, const std::string& strategy, std::uint64_t seed) { return std::make_unique<B>(tmpl, strategy, seed); };
}

}  // namespace

std::vector<std::string> brain_names() { return {"search", "random"}; }

engine::BrainFactory brain_factory(const std::string& name) {
  if (name == "search") return factory_of<SearchBrain>();
  if (name == "random") return factory_of<RandomBrain>();
  throw std::invalid_argument(fmt::format("unknown brain \"{}\" (known: {}, and llm with a model: docs/LLM.md)", name, fmt::join(brain_names(), ", ")));
}

}  // namespace kernelarc::brains

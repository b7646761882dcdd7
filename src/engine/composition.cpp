#include "engine/composition.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "judge/build_cache.h"
#include "judge/dispatch_rule.h"

namespace kernelarc::engine {

namespace {

constexpr const char* kFullEntry = "kernelarc_run";
const std::string kAxisKnobPrefix = "@by.";

std::string part_prefix(std::size_t index) { return fmt::format("@p{}", index); }

std::string knob_text(const Knobs& knobs) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : knobs) parts.push_back(fmt::format("{}={}", name, value));
  return fmt::format("{}", fmt::join(parts, " "));
}

struct SplitSource {
  std::vector<std::string> includes;  // in order, each once
  std::string body;                   // the rest, line for line
  std::vector<std::string> macros;    // every name the body #defines
};

// Includes go above every part: a standard header opened inside a namespace breaks. One inside an #if is hoisted too
// (the built-in templates have none; headers are guarded, so including one more is harmless).
SplitSource split_source(const std::string& text) {
  static const std::regex include_line(R"(^\s*#\s*include\b.*$)");
  static const std::regex define_line(R"(^\s*#\s*define\s+([A-Za-z_]\w*))");
  SplitSource out;
  std::set<std::string> seen_includes, seen_macros;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch match;
    if (std::regex_match(line, include_line)) {
      if (seen_includes.insert(line).second) out.includes.push_back(line);
      out.body += "\n";  // keeps the body's line count, so diagnostics' line numbers stay near the template's
      continue;
    }
    if (std::regex_search(line, match, define_line) && seen_macros.insert(match[1].str()).second) out.macros.push_back(match[1].str());
    out.body += line + "\n";
  }
  return out;
}

}  // namespace

Knobs composed_knobs(const std::vector<judge::DispatchPart>& parts, const std::string& axis) {
  Knobs knobs{{kPartsKnob, static_cast<std::int64_t>(parts.size())}};
  if (!axis.empty()) knobs[kAxisKnobPrefix + axis] = 1;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    for (const auto& [name, value] : parts[i].knobs) knobs[part_prefix(i) + "." + name] = value;
    if (parts[i].up_to) knobs[part_prefix(i) + "<="] = *parts[i].up_to;
  }
  return knobs;
}

std::optional<std::vector<judge::DispatchPart>> composed_parts(const Knobs& knobs) {
  const auto count = knobs.find(kPartsKnob);
  if (count == knobs.end()) return std::nullopt;
  if (count->second < 1 || count->second > 64) throw std::invalid_argument(fmt::format("{}={} (expected 1 to 64 parts)", kPartsKnob, count->second));
  std::vector<judge::DispatchPart> parts(static_cast<std::size_t>(count->second));
  for (const auto& [name, value] : knobs) {
    if (name == kPartsKnob || name.rfind(kAxisKnobPrefix, 0) == 0) continue;
    static const std::regex part_knob(R"(@p(\d+)(?:\.([A-Za-z_]\w*)|(<=)))");
    std::smatch match;
    if (!std::regex_match(name, match, part_knob)) throw std::invalid_argument(fmt::format("\"{}\" is not a composed candidate's knob", name));
    const auto index = std::stoul(match[1].str());
    if (index >= parts.size()) throw std::invalid_argument(fmt::format("\"{}\" names a part beyond the {} there are", name, parts.size()));
    if (match[3].matched)
      parts[index].up_to = value;
    else
      parts[index].knobs[match[2].str()] = value;
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if ((i + 1 < parts.size()) != parts[i].up_to.has_value())
      throw std::invalid_argument(fmt::format("part {} of {}: every part but the last has a bound", i, parts.size()));
    if (i > 0 && i + 1 < parts.size() && *parts[i].up_to <= *parts[i - 1].up_to)
      throw std::invalid_argument(fmt::format("part {}'s bound is not above part {}'s", i, i - 1));
  }
  return parts;
}

std::string composed_axis(const Knobs& knobs) {
  static const std::regex axis_knob(R"(@by\.([A-Za-z_]\w*))");
  std::string axis;
  for (const auto& [name, value] : knobs) {
    if (name.rfind(kAxisKnobPrefix, 0) != 0) continue;
    std::smatch match;
    if (!std::regex_match(name, match, axis_knob) || value != 1 || !axis.empty())
      throw std::invalid_argument(fmt::format("\"{}\"={}: a composed candidate has one dispatch axis, \"@by.<axis>\"=1", name, value));
    axis = match[1].str();
  }
  return axis;
}

Knobs search_base(const Knobs& knobs) {
  const auto parts = composed_parts(knobs);
  return parts ? parts->back().knobs : knobs;
}

std::string part_symbol(const std::string& entry, std::size_t index) { return fmt::format("{}_kernelarc_part{}", entry, index); }

std::string part_namespace(std::size_t index) { return fmt::format("kernelarc_part{}", index); }

std::size_t part_source_index(const std::vector<judge::DispatchPart>& parts, std::size_t index) {
  for (std::size_t earlier = 0; earlier < index; ++earlier)
    if (parts[earlier].knobs == parts[index].knobs) return earlier;
  return index;
}

std::size_t configuration_count(const std::vector<judge::DispatchPart>& parts) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) count += part_source_index(parts, i) == i;
  return count;
}

judge::CandidateSource composed_source(const task::Task& task, const task::Template& tmpl, const std::vector<judge::DispatchPart>& parts,
                                       const std::string& axis) {
  if (parts.empty()) throw std::runtime_error("a composed candidate needs at least one part");
  const bool kernel_form = tmpl.form == task::TemplateForm::kernel;
  if (kernel_form && (!tmpl.launch || tmpl.launch->kernel.empty()))
    throw std::runtime_error(fmt::format("template {} does not name its kernel (\"kernel\" in its launch), so its parts cannot be told apart",
                                         tmpl.name));
  const std::string entry = kernel_form ? tmpl.launch->kernel : kFullEntry;
  const SplitSource split = split_source(judge::read_text_file(tmpl.source));

  judge::CandidateSource source;
  source.form = tmpl.form;
  source.dispatch = parts;
  source.dispatch_axis = axis;
  judge::check_dispatch_axis(task.definition, axis);
  std::vector<std::string> names;
  std::string text = fmt::format("// {} parts ({} configurations) of template {} of task {}, composed by KernelArc: each takes the workloads\n"
                                 "// whose size ({}) is at most its bound.\n",
                                 parts.size(), configuration_count(parts), tmpl.name, task.definition.name,
                                 axis.empty() ? std::string("the product of the var axes") : fmt::format("var axis {}", axis));
  for (const auto& include : split.includes) text += include + "\n";
  const bool has_abi = std::any_of(split.includes.begin(), split.includes.end(),
                                   [](const std::string& line) { return line.find("kernelarc/candidate_abi.h") != std::string::npos; });
  if (!kernel_form && !has_abi) text += "#include <kernelarc/candidate_abi.h>\n";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& part = parts[i];
    const std::string sizes = part.up_to ? fmt::format("up to {}", *part.up_to) : std::string("above the other parts'");
    if (const std::size_t built = part_source_index(parts, i); built != i) {
      text += fmt::format("\n// ---- part {}: part {}'s configuration, built there; sizes {} ----\n", i, built, sizes);
      if (kernel_form) source.dispatch[i].launch = source.dispatch[built].launch;
    } else {
      const std::string symbol = part_symbol(entry, i);
      text += fmt::format("\n// ---- part {}: {}; sizes {} ----\n", i, knob_text(part.knobs), sizes);
      for (const auto& [name, value] : part.knobs) text += fmt::format("#define {} {}\n", name, value);
      text += fmt::format("#define {} {}\nnamespace {} {{\n", entry, symbol, part_namespace(i));
      text += split.body;
      text += fmt::format("}}  // namespace {}\n#undef {}\n", part_namespace(i), entry);
      for (const auto& [name, _] : part.knobs) text += fmt::format("#undef {}\n", name);
      for (const auto& macro : split.macros)
        if (!part.knobs.count(macro) && macro != entry) text += fmt::format("#undef {}\n", macro);
      if (kernel_form) {
        auto launch = *tmpl.launch;
        launch.kernel = symbol;
        source.dispatch[i].launch = launch;
      }
    }
    // The name shows what tells the parts apart: the knobs not set alike in every part, and the bounds.
    std::vector<std::string> named;
    for (const auto& [name, value] : part.knobs)
      if (std::any_of(parts.begin(), parts.end(), [&](const judge::DispatchPart& other) {
            const auto found = other.knobs.find(name);
            return found == other.knobs.end() || found->second != value;
          }))
        named.push_back(fmt::format("{}{}", name, value));
    if (part.up_to) named.push_back(fmt::format("upto{}", *part.up_to));
    names.push_back(named.empty() ? std::string("rest") : fmt::format("{}", fmt::join(named, "_")));
  }
  if (kernel_form) {
    source.launch = source.dispatch.front().launch;
  } else {
    text += "\n// ---- the entry point: the part for this call's size, by the rule the judge and exports use ----\n";
    text += "KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {\n";
    text += fmt::format("  if (num_inputs != {} || num_outputs != {}) return 1;\n", task.definition.inputs.size(), task.definition.outputs.size());
    text += fmt::format("  const double kernelarc_size = {};\n", judge::dispatch_size_cpp(task.definition, axis));
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::size_t built = part_source_index(parts, i);
      const std::string call =
          fmt::format("{}::{}(inputs, num_inputs, outputs, num_outputs, stream)", part_namespace(built), part_symbol(entry, built));
      if (parts[i].up_to && i + 1 < parts.size())
        text += fmt::format("  if (kernelarc_size <= {}.0) return {};\n", *parts[i].up_to, call);
      else
        text += fmt::format("  return {};\n", call);
      if (!parts[i].up_to || i + 1 == parts.size()) break;
    }
    text += "}\n";
  }
  source.source = std::move(text);
  source.name = fmt::format("{}.{}.composed{}.{}", task.definition.name, tmpl.name, axis.empty() ? "" : ".by" + axis, fmt::join(names, "."));
  return source;
}

}  // namespace kernelarc::engine

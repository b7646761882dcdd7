// A kernel template's launch rule: parsed with every name checked, and its "let" bindings evaluated.
#include <algorithm>

#include "task/task_file.h"

namespace kernelarc::task {
namespace task_file {

// A launch rule's "let" bindings, then grid, block and shared_bytes; every name an expression uses must be an axis, a
// knob, num_sms or a binding before it.
LaunchGeometry parse_launch(const Node& launch, const std::vector<Axis>& axes, const std::vector<Knob>& knobs,
                            const std::vector<TensorSpec>& inputs) {
  launch.allow_only({"let", "grid", "block", "shared_bytes", "kernel", "tensor_maps"});
  std::vector<std::string> known;  // the names usable so far, in the order a reader meets them
  for (const auto& axis : axes) known.push_back(axis.name);
  for (const auto& knob : knobs) known.push_back(knob.name);
  const auto reserved = [&](const std::string& name) { return std::find(known.begin(), known.end(), name) != known.end(); };
  if (reserved(std::string(kNumSmsName)))
    launch.fail(fmt::format("an axis or knob is named \"{}\", the device's SM count in launch rules; rename it", kNumSmsName));
  known.push_back(std::string(kNumSmsName));
  LaunchGeometry geometry;
  std::vector<std::string> bound_later;  // every "let" name, to tell a forward reference from an unknown name
  if (auto let = launch.find("let"))
    for (const auto& [name, _] : let->object().items()) bound_later.push_back(name);
  const auto check_names = [&](const Node& where, const Expression& expression, const std::string& binding) {
    for (const auto& variable : expression.variables()) {
      if (reserved(variable)) continue;
      if (variable == binding) where.fail(fmt::format("\"{}\" uses itself; a binding may use only the axes, the knobs, {} and the bindings before it",
                                                    binding, kNumSmsName));
      if (std::find(bound_later.begin(), bound_later.end(), variable) != bound_later.end())
        where.fail(fmt::format("\"{}\" is bound later in \"let\"; a binding may use only the bindings before it (move it up)", variable));
      where.fail(fmt::format("unknown name \"{}\"{}; the names here are {}", variable, common::did_you_mean(variable, known),
                             fmt::join(known, ", ")));
    }
  };
  if (auto let = launch.find("let")) {
    for (const auto& [name, _] : let->object().items()) {
      const Node value = let->at(name);
      if (!is_identifier(name)) value.fail("expected a binding name that is an identifier");
      if (reserved(name))
        value.fail(fmt::format("\"{}\" is already {}", name, name == kNumSmsName ? "the device's SM count" : "an axis, a knob or a binding"));
      const Expression expression = value.expression();
      check_names(value, expression, name);
      geometry.let.push_back({name, expression});
      known.push_back(name);
      bound_later.erase(std::find(bound_later.begin(), bound_later.end(), name));
    }
  }
  for (const char* key : {"grid", "block"}) {
    const Node dims = launch.at(key);
    if (dims.array_size() < 1 || dims.array_size() > 3) dims.fail("expected 1 to 3 expressions");
    auto& target = std::string(key) == "grid" ? geometry.grid : geometry.block;
    for (std::size_t i = 0; i < dims.array_size(); ++i) {
      target.push_back(dims.index(i).expression());
      check_names(dims.index(i), target.back(), "");
    }
  }
  if (auto shared = launch.find("shared_bytes")) {
    geometry.shared_bytes = shared->expression();
    check_names(*shared, *geometry.shared_bytes, "");
  }
  geometry.kernel = launch.string_or("kernel", "");
  if (auto maps = launch.find("tensor_maps"))
    for (std::size_t i = 0; i < maps->array_size(); ++i) {
      const Node map = maps->index(i);
      map.allow_only({"input", "box", "swizzle"});
      TensorMapRule rule;
      const Node input = map.at("input");
      rule.input = input.string();
      std::vector<std::string> names;
      for (const auto& spec : inputs) names.push_back(spec.name);
      const auto spec = std::find_if(inputs.begin(), inputs.end(), [&](const TensorSpec& t) { return t.name == rule.input; });
      if (spec == inputs.end())
        input.fail(fmt::format("no input \"{}\"{}; the inputs are {}", rule.input, common::did_you_mean(rule.input, names), fmt::join(names, ", ")));
      if (spec->is_scalar() || spec->shape->empty()) input.fail(fmt::format("\"{}\" is a scalar; a tensor map needs an axis", rule.input));
      if (spec->dtype == DType::float4_e2m1) input.fail("a tensor map cannot hold float4_e2m1 values (two to a byte)");
      const Node box = map.at("box");
      if (box.array_size() != 2) box.fail("expected two expressions: elements along the input's last axis, then rows");
      for (std::size_t j = 0; j < 2; ++j) {
        rule.box.push_back(box.index(j).expression());
        check_names(box.index(j), rule.box.back(), "");
      }
      if (auto swizzle = map.find("swizzle")) {
        rule.swizzle_bytes = static_cast<int>(swizzle->integer());
        if (rule.swizzle_bytes != 0 && rule.swizzle_bytes != 32 && rule.swizzle_bytes != 64 && rule.swizzle_bytes != 128)
          swizzle->fail("expected a swizzle of 0, 32, 64 or 128 bytes");
      }
      geometry.tensor_maps.push_back(std::move(rule));
    }
  return geometry;
}

}  // namespace task_file

Bindings launch_bindings(const LaunchGeometry& launch, Bindings names, int num_sms) {
  names[std::string(kNumSmsName)] = static_cast<double>(num_sms);
  for (const auto& binding : launch.let) {
    try {
      names[binding.name] = binding.expression.evaluate(names);
    } catch (const ExpressionError& error) {
      throw std::runtime_error(fmt::format("launch binding \"{}\": {}", binding.name, error.what()));
    }
  }
  return names;
}

}  // namespace kernelarc::task

#include "judge/input_generator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>
#include <string_view>
#include <stdexcept>

#include "common/hash.h"
#include "common/parallel.h"
#include "task/safetensors.h"

namespace kernelarc::judge {

namespace {

// A small deterministic generator (SplitMix64 stream) so inputs are identical on every platform. Normals come in pairs
// from one 64-bit draw by Box-Muller in float: the judge makes gigabytes of inputs per task, and double-precision
// transcendentals cost twice as much for tails it does not need (|z| reaches 5.8, one value in 10^8 beyond).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return common::mix64(state_++); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  float normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const std::uint64_t bits = next();
    const float u = (static_cast<float>(bits >> 40) + 0.5f) * 0x1.0p-24f;  // in (0, 1): the log is finite
    const float v = static_cast<float>((bits >> 8) & 0xFFFFFF) * 0x1.0p-24f;
    const float radius = std::sqrt(-2.0f * std::log(u));
    float sine = 0, cosine = 0;
    sincosf(6.28318530717958647692f * v, &sine, &cosine);
    spare_ = radius * sine;
    has_spare_ = true;
    return radius * cosine;
  }

 private:
  std::uint64_t state_;
  float spare_ = 0;
  bool has_spare_ = false;
};

bool mentions(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* word) { return text.find(word) != std::string::npos; });
}

bool ends_with_any(std::string_view text, std::initializer_list<std::string_view> suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view suffix) { return text.ends_with(suffix); });
}

bool is_one_of(std::string_view text, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), text) != names.end();
}

std::string_view without_trailing_digits(std::string_view name) {
  while (!name.empty() && name.back() >= '0' && name.back() <= '9') name.remove_suffix(1);
  return name;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The benchmark's name tests (io.py), case-sensitive as there.
bool is_norm_parameter(std::string_view name, std::string_view whole, std::string_view suffix) {
  if (name == whole) return true;
  if (!name.ends_with(suffix)) return false;
  const std::string_view prefix = name.substr(0, name.size() - suffix.size());
  if (ends_with_any(prefix, {"_norm", "_layernorm", "layernorm"})) return true;
  const std::string_view stripped = without_trailing_digits(prefix);
  return !stripped.empty() && ends_with_any(stripped, {"norm", "layernorm"});
}

bool is_weight_matrix(std::string_view name, std::size_t rank) {
  if (rank < 2) return false;
  const std::initializer_list<std::string_view> suffixes = {"_weight", "_weights", "_proj", "_projs", "_proj_weight",
                                                          "_proj_weights", "_weight_matrix"};
  if (name == "weight" || ends_with_any(name, suffixes)) return true;
  const std::string_view stripped = without_trailing_digits(name);
  return stripped == "weight" || ends_with_any(stripped, suffixes);
}

bool is_causal_mask(std::string_view name, const std::vector<std::int64_t>& shape, const std::string& description) {
  if (shape.size() < 2 || shape[shape.size() - 1] != shape[shape.size() - 2]) return false;
  return is_one_of(name, {"attention_mask", "causal_mask"}) ||
         (mentions(description, {"attention mask"}) && mentions(description, {"causal"}));
}

bool is_binary_mask(std::string_view name, const std::string& description) {
  if (is_one_of(name, {"x_mask", "text_mask", "aspect_ratio_mask", "drop_mask", "attention_mask"})) return true;
  return name.ends_with("_mask") && mentions(description, {"binary", "{0, 1}", "0 or 1", "1.0 for valid", "0.0 for masked"});
}

bool is_positive(std::string_view name) {
  if (is_one_of(name, {"rstd", "std", "variance", "var"}) || ends_with_any(name, {"_rstd", "_std", "_variance", "_var"})) return true;
  const std::string_view base = without_trailing_digits(name);
  return is_one_of(base, {"rstd", "std", "variance", "var"}) || ends_with_any(base, {"_rstd", "_std", "_var"});
}

bool is_softmax_output(std::string_view name, const std::string& description) {
  return is_one_of(name, {"attn_weights", "attention_weights", "routing_weights"}) ||
         (mentions(description, {"softmax"}) && mentions(description, {"output"}));
}

bool is_low_precision_float(task::DType dtype) {
  return dtype == task::DType::float8_e4m3fn || dtype == task::DType::float8_e5m2 || dtype == task::DType::float4_e2m1 ||
         dtype == task::DType::float4_e2m1fn_x2;
}

bool is_float4(task::DType dtype) { return dtype == task::DType::float4_e2m1 || dtype == task::DType::float4_e2m1fn_x2; }

// A shape of the spec's rank for checks made before any workload binds the axes: equal axis names get equal extents.
std::vector<std::int64_t> nominal_shape(const task::TensorSpec& spec) {
  std::vector<std::int64_t> shape;
  if (!spec.shape) return shape;
  for (std::size_t i = 0; i < spec.shape->size(); ++i) {
    const auto first = std::find(spec.shape->begin(), spec.shape->end(), (*spec.shape)[i]);
    shape.push_back(16 + (first - spec.shape->begin()));
  }
  return shape;
}

bool is_activation_regime(InputRegime regime) {
  return regime == InputRegime::shifted || regime == InputRegime::scaled || regime == InputRegime::long_tailed ||
         regime == InputRegime::extremes;
}

// What one input's values are made from in one regime.
struct Plan {
  ValueProfile profile = ValueProfile::normal;
  InputRegime regime = InputRegime::benchmark;  // benchmark where the asked regime does not apply to this input
  task::DType dtype = task::DType::float32;
  std::int64_t row = 1;      // values per row of the last dimension
  std::int64_t square = 1;   // the causal mask's side
  float limit = 0;           // values clamped to [-limit, limit]; 0: not clamped (integers)
};

constexpr std::int64_t kChunkValues = 1 << 16;

// Values [begin, end) of one input into at[0, end - begin); begin and end fall on row boundaries.
void fill_profile(const Plan& plan, Random& random, float* at, std::int64_t begin, std::int64_t end) {
  const std::int64_t row = plan.row;
  const auto each = [&](auto value) {
    for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(value(i));
  };
  const auto uniform = [&](double low, double high) { each([&](std::int64_t) { return low + (high - low) * random.uniform(); }); };
  switch (plan.profile) {
    case ValueProfile::normal:
      each([&](std::int64_t) { return random.normal(); });
      break;
    case ValueProfile::norm_weight:
      each([&](std::int64_t) { return 1.0 + 0.1 * random.normal(); });
      break;
    case ValueProfile::bias:
      each([&](std::int64_t) { return 0.1 * random.normal(); });
      break;
    case ValueProfile::causal_mask: {
      const std::int64_t side = plan.square;
      const double lowest = -static_cast<double>(plan.limit);
      each([&](std::int64_t i) { return i % side > (i / side) % side ? lowest : 0.0; });
      break;
    }
    case ValueProfile::binary_mask:
    case ValueProfile::booleans:
      each([&](std::int64_t) { return static_cast<double>(random.next() >> 63); });
      break;
    case ValueProfile::rope_cos:
      each([&](std::int64_t) { return std::cos(std::clamp<double>(random.normal(), -M_PI, M_PI)); });
      break;
    case ValueProfile::rope_sin:
      each([&](std::int64_t) { return std::sin(std::clamp<double>(random.normal(), -M_PI, M_PI)); });
      break;
    case ValueProfile::positive:
      each([&](std::int64_t) { return std::fabs(random.normal()) + 0.1; });
      break;
    case ValueProfile::ssm_a:
      uniform(-1.0, -0.001);
      break;
    case ValueProfile::ssm_a_log:
      uniform(-5.0, -1.0);
      break;
    case ValueProfile::ssm_gate:
      uniform(-5.0, 0.0);
      break;
    case ValueProfile::ssm_a_cumsum: {
      double total = 0;
      each([&](std::int64_t i) {
        if (i % row == 0) total = 0;
        return total += -0.1 * random.uniform();
      });
      break;
    }
    case ValueProfile::probabilities:
      for (std::int64_t start = begin; start < end; start += row) {
        double total = 0;
        const std::int64_t stop = std::min(end, start + row);
        for (std::int64_t i = start; i < stop; ++i) total += (at[i - begin] = static_cast<float>(std::exp(random.normal())));
        for (std::int64_t i = start; i < stop; ++i) at[i - begin] = static_cast<float>(at[i - begin] / total);
      }
      break;
    case ValueProfile::fan_in_weight: {
      const double scale = 1.0 / std::sqrt(static_cast<double>(row));
      each([&](std::int64_t) { return scale * random.normal(); });
      break;
    }
    case ValueProfile::integers:
      if (plan.dtype == task::DType::int8) each([&](std::int64_t) { return static_cast<double>(random.next() % 256) - 128; });
      else if (plan.dtype == task::DType::uint8) each([&](std::int64_t) { return static_cast<double>(random.next() % 256); });
      else each([&](std::int64_t) { return static_cast<double>(random.next() % 2048) - 1024; });
      break;
    case ValueProfile::unit_interval:
      uniform(0.05, 0.95);
      break;
    case ValueProfile::rotary:
      each([&](std::int64_t i) {
        const double angle = 2 * M_PI * random.uniform();
        return i % 2 ? std::sin(angle) : std::cos(angle);
      });
      break;
    case ValueProfile::mask:
      for (std::int64_t start = begin; start < end; start += row) {
        const std::int64_t stop = std::min(end, start + row);
        for (std::int64_t i = start; i < stop; ++i) at[i - begin] = random.uniform() < 0.7 ? 1.0f : 0.0f;
        at[start - begin] = 1.0f;  // a row with nothing valid is not a real mask
      }
      break;
    case ValueProfile::indices:
      each([&](std::int64_t) { return static_cast<double>(random.next() % 128); });
      break;
    case ValueProfile::small_integers:
      each([&](std::int64_t) { return static_cast<double>(static_cast<int>(random.next() % 17) - 8); });
      break;
  }
}

// The activation regimes, over N(0, 1) activations, row by row.
void fill_regime(const Plan& plan, Random& random, float* at, std::int64_t begin, std::int64_t end) {
  const std::int64_t row = plan.row;
  for (std::int64_t start = begin; start < end; start += row) {
    float* values = at + (start - begin);
    const std::int64_t count = std::min(end, start + row) - start;
    switch (plan.regime) {
      case InputRegime::shifted: {
        const double offset = (60.0 + 40.0 * random.uniform()) * (random.next() >> 63 ? 1.0 : -1.0);
        for (std::int64_t i = 0; i < count; ++i) values[i] = static_cast<float>(offset + random.normal());
        break;
      }
      case InputRegime::scaled: {
        const double factor = 20.0 + 30.0 * random.uniform();
        for (std::int64_t i = 0; i < count; ++i) values[i] = static_cast<float>(factor * random.normal());
        break;
      }
      case InputRegime::long_tailed:
        for (std::int64_t i = 0; i < count; ++i) {
          const double z = random.normal(), a = random.normal(), b = random.normal(), c = random.normal();
          const double t = z / std::sqrt(std::max((a * a + b * b + c * c) / 3.0, 1e-12));
          values[i] = static_cast<float>(random.next() % 1024 == 0 ? 64.0 * t : t);
        }
        break;
      case InputRegime::extremes: {
        const double target = plan.limit * (0.25 + 0.25 * random.uniform());
        double largest = 0;
        for (std::int64_t i = 0; i < count; ++i) largest = std::max(largest, std::fabs(static_cast<double>(values[i] = random.normal())));
        const double scale = largest > 0 ? target / largest : 0;
        for (std::int64_t i = 0; i < count; ++i) values[i] = static_cast<float>(values[i] * scale);
        break;
      }
      case InputRegime::benchmark:
      case InputRegime::realistic:
        break;
    }
  }
}

Plan make_plan(const task::TensorSpec& spec, const std::vector<std::int64_t>& shape, InputRegime regime, std::string_view op_type) {
  Plan plan;
  plan.dtype = spec.dtype;
  plan.profile = choose_profile(spec, shape, op_type);
  if (regime_applies(spec, shape, regime, op_type)) {
    plan.regime = regime;
    if (regime == InputRegime::realistic) plan.profile = choose_realistic_profile(spec, shape.size());
  }
  const int per_element = task::values_per_element(spec.dtype);
  plan.row = shape.empty() ? 1 : std::max<std::int64_t>(shape.back() * per_element, 1);
  plan.square = shape.empty() ? 1 : std::max<std::int64_t>(shape.back(), 1);
  if (task::is_floating(spec.dtype)) {
    const double largest = std::min<double>(task::max_finite(spec.dtype), std::numeric_limits<float>::max());
    plan.limit = static_cast<float>(largest);
    // The benchmark draws float8 from N(0, 1) clamped to [-2, 2].
    if (plan.regime == InputRegime::benchmark && plan.profile == ValueProfile::normal &&
        (spec.dtype == task::DType::float8_e4m3fn || spec.dtype == task::DType::float8_e5m2))
      plan.limit = 2.0f;
    // Products of two such values stay finite in the dtype (fp16: 256).
    if (plan.regime == InputRegime::scaled || plan.regime == InputRegime::long_tailed)
      plan.limit = static_cast<float>(std::min(1e4, std::sqrt(largest)));
  }
  return plan;
}

std::uint64_t regime_seed(std::uint64_t seed, InputRegime regime) {
  return regime == InputRegime::benchmark ? seed : common::mix64(seed ^ (0x5245474dull * (static_cast<std::uint64_t>(regime) + 1)));
}

}  // namespace

const char* regime_name(InputRegime regime) {
  switch (regime) {
    case InputRegime::benchmark: return "benchmark";
    case InputRegime::realistic: return "realistic";
    case InputRegime::shifted: return "shifted";
    case InputRegime::scaled: return "scaled";
    case InputRegime::long_tailed: return "long_tailed";
    case InputRegime::extremes: return "extremes";
  }
  return "?";
}

const std::vector<InputRegime>& all_regimes() {
  static const std::vector<InputRegime> regimes = {InputRegime::benchmark, InputRegime::realistic,   InputRegime::shifted,
                                                   InputRegime::scaled,    InputRegime::long_tailed, InputRegime::extremes};
  return regimes;
}

ValueProfile choose_profile(const task::TensorSpec& spec, const std::vector<std::int64_t>& shape, std::string_view op_type) {
  if (spec.dtype == task::DType::boolean) return ValueProfile::booleans;
  if (task::is_integral(spec.dtype)) return ValueProfile::integers;
  // Plain scalars, float8 and float4 take no heuristic: N(0, 1) (float8 clamped).
  if (spec.is_scalar() || is_low_precision_float(spec.dtype)) return ValueProfile::normal;
  const std::string_view name = spec.name;
  const std::string description = lowercase(spec.description);
  if (is_norm_parameter(name, "norm_weight", "_weight")) return ValueProfile::norm_weight;
  if (is_norm_parameter(name, "norm_bias", "_bias")) return ValueProfile::bias;
  if (is_causal_mask(name, shape, description)) return ValueProfile::causal_mask;
  if (is_binary_mask(name, description)) return ValueProfile::binary_mask;
  if (is_one_of(name, {"cos", "cos_cached", "rope_cos"})) return ValueProfile::rope_cos;
  if (is_one_of(name, {"sin", "sin_cached", "rope_sin"})) return ValueProfile::rope_sin;
  if (is_positive(name)) return ValueProfile::positive;
  if (name == "A") return ValueProfile::ssm_a;
  if (name == "A_log") return ValueProfile::ssm_a_log;
  if (name == "A_cumsum") return ValueProfile::ssm_a_cumsum;
  if (name == "g") return ValueProfile::ssm_gate;
  if (is_softmax_output(name, description)) return ValueProfile::probabilities;
  if (is_weight_matrix(name, shape.size())) return ValueProfile::fan_in_weight;
  if (op_type == "sampling" && name == "probs") return ValueProfile::probabilities;
  return ValueProfile::normal;
}

ValueProfile choose_realistic_profile(const task::TensorSpec& spec, std::size_t rank) {
  const std::string name = lowercase(spec.name);
  const std::string text = name + " " + lowercase(spec.description);
  if (spec.dtype == task::DType::boolean || mentions(name, {"mask"})) return ValueProfile::mask;
  if (task::is_integral(spec.dtype)) {
    if (mentions(text, {"idx", "index", "indices", "ids", "position", "token"})) return ValueProfile::indices;
    return ValueProfile::small_integers;
  }
  if (mentions(text, {"prob", "probabilities", "attention weights"})) return ValueProfile::probabilities;
  if (mentions(name, {"cos", "sin", "rotary", "rope", "freq"})) return ValueProfile::rotary;
  if (mentions(text, {"decay", "gate_logit_decay", "forget"})) return ValueProfile::unit_interval;
  if (mentions(name, {"var", "scale", "std", "temperature"})) return ValueProfile::positive;
  if (mentions(name, {"bias", "beta"})) return ValueProfile::bias;
  const bool norm = mentions(text, {"norm", "gamma", "ln_", "layernorm", "rmsnorm"});
  if (mentions(name, {"weight", "gamma"}) && (norm || rank <= 1)) return ValueProfile::norm_weight;
  if (mentions(name, {"weight", "proj", "w_", "kernel"}) && rank >= 2) return ValueProfile::fan_in_weight;
  return ValueProfile::normal;
}

const char* profile_name(ValueProfile profile) {
  switch (profile) {
    case ValueProfile::normal: return "normal";
    case ValueProfile::norm_weight: return "norm_weight";
    case ValueProfile::bias: return "bias";
    case ValueProfile::causal_mask: return "causal_mask";
    case ValueProfile::binary_mask: return "binary_mask";
    case ValueProfile::rope_cos: return "rope_cos";
    case ValueProfile::rope_sin: return "rope_sin";
    case ValueProfile::positive: return "positive";
    case ValueProfile::ssm_a: return "ssm_a";
    case ValueProfile::ssm_a_log: return "ssm_a_log";
    case ValueProfile::ssm_a_cumsum: return "ssm_a_cumsum";
    case ValueProfile::ssm_gate: return "ssm_gate";
    case ValueProfile::probabilities: return "probabilities";
    case ValueProfile::fan_in_weight: return "fan_in_weight";
    case ValueProfile::integers: return "integers";
    case ValueProfile::booleans: return "booleans";
    case ValueProfile::unit_interval: return "unit_interval";
    case ValueProfile::rotary: return "rotary";
    case ValueProfile::mask: return "mask";
    case ValueProfile::indices: return "indices";
    case ValueProfile::small_integers: return "small_integers";
  }
  return "?";
}

bool regime_applies(const task::TensorSpec& spec, const std::vector<std::int64_t>& shape, InputRegime regime,
                    std::string_view op_type) {
  if (regime == InputRegime::benchmark || spec.is_scalar()) return false;
  const ValueProfile benchmark = choose_profile(spec, shape, op_type);
  const ValueProfile realistic = choose_realistic_profile(spec, shape.size());
  if (regime == InputRegime::realistic) return realistic != benchmark;
  return is_activation_regime(regime) && task::is_floating(spec.dtype) && !is_float4(spec.dtype) &&
         benchmark == ValueProfile::normal && realistic == ValueProfile::normal;
}

std::vector<InputRegime> stricter_regimes(const task::Definition& definition) {
  return stricter_regimes(definition, task::Workload{});
}

std::vector<InputRegime> stricter_regimes(const task::Definition& definition, const task::Workload& workload) {
  std::vector<InputRegime> regimes;
  for (const InputRegime regime : all_regimes()) {
    // Values near the dtype's limit overflow an honest fp32 sum of squares as they overflow the PyTorch reference's: a
    // judge that failed such kernels would reject what the benchmark accepts. Made on request (generate_input), not here.
    if (regime == InputRegime::extremes) continue;
    for (const auto& spec : definition.inputs) {
      const auto source = workload.inputs.find(spec.name);
      if (source != workload.inputs.end() && source->second.kind != task::InputKind::random) continue;
      if (regime_applies(spec, nominal_shape(spec), regime, definition.op_type)) {
        regimes.push_back(regime);
        break;
      }
    }
  }
  return regimes;
}

std::vector<std::byte> generate_input(const task::TensorSpec& spec, const std::vector<std::int64_t>& shape,
                                      const task::InputSource& source, std::uint64_t seed, InputRegime regime,
                                      std::string_view op_type) {
  std::vector<std::byte> bytes(task::storage_bytes(spec.dtype, task::element_count(shape)));
  generate_input_into(spec, shape, source, seed, bytes.data(), regime, op_type);
  return bytes;
}

void generate_input_into(const task::TensorSpec& spec, const std::vector<std::int64_t>& shape, const task::InputSource& source,
                         std::uint64_t seed, std::byte* destination, InputRegime regime, std::string_view op_type) {
  const std::int64_t count = task::element_count(shape);
  const std::size_t byte_count = task::storage_bytes(spec.dtype, count);
  const int per_element = task::values_per_element(spec.dtype);
  const std::int64_t values = count * per_element;
  if (source.kind == task::InputKind::custom)
    throw std::runtime_error(fmt::format("input '{}' is custom: it needs the PyTorch reference oracle", spec.name));
  if (source.kind == task::InputKind::safetensors) {
    const auto tensor = task::read_safetensors_tensor(source.path, source.tensor_key);
    if (tensor.dtype != spec.dtype || tensor.shape != shape)
      throw std::runtime_error(fmt::format("input '{}': safetensors tensor '{}' is {} {}, expected {} {}", spec.name,
                                           source.tensor_key, task::dtype_name(tensor.dtype), fmt::join(tensor.shape, "x"),
                                           task::dtype_name(spec.dtype), fmt::join(shape, "x")));
    std::memcpy(destination, tensor.data.data(), byte_count);
    return;
  }
  if (source.kind == task::InputKind::scalar && per_element == 1) {
    // Element by element in double, so large integer scalars survive exactly.
    for (std::int64_t i = 0; i < count; ++i) task::store_element(spec.dtype, destination, i, source.value);
    return;
  }
  const Plan plan = make_plan(spec, shape, regime, op_type);
  const std::uint64_t stream_seed = regime_seed(seed, plan.regime);
  // Whole rows per chunk, each chunk with its own stream: the values do not depend on the number of cores. Each chunk
  // is converted to the dtype where it was made (a row of a packed type is whole bytes), so no float copy of the input
  // is ever whole.
  std::int64_t chunk = std::max<std::int64_t>(1, kChunkValues / plan.row) * plan.row;
  if (chunk % 2) chunk *= 2;  // so a chunk of a 4-bit type starts on a byte
  common::for_each_chunk(values, chunk, [&](std::int64_t begin, std::int64_t end, std::int64_t index) {
    std::vector<float> data(static_cast<std::size_t>(end - begin));
    if (source.kind == task::InputKind::scalar) {
      std::fill(data.begin(), data.end(), static_cast<float>(source.value));
    } else {
      Random random(common::mix64(stream_seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(index + 1)));
      if (is_activation_regime(plan.regime)) fill_regime(plan, random, data.data(), begin, end);
      else fill_profile(plan, random, data.data(), begin, end);
      if (plan.limit > 0)
        for (float& value : data) value = std::clamp(value, -plan.limit, plan.limit);
    }
    task::from_float32(spec.dtype, data.data(), end - begin, destination + task::storage_bytes(spec.dtype, begin / per_element));
  });
}

}  // namespace kernelarc::judge

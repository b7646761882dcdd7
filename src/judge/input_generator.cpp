#include "judge/input_generator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <cmath>
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

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

constexpr std::int64_t kChunkValues = 1 << 16;

// Values [begin, end) of one input into at[0, end - begin), in `row`-long rows (begin and end fall on row boundaries).
void fill_values(ValueProfile profile, Random& random, float* at, std::int64_t begin, std::int64_t end, std::int64_t row) {
  switch (profile) {
    case ValueProfile::normal:
      for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(random.normal());
      break;
    case ValueProfile::norm_weight:
      for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(1.0 + 0.1 * random.normal());
      break;
    case ValueProfile::bias:
      for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(0.1 * random.normal());
      break;
    case ValueProfile::fan_in_weight: {
      const double scale = 1.0 / std::sqrt(static_cast<double>(row));
      for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(scale * random.normal());
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
    case ValueProfile::positive:
      for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(std::fabs(random.normal()) + 0.5);
      break;
    case ValueProfile::unit_interval:
      for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(0.05 + 0.9 * random.uniform());
      break;
    case ValueProfile::rotary:
      for (std::int64_t i = begin; i < end; ++i) {
        const double angle = 2 * M_PI * random.uniform();
        at[i - begin] = static_cast<float>(i % 2 ? std::sin(angle) : std::cos(angle));
      }
      break;
    case ValueProfile::mask:
      for (std::int64_t start = begin; start < end; start += row) {
        const std::int64_t stop = std::min(end, start + row);
        for (std::int64_t i = start; i < stop; ++i) at[i - begin] = random.uniform() < 0.7 ? 1.0f : 0.0f;
        at[start - begin] = 1.0f;  // a row with nothing valid is not a real mask
      }
      break;
    case ValueProfile::indices:
      for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(random.next() % 128);
      break;
    case ValueProfile::small_integers:
      for (std::int64_t i = begin; i < end; ++i) at[i - begin] = static_cast<float>(static_cast<int>(random.next() % 17) - 8);
      break;
  }
}

}  // namespace

ValueProfile choose_profile(const task::TensorSpec& spec, std::size_t rank) {
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
    case ValueProfile::fan_in_weight: return "fan_in_weight";
    case ValueProfile::probabilities: return "probabilities";
    case ValueProfile::positive: return "positive";
    case ValueProfile::unit_interval: return "unit_interval";
    case ValueProfile::rotary: return "rotary";
    case ValueProfile::mask: return "mask";
    case ValueProfile::indices: return "indices";
    case ValueProfile::small_integers: return "small_integers";
  }
  return "?";
}

std::vector<std::byte> generate_input(const task::TensorSpec& spec, const std::vector<std::int64_t>& shape,
                                      const task::InputSource& source, std::uint64_t seed) {
  std::vector<std::byte> bytes(task::storage_bytes(spec.dtype, task::element_count(shape)));
  generate_input_into(spec, shape, source, seed, bytes.data());
  return bytes;
}

void generate_input_into(const task::TensorSpec& spec, const std::vector<std::int64_t>& shape, const task::InputSource& source,
                         std::uint64_t seed, std::byte* destination) {
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
  const auto profile = choose_profile(spec, shape.size());
  const std::int64_t row = shape.empty() ? 1 : std::max<std::int64_t>(shape.back() * per_element, 1);
  const float limit = task::is_floating(spec.dtype) ? static_cast<float>(task::max_finite(spec.dtype)) : 0.0f;
  // Whole rows per chunk, each chunk with its own stream: the values do not depend on the number of cores. Each chunk
  // is converted to the dtype where it was made (a row of a packed type is whole bytes), so no float copy of the input
  // is ever whole.
  std::int64_t chunk = std::max<std::int64_t>(1, kChunkValues / row) * row;
  if (chunk % 2) chunk *= 2;  // so a chunk of a 4-bit type starts on a byte
  common::for_each_chunk(values, chunk, [&](std::int64_t begin, std::int64_t end, std::int64_t index) {
    std::vector<float> data(static_cast<std::size_t>(end - begin));
    if (source.kind == task::InputKind::scalar) {
      std::fill(data.begin(), data.end(), static_cast<float>(source.value));
    } else {
      Random random(common::mix64(seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(index + 1)));
      fill_values(profile, random, data.data(), begin, end, row);
      if (limit > 0)
        for (float& value : data) value = std::clamp(value, -limit, limit);
    }
    task::from_float32(spec.dtype, data.data(), end - begin, destination + task::storage_bytes(spec.dtype, begin / per_element));
  });
}

}  // namespace kernelarc::judge

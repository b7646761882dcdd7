#include "judge/backend.h"

#include <fmt/format.h>

#include <stdexcept>

namespace kernelarc::judge {

namespace {

const Backend* cpu_backend_pointer() { return &cpu_backend(); }

// Every kind of device KernelArc knows, whether or not this build has its backend: a name this build cannot use is
// still a device name, refused with the reason, not as a typo.
struct KnownDevice {
  const char* kind;
  const char* pattern;  // as help texts write it
  bool numbered;        // "kind:N"; the kind alone is ordinal 0
  const Backend* (*backend)();
  const char* absent_reason;  // why a build without its backend cannot use it
};

constexpr KnownDevice kKnownDevices[] = {
    {"cpu", "cpu", false, &cpu_backend_pointer, ""},
    {"cuda", "cuda:N", true, &cuda_backend, "this build has no CUDA support (the CUDA toolkit was not found when it was built)"},
};

const KnownDevice* known_device(const std::string& kind) {
  for (const auto& known : kKnownDevices)
    if (kind == known.kind) return &known;
  return nullptr;
}

}  // namespace

std::string DeviceName::text() const {
  const auto* known = known_device(kind);
  return known && known->numbered ? fmt::format("{}:{}", kind, ordinal) : kind;
}

std::optional<DeviceName> parse_device(const std::string& device) {
  for (const auto& known : kKnownDevices) {
    const std::string kind = known.kind;
    if (device == kind) return DeviceName{kind, 0};
    if (!known.numbered || device.rfind(kind + ":", 0) != 0 || device.size() == kind.size() + 1) continue;
    int ordinal = 0;
    for (char c : device.substr(kind.size() + 1)) {
      if (c < '0' || c > '9' || ordinal > 1000) return std::nullopt;
      ordinal = ordinal * 10 + (c - '0');
    }
    return DeviceName{kind, ordinal};
  }
  return std::nullopt;
}

std::string known_device_names() {
  std::string names;
  for (const auto& known : kKnownDevices) names += (names.empty() ? "" : " or ") + std::string(known.pattern);
  return names;
}

std::vector<const Backend*> available_backends() {
  std::vector<const Backend*> backends;
  for (const auto& known : kKnownDevices)
    if (const Backend* backend = known.backend()) backends.push_back(backend);
  return backends;
}

const Backend& backend_for(const std::string& device) {
  const auto name = parse_device(device);
  if (!name) throw std::invalid_argument(fmt::format("unknown device \"{}\" (expected {})", device, known_device_names()));
  const auto* known = known_device(name->kind);
  const Backend* backend = known->backend();
  if (!backend) throw std::runtime_error(fmt::format("device {}: {}", device, known->absent_reason));
  return *backend;
}

const Backend* find_backend(const std::string& device) {
  const auto name = parse_device(device);
  return name ? known_device(name->kind)->backend() : nullptr;
}

std::optional<std::string> device_unavailable_reason(const std::string& device) {
  const auto name = parse_device(device);
  if (!name) return fmt::format("unknown device \"{}\" (expected {})", device, known_device_names());
  const auto* known = known_device(name->kind);
  const Backend* backend = known->backend();
  if (!backend) return std::string(known->absent_reason);
  return backend->unavailable_reason();
}

}  // namespace kernelarc::judge

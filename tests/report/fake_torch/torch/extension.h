// Just enough of PyTorch's C++ API for a generated binding (src/report/torch_binding.cpp) to compile and run in a test
// without PyTorch: tensors are host buffers that remember their dtype, shape and whether they count as CUDA and
// contiguous. The test checks what the binding hands the candidate, not PyTorch.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace c10 {

enum class ScalarType { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16, Float8_e5m2, Float8_e4m3fn, Float4_e2m1fn_x2 };
inline std::ostream& operator<<(std::ostream& out, ScalarType type) { return out << "ScalarType#" << static_cast<int>(type); }

enum class DeviceType { CPU, CUDA };

struct Device {
  Device() = default;
  Device(DeviceType, int device_index) : index(device_index) {}
  bool operator==(const Device& other) const { return index == other.index; }
  int index = 0;
};

class Scalar {
 public:
  Scalar(double value) : value_(value) {}
  Scalar(std::int64_t value) : value_(static_cast<double>(value)) {}
  Scalar(bool value) : value_(value ? 1.0 : 0.0) {}
  double to_double() const { return value_; }

 private:
  double value_;
};

}  // namespace c10

namespace at {

using c10::ScalarType;

class TensorOptions {
 public:
  TensorOptions dtype(ScalarType type) const {
    TensorOptions copy = *this;
    copy.dtype_ = type;
    return copy;
  }
  TensorOptions device(c10::Device device) const {
    TensorOptions copy = *this;
    copy.device_ = device;
    return copy;
  }
  ScalarType dtype_ = ScalarType::Float;
  c10::Device device_;
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(std::vector<std::int64_t> sizes, ScalarType type, bool cuda = true, bool contiguous = true, int device = 0)
      : state_(std::make_shared<State>(State{std::move(sizes), type, cuda, contiguous, device, {}})) {
    state_->storage.resize(64);
  }
  bool is_cuda() const { return state_->cuda; }
  ScalarType scalar_type() const { return state_->type; }
  std::int64_t dim() const { return static_cast<std::int64_t>(state_->sizes.size()); }
  bool is_contiguous() const { return state_->contiguous; }
  const std::vector<std::int64_t>& sizes() const { return state_->sizes; }
  void* data_ptr() const { return state_->storage.data(); }
  int get_device() const { return state_->device; }
  c10::Device device() const { return {c10::DeviceType::CUDA, state_->device}; }
  // A copy with its own storage unless already contiguous, as PyTorch's.
  Tensor contiguous() const {
    if (state_->contiguous) return *this;
    return Tensor(state_->sizes, state_->type, state_->cuda, true, state_->device);
  }
  double scalar = 0;  // what scalar_tensor filled in

 private:
  struct State {
    std::vector<std::int64_t> sizes;
    ScalarType type;
    bool cuda;
    bool contiguous;
    int device;
    std::vector<unsigned char> storage;
  };
  std::shared_ptr<State> state_;
};

inline Tensor scalar_tensor(const c10::Scalar& value, const TensorOptions& options) {
  Tensor t({}, options.dtype_, true, true, options.device_.index);
  t.scalar = value.to_double();
  return t;
}

}  // namespace at

namespace torch {
using at::scalar_tensor;
using at::Tensor;
using at::TensorOptions;
}  // namespace torch

template <class... Parts>
void kernelarc_fake_torch_message(std::ostream& out, const Parts&... parts) {
  (out << ... << parts);
}

#define TORCH_CHECK(condition, ...)                         \
  do {                                                      \
    if (!(condition)) {                                     \
      std::ostringstream kernelarc_message;                 \
      kernelarc_fake_torch_message(kernelarc_message, __VA_ARGS__); \
      throw std::runtime_error(kernelarc_message.str());    \
    }                                                       \
  } while (0)

struct KernelarcFakeModule {
  template <class Function>
  void def(const char*, Function, const char*) {}
};
#define PYBIND11_MODULE(name, module) void kernelarc_fake_module_init(KernelarcFakeModule& module)

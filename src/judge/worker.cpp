#include "judge/worker.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "judge/shared_buffer.h"
#include "kernelarc/candidate_abi.h"
#include "task/dtype.h"

namespace kernelarc::judge {

using nlohmann::json;

namespace {

struct TensorLayout {
  DLDataType dtype{};
  std::vector<std::int64_t> shape;
};

class Worker {
 public:
  Worker(int input_fd, int output_fd) : input_fd_(input_fd), output_fd_(output_fd) {}

  int serve() {
    std::string line;
    while (read_line(line)) {
      json reply;
      try {
        const json request = json::parse(line);
        const std::string op = request.at("op").get<std::string>();
        if (op == "quit") {
          send({{"ok", true}});
          return 0;
        }
        reply = handle(op, request);
      } catch (const std::exception& error) {
        reply = {{"ok", false}, {"error", error.what()}};
      }
      send(reply);
    }
    return 0;
  }

 private:
  json handle(const std::string& op, const json& request) {
    if (op == "hello") return {{"ok", true}, {"pid", getpid()}, {"protocol", kWorkerProtocolVersion}};
    if (op == "noop") return {{"ok", true}};
    if (op == "load") return load(request.at("library").get<std::string>());
    if (op == "map") {
      buffer_ = SharedBuffer::open(request.at("file").get<std::string>(), request.at("bytes").get<std::size_t>());
      return {{"ok", true}};
    }
    if (op == "bind") {
      inputs_ = layouts(request.at("inputs"));
      outputs_ = layouts(request.at("outputs"));
      return {{"ok", true}};
    }
    if (op == "flush") return flush(request.at("bytes").get<std::size_t>());
    if (op == "call") return call(request.at("inputs"), request.at("outputs"), request.value("null", false));
    throw std::runtime_error(fmt::format("unknown op \"{}\"", op));
  }

  json load(const std::string& library) {
    entry_ = nullptr;
    if (handle_) dlclose(handle_);
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) return {{"ok", false}, {"error", fmt::format("dlopen failed: {}", dlerror())}};
    entry_ = reinterpret_cast<kernelarc_entry_fn>(dlsym(handle_, KERNELARC_ENTRY_POINT_NAME));
    if (!entry_)
      return {{"ok", false},
              {"error", fmt::format("the library does not export {} (declare it extern \"C\", or use KERNELARC_CANDIDATE)",
                                    KERNELARC_ENTRY_POINT_NAME)}};
    return {{"ok", true}};
  }

  static std::vector<TensorLayout> layouts(const json& list) {
    std::vector<TensorLayout> out;
    for (const auto& item : list) {
      const auto dtype = task::parse_dtype(item.at("dtype").get<std::string>());
      if (!dtype) throw std::runtime_error("unknown dtype in bind");
      out.push_back({task::to_dlpack(*dtype), item.at("shape").get<std::vector<std::int64_t>>()});
    }
    return out;
  }

  json flush(std::size_t bytes) {
    const std::size_t words = bytes / sizeof(std::uint64_t);
    if (flush_buffer_.size() != words) flush_buffer_.assign(words, 0);
    // Ordinary stores over every line evict the candidate's data from every cache level. The values
    // differ per word and per flush so the loop cannot become a memset, whose large-size path uses
    // non-temporal stores that bypass the cache.
    const std::uint64_t salt = ++flushes_ * 0x9e3779b97f4a7c15ull;
    std::uint64_t* words_begin = flush_buffer_.data();
    for (std::size_t i = 0; i < words; ++i) words_begin[i] = i ^ salt;
    volatile std::uint64_t sink = words_begin[words / 2];
    (void)sink;
    return {{"ok", true}};
  }

  // Fresh DLTensor structs for every call, so a candidate that edits them cannot affect the next one.
  std::vector<DLTensor> tensors(const std::vector<TensorLayout>& layouts, const json& offsets,
                                std::vector<std::vector<std::int64_t>>& shapes) const {
    if (!buffer_.data()) throw std::runtime_error("call before map");
    if (offsets.size() != layouts.size()) throw std::runtime_error("call: tensor count differs from bind");
    std::vector<DLTensor> out(layouts.size());
    shapes.clear();
    for (const auto& layout : layouts) shapes.push_back(layout.shape);
    for (std::size_t i = 0; i < layouts.size(); ++i) {
      const auto offset = offsets[i].get<std::size_t>();
      if (offset > buffer_.size()) throw std::runtime_error("call: offset outside the shared buffer");
      out[i].data = buffer_.data() + offset;
      out[i].device = {kDLCPU, 0};
      out[i].ndim = static_cast<std::int32_t>(layouts[i].shape.size());
      out[i].dtype = layouts[i].dtype;
      out[i].shape = shapes[i].data();
      out[i].strides = nullptr;
      out[i].byte_offset = 0;
    }
    return out;
  }

  static std::string metadata_change(const char* side, const std::vector<TensorLayout>& layouts,
                                     const std::vector<DLTensor>& tensors, const std::vector<std::vector<std::int64_t>>& shapes,
                                     const std::vector<void*>& data) {
    for (std::size_t i = 0; i < layouts.size(); ++i) {
      const DLTensor& t = tensors[i];
      if (t.dtype.code != layouts[i].dtype.code || t.dtype.bits != layouts[i].dtype.bits || t.dtype.lanes != layouts[i].dtype.lanes)
        return fmt::format("dtype:{} {} dtype was changed by the candidate", side, i);
      if (t.data != data[i] || t.ndim != static_cast<std::int32_t>(layouts[i].shape.size()) || t.shape != shapes[i].data() ||
          shapes[i] != layouts[i].shape || t.strides != nullptr || t.byte_offset != 0)
        return fmt::format("shape:{} {} shape, data pointer or strides were changed by the candidate", side, i);
    }
    return "";
  }

  // The judge times a "null" call, the same path with an empty entry point, to learn its own overhead.
  static int null_entry(const DLTensor* const*, std::int32_t, DLTensor* const*, std::int32_t, void*) { return 0; }

  json call(const json& input_offsets, const json& output_offsets, bool null_call) {
    const kernelarc_entry_fn entry = null_call ? &Worker::null_entry : entry_;
    if (!entry) throw std::runtime_error("call before load");
    std::vector<std::vector<std::int64_t>> input_shapes, output_shapes;
    auto in = tensors(inputs_, input_offsets, input_shapes);
    auto out = tensors(outputs_, output_offsets, output_shapes);
    std::vector<const DLTensor*> in_pointers;
    std::vector<DLTensor*> out_pointers;
    std::vector<void*> in_data, out_data;
    for (auto& t : in) in_pointers.push_back(&t), in_data.push_back(t.data);
    for (auto& t : out) out_pointers.push_back(&t), out_data.push_back(t.data);
    const auto start = std::chrono::steady_clock::now();
    const int rc = entry(in_pointers.data(), static_cast<std::int32_t>(in.size()), out_pointers.data(),
                          static_cast<std::int32_t>(out.size()), nullptr);
    const auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    std::string change = metadata_change("input", inputs_, in, input_shapes, in_data);
    if (change.empty()) change = metadata_change("output", outputs_, out, output_shapes, out_data);
    return {{"ok", true}, {"rc", rc}, {"ns", ns}, {"metadata", change}};
  }

  bool read_line(std::string& line) {
    for (;;) {
      const auto newline = pending_.find('\n');
      if (newline != std::string::npos) {
        line = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        return true;
      }
      wait_for_input();
      char chunk[4096];
      const ssize_t count = ::read(input_fd_, chunk, sizeof chunk);
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) return false;
      pending_.append(chunk, static_cast<std::size_t>(count));
    }
  }

  // Spin briefly before sleeping: waking a sleeping process costs tens of microseconds, which
  // would otherwise land inside the timed round trip.
  void wait_for_input() const {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWorkerSpinMilliseconds);
    pollfd fd{input_fd_, POLLIN, 0};
    while (std::chrono::steady_clock::now() < until)
      if (poll(&fd, 1, 0) != 0) return;
    poll(&fd, 1, -1);
  }

  void send(const json& reply) {
    const std::string text = reply.dump() + '\n';
    for (std::size_t sent = 0; sent < text.size();) {
      const ssize_t count = ::write(output_fd_, text.data() + sent, text.size() - sent);
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) _exit(3);
      sent += static_cast<std::size_t>(count);
    }
  }

  int input_fd_;
  int output_fd_;
  std::string pending_;
  void* handle_ = nullptr;
  kernelarc_entry_fn entry_ = nullptr;
  SharedBuffer buffer_;
  std::vector<TensorLayout> inputs_, outputs_;
  std::vector<std::uint64_t> flush_buffer_;
  std::uint64_t flushes_ = 0;
};

}  // namespace

int run_worker(const std::string& device) {
  if (device != "cpu") {
    fmt::print(stderr, "kernelarc worker: device \"{}\" is not supported by this build (only cpu)\n", device);
    return 2;
  }
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // Keep the protocol on private descriptors; the candidate's stdout goes to stderr, its stdin is empty.
  const int protocol_in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  const int protocol_out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (protocol_in < 0 || protocol_out < 0) return 3;
  dup2(STDERR_FILENO, STDOUT_FILENO);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  Worker worker(protocol_in, protocol_out);
  return worker.serve();
}

}  // namespace kernelarc::judge

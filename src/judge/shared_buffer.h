// A file-backed memory region mapped by both the judge and a worker: tensors cross without copies or text.
#pragma once

#include <cstddef>
#include <filesystem>

namespace kernelarc::judge {

class SharedBuffer {
 public:
  // Creates (truncating) the file and maps it; the creator removes the file when destroyed.
  static SharedBuffer create(const std::filesystem::path& file, std::size_t bytes);
  // Maps an existing file that the judge created.
  static SharedBuffer open(const std::filesystem::path& file, std::size_t bytes);

  SharedBuffer() = default;
  SharedBuffer(SharedBuffer&& other) noexcept;
  SharedBuffer& operator=(SharedBuffer&& other) noexcept;
  SharedBuffer(const SharedBuffer&) = delete;
  SharedBuffer& operator=(const SharedBuffer&) = delete;
  ~SharedBuffer();

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  void release();

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::filesystem::path file_;
  bool owner_ = false;
};

}  // namespace kernelarc::judge

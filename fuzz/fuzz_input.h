// What the fuzz targets share: the input as text, and a scratch folder for parsers that read files.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace kernelarc::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// One folder per process, made once: the file-reading parsers get their input written there.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path folder = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "kernelarc-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) abort();
    return std::filesystem::path(pattern);
  }();
  return folder;
}

inline void write(const std::filesystem::path& file, std::string_view content) { std::ofstream(file, std::ios::binary) << content; }

// The first line of the input and the rest, for targets with two inputs.
inline std::pair<std::string, std::string> split(const std::string& input, char at = '\0') {
  const auto cut = input.find(at);
  if (cut == std::string::npos) return {input, ""};
  return {input.substr(0, cut), input.substr(cut + 1)};
}

}  // namespace kernelarc::fuzz

#include "judge/build_cache.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/hash.h"
#include "judge/abi_header.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;

void write_file_atomically(const fs::path& target, std::string_view content) {
  // Unique per call, not only per process: compilers in threads of one process write the same file at once.
  static std::atomic<unsigned> counter{0};
  const fs::path temporary = target.string() + fmt::format(".tmp{}-{}", getpid(), counter.fetch_add(1));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw std::runtime_error(fmt::format("cannot write {}", temporary.string()));
    }
  }
  std::error_code error;
  fs::rename(temporary, target, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);  // a failed write leaves nothing behind
    throw fs::filesystem_error("cannot replace the file", temporary, target, error);
  }
}

std::string read_text_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

BuildCache::BuildCache(fs::path root) : root_(std::move(root)) {
  fs::create_directories(root_);
  std::vector<std::pair<std::string_view, std::string_view>> headers = {{"kernelarc/candidate_abi.h", candidate_abi_header()},
                                                                      {"dlpack/dlpack.h", dlpack_header()}};
  for (const auto& header : shared_device_headers()) headers.push_back(header);
  // Named by the headers' content: a build's flags name the folder, so a changed header is a new cache key.
  std::string all;
  for (const auto& [name, text] : headers) all += std::string(text);
  abi_include_ = root_ / "include" / common::content_hash(all).substr(0, 16);
  for (const auto& [name, text] : headers) {
    const fs::path file = abi_include_ / name;
    if (fs::exists(file) && read_text_file(file) == text) continue;
    fs::create_directories(file.parent_path());
    write_file_atomically(file, text);
  }
}

fs::path BuildCache::entry(std::string_view kind, std::string_view key, std::string_view extension) const {
  return root_ / kind / fmt::format("{}.{}", key, extension);
}

fs::path BuildCache::make_work_directory(std::string_view kind) const {
  fs::create_directories(root_ / kind);
  std::string pattern = (root_ / kind / "build-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error(fmt::format("cannot create a build folder in {}", (root_ / kind).string()));
  return pattern;
}

void BuildCache::publish(const fs::path& built, const fs::path& entry) const { fs::rename(built, entry); }

}  // namespace kernelarc::judge

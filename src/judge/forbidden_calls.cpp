#include "judge/forbidden_calls.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>

namespace kernelarc::judge {

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Reads a T at offset, or nullopt when the file is too short (the library is the compiler's, but a truncated cache
// entry must not crash the judge).
template <typename T>
std::optional<T> read_at(const std::string& image, std::uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

}  // namespace

std::optional<std::string> forbidden_call_in_source(const std::string& source, const std::vector<std::string>& forbid) {
  if (forbid.empty()) return std::nullopt;
  int line = 1;
  for (std::size_t i = 0; i < source.size();) {
    const char c = source[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (source.compare(i, 2, "//") == 0) {
      while (i < source.size() && source[i] != '\n') ++i;
    } else if (source.compare(i, 2, "/*") == 0) {
      const std::size_t end = source.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? source.size() : end + 2;
      line += static_cast<int>(std::count(source.begin() + static_cast<std::ptrdiff_t>(i), source.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
      i = stop;
    } else if (c == '"' || c == '\'') {
      // A literal: its text is not a call (a name in a string handed to dlsym is caught on the library's imports).
      for (++i; i < source.size() && source[i] != c && source[i] != '\n'; ++i)
        if (source[i] == '\\') ++i;
      ++i;
    } else if (identifier_char(c) && !std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t start = i;
      while (i < source.size() && identifier_char(source[i])) ++i;
      const std::string word = source.substr(start, i - start);
      if (std::find(forbid.begin(), forbid.end(), word) != forbid.end())
        return fmt::format("line {} uses {}, which this task forbids (definition.json, kernelarc.forbid): write the kernel "
                           "instead of calling a library",
                           line, word);
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

std::vector<std::string> imported_symbols(const std::filesystem::path& library) {
  std::ifstream in(library, std::ios::binary);
  const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> names;
  const auto header = read_at<Elf64_Ehdr>(image, 0);
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64 ||
      header->e_shentsize != sizeof(Elf64_Shdr))
    return names;
  const auto section = [&](std::uint32_t index) { return read_at<Elf64_Shdr>(image, header->e_shoff + std::uint64_t{index} * sizeof(Elf64_Shdr)); };
  for (std::uint32_t s = 0; s < header->e_shnum; ++s) {
    const auto symbols = section(s);
    if (!symbols || symbols->sh_type != SHT_DYNSYM || symbols->sh_entsize != sizeof(Elf64_Sym)) continue;
    const auto strings = section(symbols->sh_link);
    if (!strings) continue;
    for (std::uint64_t offset = 0; offset + sizeof(Elf64_Sym) <= symbols->sh_size; offset += sizeof(Elf64_Sym)) {
      const auto symbol = read_at<Elf64_Sym>(image, symbols->sh_offset + offset);
      if (!symbol) break;
      if (symbol->st_shndx != SHN_UNDEF || symbol->st_name == 0 || symbol->st_name >= strings->sh_size) continue;
      const std::uint64_t at = strings->sh_offset + symbol->st_name;
      if (at >= image.size()) continue;
      const std::size_t end = image.find('\0', at);
      names.push_back(image.substr(at, (end == std::string::npos ? image.size() : end) - at));
    }
  }
  return names;
}

std::optional<std::string> forbidden_call_in_library(const std::filesystem::path& library, const std::vector<std::string>& forbid,
                                                     bool lookups_allowed) {
  if (forbid.empty()) return std::nullopt;
  for (const auto& name : imported_symbols(library)) {
    if (std::find(forbid.begin(), forbid.end(), name) != forbid.end())
      return fmt::format("the built library imports {}, which this task forbids (definition.json, kernelarc.forbid)", name);
    if (!lookups_allowed && (name == "dlopen" || name == "dlsym" || name == "dlvsym" || name == "dlmopen"))
      return fmt::format("the built library imports {}: a task that forbids calls ({}) does not allow looking functions up at run time",
                         name, fmt::join(forbid, ", "));
  }
  return std::nullopt;
}

}  // namespace kernelarc::judge

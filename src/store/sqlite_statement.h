// A prepared SQLite statement of the run store, and the StoreError that names the operation and SQLite's message.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/core.h>

#include "store/store.h"

namespace kernelarc::store {

[[noreturn]] inline void throw_sqlite_error(sqlite3* db, std::string_view operation) {
  throw StoreError(fmt::format("{}: {}", operation, sqlite3_errmsg(db)));
}

// One prepared statement; every value goes in through a bound parameter.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql, std::string_view operation)
      : db_(db), operation_(operation) {
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement_,
                           nullptr) != SQLITE_OK) {
      throw_sqlite_error(db_, operation_);
    }
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(statement_); }

  template <class... Values>
  Statement& bind(const Values&... values) {
    int index = 0;
    (bind_one(++index, values), ...);
    return *this;
  }

  // True while a row is available.
  bool step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw_sqlite_error(db_, operation_);
  }

  void run() {
    if (step()) throw StoreError(fmt::format("{}: statement unexpectedly returned rows", operation_));
  }

  void reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }

  std::int64_t int64(int column) const { return sqlite3_column_int64(statement_, column); }
  double real(int column) const { return sqlite3_column_double(statement_, column); }
  bool is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

  std::string text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    if (data == nullptr) return {};
    return std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)));
  }

  std::optional<std::int64_t> optional_int64(int column) const {
    if (is_null(column)) return std::nullopt;
    return int64(column);
  }

  std::optional<double> optional_real(int column) const {
    if (is_null(column)) return std::nullopt;
    return real(column);
  }

 private:
  template <class T>
  void bind_one(int index, const T& value) {
    int rc = SQLITE_OK;
    if constexpr (std::is_same_v<T, std::int64_t>) {
      rc = sqlite3_bind_int64(statement_, index, value);
    } else if constexpr (std::is_same_v<T, double>) {
      rc = sqlite3_bind_double(statement_, index, value);
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
      // An empty string_view may have a null data(), which SQLite would store as NULL.
      const char* data = value.empty() ? "" : value.data();
      rc = sqlite3_bind_text64(statement_, index, data, value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>> ||
                         std::is_same_v<T, std::optional<double>>) {
      if (value.has_value()) {
        bind_one(index, *value);
        return;
      }
      rc = sqlite3_bind_null(statement_, index);
    } else {
      static_assert(!sizeof(T), "unsupported parameter type: convert it explicitly");
    }
    if (rc != SQLITE_OK) throw_sqlite_error(db_, operation_);
  }

  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  std::string operation_;
};

}  // namespace kernelarc::store

#include "store/store.h"

#include <sqlite3.h>

#include <chrono>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include "store/sqlite_statement.h"

namespace kernelarc::store {
namespace {

namespace fs = std::filesystem;

constexpr int kBusyTimeoutMs = 10'000;

// Returns the journal mode now in effect. This is the first statement that reads
// the file, so a non-database fails here.
std::string enable_wal(sqlite3* db, std::string_view operation) {
  // Switching a brand-new file to WAL takes an exclusive lock without consulting
  // the busy handler, so processes creating the file together must retry.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  const auto remember_mode = [](void* mode, int, char** values, char**) {
    *static_cast<std::string*>(mode) = values[0] != nullptr ? values[0] : "";
    return 0;
  };
  while (true) {
    std::string mode;
    const int rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", remember_mode, &mode, nullptr);
    if (rc == SQLITE_OK) return mode;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) {
      throw_sqlite_error(db, fmt::format("{}: enable WAL", operation));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

Store::Store(sqlite3* db) noexcept : db_(db) {}

Store::Store(Store&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      transaction_depth_(std::exchange(other.transaction_depth_, 0)) {}

Store& Store::operator=(Store&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    transaction_depth_ = std::exchange(other.transaction_depth_, 0);
  }
  return *this;
}

Store::~Store() { sqlite3_close_v2(db_); }

Store Store::connect(const fs::path& file, int flags, std::string_view operation) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &db, flags, nullptr);
  Store store(db);  // owns the handle even when opening failed
  if (rc != SQLITE_OK) {
    if (db == nullptr) throw StoreError(fmt::format("{}: {}", operation, sqlite3_errstr(rc)));
    throw_sqlite_error(db, operation);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return store;
}

Store Store::open(const fs::path& file) { return open_with(file, true); }

Store Store::open_existing(const fs::path& file) {
  std::error_code error;
  if (!fs::is_regular_file(file, error)) throw StoreError(fmt::format("open {}: there is no run store there", file.string()));
  return open_with(file, false);
}

Store Store::open_read_only(const fs::path& file) {
  const std::string operation = fmt::format("open {} to read", file.string());
  std::error_code error;
  if (!fs::is_regular_file(file, error)) throw StoreError(fmt::format("{}: there is no run store there", operation));
  Store store = connect(file, SQLITE_OPEN_READONLY, operation);
  int schema = 0;
  try {
    schema = store.schema_version();  // the first read: a file that is not a database fails here
  } catch (const StoreError& e) {
    throw StoreError(fmt::format("{}: {}", operation, e.what()));
  }
  if (schema == 0) throw StoreError(fmt::format("{}: not a KernelArc run store (no schema)", operation));
  if (schema > kSchemaVersion)
    throw StoreError(fmt::format("{}: its schema is version {}, newer than this build's {}", operation, schema, kSchemaVersion));
  return store;
}

Store Store::open_with(const fs::path& file, bool create) {
  const std::string operation = fmt::format("open {}", file.string());
  if (create && file.has_parent_path()) {
    std::error_code error;
    fs::create_directories(file.parent_path(), error);
    if (error) {
      throw StoreError(fmt::format("{}: cannot create directory {}: {}", operation,
                                   file.parent_path().string(), error.message()));
    }
  }

  Store store = connect(file, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), operation);
  store.execute("PRAGMA foreign_keys = ON", operation);

  const std::string mode = enable_wal(store.db_, operation);
  if (mode != "wal") {
    throw StoreError(fmt::format("{}: cannot enable WAL, journal mode is '{}'", operation, mode));
  }

  store.migrate(operation);
  return store;
}

void Store::execute(const char* sql, std::string_view operation) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message != nullptr ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw StoreError(fmt::format("{}: {}", operation, text));
  }
}

void Store::begin_transaction() {
  execute(transaction_depth_ == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT nested", "begin transaction");
  ++transaction_depth_;
}

void Store::commit_transaction() {
  execute(transaction_depth_ == 1 ? "COMMIT" : "RELEASE nested", "commit transaction");
  --transaction_depth_;
}

void Store::rollback_transaction() noexcept {
  const bool outermost = transaction_depth_ == 1;
  --transaction_depth_;
  // SQLite may already have rolled back on its own (e.g. after a failed COMMIT).
  if (sqlite3_get_autocommit(db_) != 0) return;
  const char* sql = outermost ? "ROLLBACK" : "ROLLBACK TO nested; RELEASE nested";
  sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
}

}  // namespace kernelarc::store

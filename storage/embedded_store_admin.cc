// The embedded backend's administration: creating, listing and deleting
// tables (each family a RocksDB column family, every schema in the schema
// file), flushes and major compactions.
#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "storage/internal/embedded_store_impl.h"
#include "storage/internal/validation.h"

namespace rtb::storage::internal {

absl::Status EmbeddedStoreImpl::CreateTable(const TableSchema& schema) {
  if (absl::Status s = ValidateSchema(schema); !s.ok()) return s;
  absl::MutexLock lock(&tables_mutex_);
  if (auto it = tables_.find(schema.name); it != tables_.end()) {
    if (it->second->schema == schema) return absl::OkStatus();
    return absl::AlreadyExistsError(
        absl::StrCat("table '", schema.name, "' exists with a different schema"));
  }
  std::vector<TableSchema> all = SchemasLocked();
  all.push_back(schema);
  if (absl::Status s = WriteSchemaFile(all); !s.ok()) return s;
  auto table = std::make_shared<Table>();
  table->schema = schema;
  table->db = db_;
  for (const FamilyOptions& f : schema.families) {
    rocksdb::ColumnFamilyHandle* handle = nullptr;
    rocksdb::Status s = db_->CreateColumnFamily(FamilyColumnOptions(f),
                                                ColumnFamilyName(schema.name, f.name), &handle);
    if (!s.ok()) return FromRocks(s, absl::StrCat("creating table '", schema.name, "'"));
    table->families.push_back(Family{f, handle, next_family_id_++});
  }
  SortFamilies(*table);
  tables_[schema.name] = table;
  return absl::OkStatus();
}

absl::StatusOr<bool> EmbeddedStoreImpl::TableExists(std::string_view table) {
  absl::ReaderMutexLock lock(&tables_mutex_);
  return tables_.contains(absl::string_view(table.data(), table.size()));
}

absl::StatusOr<std::vector<TableSchema>> EmbeddedStoreImpl::ListTables() {
  absl::ReaderMutexLock lock(&tables_mutex_);
  std::vector<TableSchema> out;
  out.reserve(tables_.size());
  for (const auto& [name, table] : tables_) out.push_back(table->schema);
  std::sort(out.begin(), out.end(),
            [](const TableSchema& a, const TableSchema& b) { return a.name < b.name; });
  return out;
}

absl::Status EmbeddedStoreImpl::DeleteTable(std::string_view name) {
  absl::MutexLock lock(&tables_mutex_);
  auto it = tables_.find(absl::string_view(name.data(), name.size()));
  if (it == tables_.end()) {
    return absl::NotFoundError(absl::StrCat("table '", std::string(name), "' does not exist"));
  }
  std::shared_ptr<Table> table = it->second;
  tables_.erase(it);
  row_cache_.Clear();
  if (absl::Status s = WriteSchemaFile(SchemasLocked()); !s.ok()) return s;
  for (Family& f : table->families) {
    if (rocksdb::Status s = db_->DropColumnFamily(f.handle); !s.ok()) {
      return FromRocks(s, absl::StrCat("dropping table '", std::string(name), "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status EmbeddedStoreImpl::Flush(std::string_view table_name) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  for (const Family& f : (*table)->families) {
    if (rocksdb::Status s = db_->Flush(rocksdb::FlushOptions(), f.handle); !s.ok()) {
      return FromRocks(s, absl::StrCat("flushing table '", std::string(table_name), "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status EmbeddedStoreImpl::MajorCompact(std::string_view table_name) {
  if (absl::Status s = Flush(table_name); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  rocksdb::CompactRangeOptions options;
  options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (const Family& f : (*table)->families) {
    WaitForBackgroundCompactions(f.handle);
    rocksdb::Status s = db_->CompactRange(options, f.handle, nullptr, nullptr);
    if (!s.ok()) {
      return FromRocks(s, absl::StrCat("compacting table '", std::string(table_name), "'"));
    }
    WaitForBackgroundCompactions(f.handle);
  }
  return absl::OkStatus();
}

void EmbeddedStoreImpl::WaitForBackgroundCompactions(rocksdb::ColumnFamilyHandle* handle) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < give_up) {
    uint64_t pending = 0, running = 0;
    db_->GetIntProperty(handle, "rocksdb.compaction-pending", &pending);
    db_->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace rtb::storage::internal

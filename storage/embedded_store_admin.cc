// The embedded backend's administration: creating, listing and deleting
// tables (each family a RocksDB column family, every schema in the schema
// file), flushes and major compactions.
#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "storage/internal/embedded_store_impl.h"
#include "storage/internal/validation.h"

namespace rtb::storage::internal {
namespace {

std::string CompressionOptionName(Compression compression) {
  switch (compression) {
    case Compression::kSnappy:
      return "kSnappyCompression";
    case Compression::kLz4:
      return "kLZ4Compression";
    case Compression::kZstd:
      return "kZSTD";
    case Compression::kNone:
      break;
  }
  return "kNoCompression";
}

}  // namespace

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
    if (absl::Status s = AddFamily(*table, f); !s.ok()) return s;
  }
  SortFamilies(*table);
  tables_[schema.name] = table;
  return absl::OkStatus();
}

absl::Status EmbeddedStoreImpl::AddFamily(Table& table, const FamilyOptions& f) {
  std::shared_ptr<CompactionSettings> compaction;
  rocksdb::ColumnFamilyHandle* handle = nullptr;
  rocksdb::Status s = db_->CreateColumnFamily(FamilyColumnOptions(f, &compaction),
                                              ColumnFamilyName(table.schema.name, f.name), &handle);
  if (!s.ok()) return FromRocks(s, absl::StrCat("creating family '", f.name, "'"));
  table.families.push_back(Family{f, handle, next_family_id_++, std::move(compaction)});
  return absl::OkStatus();
}

// The new table shares the handles of the families it keeps; the old one
// gives them up, so only dropped families' handles die with it.
absl::Status EmbeddedStoreImpl::AlterTable(const TableSchema& schema) {
  if (absl::Status s = ValidateSchema(schema); !s.ok()) return s;
  absl::MutexLock lock(&tables_mutex_);
  auto it = tables_.find(schema.name);
  if (it == tables_.end()) {
    return absl::NotFoundError(absl::StrCat("table '", schema.name, "' does not exist"));
  }
  std::shared_ptr<Table> old = it->second;
  std::vector<TableSchema> all = SchemasLocked();
  for (TableSchema& t : all) {
    if (t.name == schema.name) t = schema;
  }
  if (absl::Status s = WriteSchemaFile(all); !s.ok()) return s;
  auto table = std::make_shared<Table>();
  table->schema = schema;
  table->db = db_;
  for (const FamilyOptions& f : schema.families) {
    auto kept = std::find_if(old->families.begin(), old->families.end(),
                             [&](const Family& o) { return o.options.name == f.name; });
    if (kept == old->families.end()) {
      if (absl::Status s = AddFamily(*table, f); !s.ok()) return s;
      continue;
    }
    // Settings RocksDB reads at open (bloom filters, the in-memory cache
    // pool, FIFO compaction) take effect at the next start.
    if (kept->options.compression != f.compression) {
      db_->SetOptions(kept->handle, {{"compression", CompressionOptionName(f.compression)}});
    }
    kept->compaction->Set(f);
    table->families.push_back(Family{f, kept->handle, kept->id, kept->compaction});
    kept->handle = nullptr;
  }
  for (Family& f : old->families) {
    if (f.handle == nullptr) continue;
    if (rocksdb::Status s = db_->DropColumnFamily(f.handle); !s.ok()) {
      return FromRocks(s, absl::StrCat("dropping family '", f.options.name, "'"));
    }
  }
  SortFamilies(*table);
  it->second = table;
  row_cache_.Clear();
  return absl::OkStatus();
}

// Dropping and recreating the column families is instant whatever the size;
// readers still holding the old table read its (dropped) families to the end.
absl::Status EmbeddedStoreImpl::TruncateTable(std::string_view name) {
  absl::MutexLock lock(&tables_mutex_);
  auto it = tables_.find(absl::string_view(name.data(), name.size()));
  if (it == tables_.end()) {
    return absl::NotFoundError(absl::StrCat("table '", std::string(name), "' does not exist"));
  }
  std::shared_ptr<Table> old = it->second;
  for (const Family& f : old->families) {
    if (rocksdb::Status s = db_->DropColumnFamily(f.handle); !s.ok()) {
      return FromRocks(s, absl::StrCat("truncating table '", std::string(name), "'"));
    }
  }
  auto table = std::make_shared<Table>();
  table->schema = old->schema;
  table->db = db_;
  for (const FamilyOptions& f : old->schema.families) {
    if (absl::Status s = AddFamily(*table, f); !s.ok()) return s;
  }
  SortFamilies(*table);
  it->second = table;
  row_cache_.Clear();
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
  // The Increment nonce records of every table are small; rewriting them
  // here drops the expired ones, whatever RocksDB would schedule.
  rocksdb::Status s = db_->Flush(rocksdb::FlushOptions(), nonce_cf_);
  if (s.ok()) s = db_->CompactRange(options, nonce_cf_, nullptr, nullptr);
  if (!s.ok()) return FromRocks(s, "compacting increment nonces");
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

// The embedded backend's writes: Put, Delete, Increment and CheckAndMutate,
// each atomic per row under striped row locks, with HBase's durability levels
// and Increment nonces.
#include <algorithm>
#include <map>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "storage/internal/cell_key.h"
#include "storage/internal/embedded_store_impl.h"
#include "storage/internal/nonce_record.h"
#include "storage/internal/validation.h"

namespace rtb::storage::internal {
namespace {

int Rank(Durability d) {
  switch (d) {
    case Durability::kSkipWal:
      return 0;
    case Durability::kAsyncWal:
      return 1;
    case Durability::kUseDefault:
    case Durability::kSyncWal:
      return 2;
    case Durability::kFsyncWal:
      return 3;
  }
  return 2;
}

bool Matches(CompareOp op, const std::optional<std::string>& value,
             std::optional<std::string_view> stored) {
  if (!value || value->empty()) {
    // HBase's null check: an empty value matches a column that is absent
    // or empty, except under NOT_EQUAL, which wants one present and not
    // empty. An unset value is that check with EQUAL, as the hbase
    // backend sends it.
    const bool absent_or_empty = !stored || stored->empty();
    const CompareOp effective = value ? op : CompareOp::kEqual;
    return effective == CompareOp::kNotEqual ? !absent_or_empty : absent_or_empty;
  }
  if (!stored) return false;
  // HBase compares the given value against the stored one.
  int c = std::string_view(*value).compare(*stored);
  switch (op) {
    case CompareOp::kLess:
      return c < 0;
    case CompareOp::kLessOrEqual:
      return c <= 0;
    case CompareOp::kEqual:
      return c == 0;
    case CompareOp::kNotEqual:
      return c != 0;
    case CompareOp::kGreaterOrEqual:
      return c >= 0;
    case CompareOp::kGreater:
      return c > 0;
  }
  return false;
}

}  // namespace

EmbeddedStoreImpl::RowLocks::RowLocks(EmbeddedStoreImpl* store, std::string_view table,
                                      std::span<std::string_view> rows, Mode mode)
    : store_(store), shared_(mode == Mode::kShared) {
  for (std::string_view row : rows) {
    stripes_.push_back(absl::HashOf(absl::string_view(table.data(), table.size()),
                                    absl::string_view(row.data(), row.size())) %
                       kRowLockStripes);
  }
  std::sort(stripes_.begin(), stripes_.end());
  stripes_.erase(std::unique(stripes_.begin(), stripes_.end()), stripes_.end());
  for (size_t s : stripes_) {
    if (shared_) {
      store_->row_locks_[s].ReaderLock();
    } else {
      store_->row_locks_[s].Lock();
    }
  }
}

EmbeddedStoreImpl::RowLocks::~RowLocks() {
  for (auto it = stripes_.rbegin(); it != stripes_.rend(); ++it) {
    if (shared_) {
      store_->row_locks_[*it].ReaderUnlock();
    } else {
      store_->row_locks_[*it].Unlock();
    }
  }
}

absl::Status EmbeddedStoreImpl::Put(std::string_view table_name, const storage::Put& put) {
  return PutBatch(table_name, std::span<const storage::Put>(&put, 1));
}

absl::Status EmbeddedStoreImpl::PutBatch(std::string_view table_name,
                                         std::span<const storage::Put> puts) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  std::vector<std::string_view> rows;
  Durability durability = Durability::kSkipWal;
  for (const storage::Put& p : puts) {
    if (absl::Status s = ValidatePut((*table)->schema, p); !s.ok()) return s;
    rows.push_back(p.row);
    durability = Stronger(durability, p.durability);
  }
  if (puts.empty()) return absl::OkStatus();
  RowLocks locks(this, table_name, rows);
  const int64_t now = options_.clock->NowMillis();
  rocksdb::WriteBatch batch;
  for (const storage::Put& p : puts) AppendPut(**table, p, now, &batch);
  absl::Status written = Write(&batch, durability);
  Invalidate(**table, rows);
  return written;
}

absl::Status EmbeddedStoreImpl::Delete(std::string_view table_name, const storage::Delete& del) {
  return DeleteBatch(table_name, std::span<const storage::Delete>(&del, 1));
}

absl::Status EmbeddedStoreImpl::DeleteBatch(std::string_view table_name,
                                            std::span<const storage::Delete> deletes) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  std::vector<std::string_view> rows;
  Durability durability = Durability::kSkipWal;
  for (const storage::Delete& d : deletes) {
    if (absl::Status s = ValidateDelete((*table)->schema, d); !s.ok()) return s;
    rows.push_back(d.row);
    durability = Stronger(durability, d.durability);
  }
  if (deletes.empty()) return absl::OkStatus();
  RowLocks locks(this, table_name, rows);
  const int64_t now = options_.clock->NowMillis();
  rocksdb::WriteBatch batch;
  for (const storage::Delete& d : deletes) {
    if (absl::Status s = AppendDelete(**table, d, now, &batch); !s.ok()) return s;
  }
  absl::Status written = Write(&batch, durability);
  Invalidate(**table, rows);
  return written;
}

absl::StatusOr<RowResult> EmbeddedStoreImpl::Increment(std::string_view table_name,
                                                       const storage::Increment& inc) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  if (absl::Status s = ValidateIncrement((*table)->schema, inc); !s.ok()) return s;
  std::string_view row = inc.row;
  RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1));
  const int64_t now = options_.clock->NowMillis();
  std::string nonce_key;
  if (inc.nonce != 0) {
    nonce_key = NonceKey(inc.nonce, table_name, inc.row);
    absl::StatusOr<std::optional<RowResult>> earlier = FindNonce(nonce_key, now);
    if (!earlier.ok()) return earlier.status();
    if (*earlier) {
      (*earlier)->row = inc.row;
      return **std::move(earlier);
    }
  }
  rocksdb::WriteBatch batch;
  absl::StatusOr<RowResult> result = AppendIncrement(**table, inc, now, &batch);
  if (!result.ok()) return result.status();
  if (inc.nonce != 0) {
    // In the increment's own batch: after a crash the record is there
    // exactly when the counters moved.
    batch.Put(nonce_cf_, ToSlice(nonce_key),
              ToSlice(EncodeNonceRecord(NonceRecord{now + kNonceRetentionMs, *result})));
  }
  absl::Status written = Write(&batch, inc.durability);
  Invalidate(**table, std::span<std::string_view>(&row, 1));
  if (!written.ok()) return written;
  return result;
}

absl::StatusOr<std::optional<RowResult>> EmbeddedStoreImpl::FindNonce(const std::string& key,
                                                                      int64_t now) {
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), nonce_cf_, ToSlice(key), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "reading increment nonce");
  std::optional<NonceRecord> record = DecodeNonceRecord(value);
  if (!record) return absl::DataLossError("increment nonce record does not decode");
  if (record->expires_ms <= now) return std::nullopt;
  return std::move(record->result);
}

absl::StatusOr<RowResult> EmbeddedStoreImpl::AppendIncrement(const Table& table,
                                                             const storage::Increment& inc,
                                                             int64_t now,
                                                             rocksdb::WriteBatch* batch) {
  // Sum repeated columns so one Increment names each column once.
  std::map<std::pair<std::string, std::string>, int64_t> amounts;
  for (const IncrementColumn& c : inc.columns) amounts[{c.family, c.qualifier}] += c.amount;

  storage::Get current;
  current.row = inc.row;
  for (const auto& [column, amount] : amounts) {
    current.columns.push_back(Column{column.first, column.second});
  }
  absl::StatusOr<RowResult> existing = ReadRow(table, current, nullptr);
  if (!existing.ok()) return existing.status();

  RowResult result;
  result.row = inc.row;
  for (const auto& [column, amount] : amounts) {
    const auto& [family, qualifier] = column;
    int64_t base = 0;
    int64_t ts = now;
    for (const Cell& c : existing->cells) {
      if (c.family != family || c.qualifier != qualifier) continue;
      std::optional<int64_t> v = DecodeCounter(c.value);
      if (!v) {
        return absl::InvalidArgumentError(absl::StrCat(
            "column ", table.schema.name, ":", family, ":", qualifier, " holds a ", c.value.size(),
            "-byte value; Increment needs an 8-byte big-endian counter"));
      }
      base = *v;
      // As HBase: a new version above the current one even when that one
      // carries a timestamp from the future.
      ts = std::max(now, c.timestamp + 1);
      break;
    }
    const int64_t next =
        static_cast<int64_t>(static_cast<uint64_t>(base) + static_cast<uint64_t>(amount));
    std::string value = EncodeCounter(next);
    const Family* f = table.Find(family);
    batch->Put(f->handle, ToSlice(EncodeKey(inc.row, qualifier, ts, CellType::kPut)),
               ToSlice(EncodeValue(value, inc.ttl_ms)));
    result.cells.push_back(Cell{family, qualifier, ts, std::move(value)});
  }
  return result;
}

absl::StatusOr<bool> EmbeddedStoreImpl::CheckAndMutate(std::string_view table_name,
                                                       const storage::CheckAndMutate& cam) {
  absl::StatusOr<std::shared_ptr<const Table>> table = FindTable(table_name);
  if (!table.ok()) return table.status();
  if (absl::Status s = ValidateCheckAndMutate((*table)->schema, cam); !s.ok()) {
    return s;
  }
  std::string_view row = cam.row;
  RowLocks locks(this, table_name, std::span<std::string_view>(&row, 1));
  storage::Get check;
  check.row = cam.row;
  check.columns.push_back(Column{cam.family, cam.qualifier});
  absl::StatusOr<RowResult> current = ReadRow(**table, check, nullptr);
  if (!current.ok()) return current.status();
  std::optional<std::string_view> stored = current->Value(cam.family, cam.qualifier);
  if (!Matches(cam.op, cam.value, stored)) return false;

  const int64_t now = options_.clock->NowMillis();
  rocksdb::WriteBatch batch;
  Durability durability = Durability::kSkipWal;
  for (const storage::Put& p : cam.puts) {
    AppendPut(**table, p, now, &batch);
    durability = Stronger(durability, p.durability);
  }
  for (const storage::Delete& d : cam.deletes) {
    if (absl::Status s = AppendDelete(**table, d, now, &batch); !s.ok()) return s;
    durability = Stronger(durability, d.durability);
  }
  absl::Status written = Write(&batch, durability);
  Invalidate(**table, std::span<std::string_view>(&row, 1));
  if (!written.ok()) return written;
  return true;
}

Durability EmbeddedStoreImpl::Resolve(Durability d) const {
  return d == Durability::kUseDefault ? options_.default_durability : d;
}

Durability EmbeddedStoreImpl::Stronger(Durability a, Durability b) const {
  Durability ra = Resolve(a), rb = Resolve(b);
  return Rank(ra) >= Rank(rb) ? ra : rb;
}

void EmbeddedStoreImpl::Invalidate(const Table& table, std::span<std::string_view> rows) {
  if (!row_cache_.enabled()) return;
  for (std::string_view row : rows) {
    for (const Family& f : table.families) row_cache_.Invalidate(f.id, row);
  }
}

void EmbeddedStoreImpl::AppendPut(const Table& table, const storage::Put& put, int64_t now,
                                  rocksdb::WriteBatch* batch) {
  for (const PutValue& v : put.values) {
    const Family* f = table.Find(v.family);
    batch->Put(f->handle,
               ToSlice(EncodeKey(put.row, v.qualifier, v.timestamp.value_or(now), CellType::kPut)),
               ToSlice(EncodeValue(v.value, put.ttl_ms)));
  }
}

absl::Status EmbeddedStoreImpl::AppendDelete(const Table& table, const storage::Delete& del,
                                             int64_t now, rocksdb::WriteBatch* batch) {
  const std::string marker = EncodeValue("", std::nullopt);
  if (del.targets.empty()) {
    const int64_t ts = del.timestamp.value_or(now);
    for (const Family& f : table.families) {
      batch->Put(f.handle, ToSlice(EncodeKey(del.row, "", ts, CellType::kDeleteFamily)),
                 ToSlice(marker));
    }
    return absl::OkStatus();
  }
  for (const DeleteTarget& t : del.targets) {
    const Family* f = table.Find(t.family);
    std::string key;
    switch (t.kind) {
      case DeleteKind::kFamily:
        key = EncodeKey(del.row, "", t.timestamp.value_or(now), CellType::kDeleteFamily);
        break;
      case DeleteKind::kFamilyVersion:
        key = EncodeKey(del.row, "", *t.timestamp, CellType::kDeleteFamilyVersion);
        break;
      case DeleteKind::kColumnAll:
        key = EncodeKey(del.row, *t.qualifier, t.timestamp.value_or(now), CellType::kDeleteColumn);
        break;
      case DeleteKind::kColumnVersion: {
        int64_t ts = now;
        if (t.timestamp) {
          ts = *t.timestamp;
        } else {
          // As HBase: "the latest version" is resolved now, under the row
          // lock; with no version the marker lands at the current time.
          storage::Get latest;
          latest.row = del.row;
          latest.columns.push_back(Column{t.family, *t.qualifier});
          absl::StatusOr<RowResult> r = ReadRow(table, latest, nullptr);
          if (!r.ok()) return r.status();
          if (!r->cells.empty()) ts = r->cells.front().timestamp;
        }
        key = EncodeKey(del.row, *t.qualifier, ts, CellType::kDeleteVersion);
        break;
      }
    }
    batch->Put(f->handle, ToSlice(key), ToSlice(marker));
  }
  return absl::OkStatus();
}

absl::Status EmbeddedStoreImpl::Write(rocksdb::WriteBatch* batch, Durability requested) {
  Durability d = Resolve(requested);
  rocksdb::WriteOptions wo;
  wo.disableWAL = d == Durability::kSkipWal;
  rocksdb::Status s = db_->Write(wo, batch);
  if (!s.ok()) return FromRocks(s, "write");
  if (d == Durability::kSyncWal || d == Durability::kFsyncWal) {
    s = db_->FlushWAL(d == Durability::kFsyncWal);
    if (!s.ok()) return FromRocks(s, "flushing write-ahead log");
  }
  return absl::OkStatus();
}

}  // namespace rtb::storage::internal

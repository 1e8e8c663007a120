#include "bidder/events/erasure.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bidder/events/impressions.h"
#include "bidder/events/internal/keys.h"
#include "bidder/events/internal/metrics.h"
#include "storage/key_bytes.h"

namespace rtb::bidder::events {
namespace {

using internal::ErasedTable;

// Cells of the status row (family e); times and counts are 8-byte counters.
constexpr std::string_view kTombstonedColumn = "tombstoned";
constexpr std::string_view kCompactedColumn = "compacted";
constexpr std::string_view kPeriodicColumn = "periodic";
constexpr std::string_view kCompactionDueColumn = "compaction_due";
constexpr std::string_view kSnapshotsExpireColumn = "snapshots_expire";
constexpr std::string_view kSnapshotsExpiredColumn = "snapshots_expired";
// Pending row: when the erasure was requested.
constexpr std::string_view kPendingSinceColumn = "since";

std::string Str(std::string_view s) { return std::string(s); }

std::string RowsColumn(ErasedTable table) {
  return absl::StrCat("rows.", internal::ErasedTableName(table));
}

int64_t& RowsOf(ErasedRows& rows, ErasedTable table) {
  switch (table) {
    case ErasedTable::kProfiles:
      return rows.profiles;
    case ErasedTable::kImpressions:
      return rows.impressions;
    case ErasedTable::kDeviceImpressions:
      return rows.device_impressions;
    case ErasedTable::kTimeline:
      return rows.timeline;
    case ErasedTable::kIndex:
      return rows.index;
    case ErasedTable::kRollups:
      return rows.rollups;
  }
  return rows.profiles;
}

storage::Delete WholeRow(std::string row) {
  storage::Delete d;
  d.row = std::move(row);
  d.durability = storage::Durability::kSyncWal;
  return d;
}

// A whole-row delete that masks every cell `row` holds. A delete with no
// timestamp masks cells up to the server's "now", but an Increment writes at
// max(now, previous timestamp + 1), so a counter bumped many times within one
// millisecond carries a timestamp ahead of the clock and would outlive it.
storage::Delete WholeRowCovering(const storage::RowResult& row, int64_t now) {
  storage::Delete d = WholeRow(row.row);
  int64_t newest = now;
  for (const storage::Cell& c : row.cells) newest = std::max(newest, c.timestamp);
  d.timestamp = newest;
  return d;
}

int64_t Present(const std::vector<storage::RowResult>& rows) {
  return std::count_if(rows.begin(), rows.end(),
                       [](const storage::RowResult& r) { return !r.empty(); });
}

std::string OptionalJson(const std::optional<int64_t>& v) { return v ? absl::StrCat(*v) : "null"; }

}  // namespace

std::string_view ErasureStepName(ErasureStep step) {
  switch (step) {
    case ErasureStep::kRequested:
      return "requested";
    case ErasureStep::kTombstoned:
      return "tombstoned";
    case ErasureStep::kMajorCompacted:
      return "major_compacted";
    case ErasureStep::kPriorSnapshotsExpired:
      return "prior_snapshots_expired";
  }
  return "requested";
}

ErasureStep ErasureStatus::step() const {
  if (prior_snapshots_expired_ms) return ErasureStep::kPriorSnapshotsExpired;
  if (major_compacted_ms) return ErasureStep::kMajorCompacted;
  if (tombstoned_ms) return ErasureStep::kTombstoned;
  return ErasureStep::kRequested;
}

std::string ErasureStatusJson(const ErasureStatus& s) {
  const ErasedRows& r = s.rows_deleted;
  return absl::StrCat(
      "{\"device_key\":\"", storage::Hex(s.user_key), "\",\"step\":\"",
      Str(ErasureStepName(s.step())), "\",\"complete\":", s.complete() ? "true" : "false",
      ",\"requested_ms\":", s.requested_ms, ",\"tombstoned_ms\":", OptionalJson(s.tombstoned_ms),
      ",\"major_compacted_ms\":", OptionalJson(s.major_compacted_ms),
      ",\"periodic_compaction\":", s.periodic_compaction ? "true" : "false",
      ",\"major_compaction_due_ms\":", OptionalJson(s.major_compaction_due_ms),
      ",\"prior_snapshots_expire_ms\":", OptionalJson(s.prior_snapshots_expire_ms),
      ",\"prior_snapshots_expired_ms\":", OptionalJson(s.prior_snapshots_expired_ms),
      ",\"rows_deleted\":{\"profiles\":", r.profiles, ",\"impressions\":", r.impressions,
      ",\"device_impressions\":", r.device_impressions, ",\"events\":", r.timeline,
      ",\"events_by_type\":", r.index, ",\"event_rollups\":", r.rollups, "}}");
}

DeviceEraser::DeviceEraser(storage::Store& store, storage::Clock& clock,
                           prometheus::Registry* registry, ErasureOptions options)
    : store_(store), clock_(clock), options_(std::move(options)) {
  options_.page_rows = std::clamp(options_.page_rows, 1, storage::kMaxScanRows);
  options_.max_pending_per_advance =
      std::clamp(options_.max_pending_per_advance, 1, storage::kMaxScanRows);
  if (registry == nullptr) {
    own_registry_ = std::make_unique<prometheus::Registry>();
    registry = own_registry_.get();
  }
  metrics_ = std::make_unique<internal::ErasureMetrics>(*registry);
}

DeviceEraser::~DeviceEraser() = default;

absl::StatusOr<std::optional<ErasureStatus>> DeviceEraser::Status(std::string_view user_key) {
  if (user_key.size() != kUserKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("user key must be ", kUserKeyBytes, " bytes, got ", user_key.size()));
  }
  storage::Get get;
  get.row = internal::ErasureStatusKey(user_key);
  get.columns = {{Str(internal::kErasureFamily), std::nullopt}};
  absl::StatusOr<storage::RowResult> row = store_.Get(options_.events.erasures, get);
  if (!row.ok()) return row.status();
  const std::string_view family = internal::kErasureFamily;
  std::optional<int64_t> requested = row->Counter(family, internal::kErasureRequestedColumn);
  if (!requested) return std::optional<ErasureStatus>();
  ErasureStatus status;
  status.user_key = Str(user_key);
  status.requested_ms = *requested;
  status.tombstoned_ms = row->Counter(family, kTombstonedColumn);
  status.major_compacted_ms = row->Counter(family, kCompactedColumn);
  status.periodic_compaction = row->Counter(family, kPeriodicColumn).value_or(0) != 0;
  status.major_compaction_due_ms = row->Counter(family, kCompactionDueColumn);
  status.prior_snapshots_expire_ms = row->Counter(family, kSnapshotsExpireColumn);
  status.prior_snapshots_expired_ms = row->Counter(family, kSnapshotsExpiredColumn);
  for (size_t i = 0; i < internal::kErasedTableCount; ++i) {
    const auto table = static_cast<ErasedTable>(i);
    RowsOf(status.rows_deleted, table) = row->Counter(family, RowsColumn(table)).value_or(0);
  }
  return std::optional<ErasureStatus>(std::move(status));
}

absl::StatusOr<ErasureStatus> DeviceEraser::Erase(std::string_view user_key) {
  absl::StatusOr<std::optional<ErasureStatus>> current = Status(user_key);
  if (!current.ok()) return Failed(current.status());
  if (*current && (*current)->tombstoned_ms) return **current;
  if (!*current) {
    if (absl::Status s = RecordRequest(user_key); !s.ok()) return Failed(s);
  }
  absl::StatusOr<ErasedRows> rows = Sweep(user_key);
  if (!rows.ok()) return Failed(rows.status());
  if (absl::Status s = RecordTombstoned(user_key, *rows); !s.ok()) return Failed(s);
  absl::StatusOr<std::optional<ErasureStatus>> after = Status(user_key);
  if (!after.ok()) return Failed(after.status());
  if (!*after) return Failed(absl::InternalError("the erasure record vanished while erasing"));
  return **after;
}

absl::Status DeviceEraser::RecordRequest(std::string_view user_key) {
  const int64_t now = clock_.NowMillis();
  // The pending row goes first: a crash before the status row leaves a
  // pending erasure that AdvancePending completes, never a recorded erasure
  // that nothing advances.
  storage::Put pending;
  pending.row = internal::ErasurePendingKey(user_key);
  pending.durability = storage::Durability::kSyncWal;
  pending.values = {{Str(internal::kErasureFamily), Str(kPendingSinceColumn),
                     storage::EncodeCounter(now), std::nullopt}};
  if (absl::Status s = store_.Put(options_.events.erasures, pending); !s.ok()) return s;

  storage::CheckAndMutate first;
  first.row = internal::ErasureStatusKey(user_key);
  first.family = Str(internal::kErasureFamily);
  first.qualifier = Str(internal::kErasureRequestedColumn);
  first.value = std::nullopt;  // only when not requested yet: keep the first time
  storage::Put requested;
  requested.row = first.row;
  requested.durability = storage::Durability::kSyncWal;
  requested.values = {{first.family, first.qualifier, storage::EncodeCounter(now), std::nullopt}};
  first.puts.push_back(std::move(requested));
  absl::StatusOr<bool> applied = store_.CheckAndMutate(options_.events.erasures, first);
  if (!applied.ok()) return applied.status();
  if (*applied) metrics_->requested->Increment();
  return absl::OkStatus();
}

absl::Status DeviceEraser::AddRows(std::string_view user_key, const ErasedRows& rows) {
  storage::Increment inc;
  inc.row = internal::ErasureStatusKey(user_key);
  inc.durability = storage::Durability::kSyncWal;
  ErasedRows copy = rows;
  for (size_t i = 0; i < internal::kErasedTableCount; ++i) {
    const auto table = static_cast<ErasedTable>(i);
    const int64_t n = RowsOf(copy, table);
    inc.columns.push_back({Str(internal::kErasureFamily), RowsColumn(table), n});
    if (n > 0) metrics_->rows_deleted[i]->Increment(static_cast<double>(n));
  }
  absl::StatusOr<storage::RowResult> r = store_.Increment(options_.events.erasures, inc);
  return r.status();
}

absl::Status DeviceEraser::PutTimes(std::string_view user_key,
                                    std::vector<std::pair<std::string_view, int64_t>> times) {
  storage::Put put;
  put.row = internal::ErasureStatusKey(user_key);
  put.durability = storage::Durability::kSyncWal;
  for (const auto& [column, value] : times) {
    put.values.push_back(
        {Str(internal::kErasureFamily), Str(column), storage::EncodeCounter(value), std::nullopt});
  }
  return store_.Put(options_.events.erasures, put);
}

absl::Status DeviceEraser::RecordTombstoned(std::string_view user_key, const ErasedRows& rows) {
  if (absl::Status s = AddRows(user_key, rows); !s.ok()) return s;
  // Written after every delete returned, so the time is an upper bound of
  // the tombstones' timestamps.
  if (absl::Status s = PutTimes(user_key, {{kTombstonedColumn, clock_.NowMillis()}}); !s.ok()) {
    return s;
  }
  metrics_->tombstoned->Increment();
  return absl::OkStatus();
}

absl::StatusOr<ErasedRows> DeviceEraser::Sweep(std::string_view user_key) {
  ErasedRows rows;
  storage::Get profile;
  profile.row = Str(user_key);
  absl::StatusOr<storage::RowResult> existing = store_.Get(options_.profiles, profile);
  if (!existing.ok()) return existing.status();
  // Deleted even when nothing is visible: the marker also masks cells the
  // bid path might still find in a stale replica or a late write.
  storage::RowResult profile_row = *existing;
  profile_row.row = Str(user_key);
  if (absl::Status s =
          store_.Delete(options_.profiles, WholeRowCovering(profile_row, clock_.NowMillis()));
      !s.ok()) {
    return s;
  }
  rows.profiles = existing->empty() ? 0 : 1;
  if (absl::Status s = SweepImpressions(user_key, &rows); !s.ok()) return s;
  if (absl::Status s = SweepEvents(user_key, &rows); !s.ok()) return s;
  if (absl::Status s = SweepRollups(user_key, &rows); !s.ok()) return s;
  return rows;
}

absl::Status DeviceEraser::SweepImpressions(std::string_view user_key, ErasedRows* rows) {
  const std::string stop = storage::PrefixSuccessor(user_key);
  std::string start = Str(user_key);
  while (true) {
    storage::Scan scan;
    scan.start_row = start;
    scan.stop_row = stop;
    scan.limit = options_.page_rows;
    scan.caching = options_.page_rows;
    absl::StatusOr<std::vector<storage::RowResult>> page =
        store_.Scan(options_.device_impressions, scan);
    if (!page.ok()) return page.status();
    if (page->empty()) return absl::OkStatus();
    start = page->back().row + '\0';

    std::vector<storage::Get> impressions;
    std::vector<storage::Delete> index_rows;
    for (const storage::RowResult& row : *page) {
      if (std::optional<std::string_view> id = ImpressionIdOfDeviceImpressionRow(row.row)) {
        storage::Get get;
        get.row = std::string(*id);
        impressions.push_back(std::move(get));
      }
      index_rows.push_back(WholeRow(row.row));
    }
    if (!impressions.empty()) {
      absl::StatusOr<std::vector<storage::RowResult>> present =
          store_.MultiGet(options_.impressions, impressions);
      if (!present.ok()) return present.status();
      std::vector<storage::Delete> deletes;
      for (const storage::Get& g : impressions) deletes.push_back(WholeRow(g.row));
      if (absl::Status s = store_.DeleteBatch(options_.impressions, deletes); !s.ok()) return s;
      rows->impressions += Present(*present);
    }
    // After the impressions: until this delete, a retry can still find them.
    if (absl::Status s = store_.DeleteBatch(options_.device_impressions, index_rows); !s.ok()) {
      return s;
    }
    rows->device_impressions += static_cast<int64_t>(index_rows.size());
  }
}

absl::Status DeviceEraser::SweepEvents(std::string_view user_key, ErasedRows* rows) {
  const std::string prefix = internal::UserPrefix(user_key);
  const std::string stop = storage::PrefixSuccessor(prefix);
  std::string start = prefix;
  while (true) {
    storage::Scan scan;
    scan.start_row = start;
    scan.stop_row = stop;
    scan.columns = {{Str(internal::kTimelineFamily), std::nullopt}};
    scan.limit = options_.page_rows;
    scan.caching = options_.page_rows;
    absl::StatusOr<std::vector<storage::RowResult>> page =
        store_.Scan(options_.events.timeline, scan);
    if (!page.ok()) return page.status();
    if (page->empty()) return absl::OkStatus();
    start = page->back().row + '\0';

    std::vector<storage::Get> index_rows;
    std::vector<storage::Delete> timeline_rows;
    for (const storage::RowResult& row : *page) {
      timeline_rows.push_back(WholeRow(row.row));
      std::optional<internal::TimelineKeyParts> parts = internal::ParseTimelineKey(row.row);
      if (!parts) continue;
      std::optional<std::string_view> type =
          row.Value(internal::kTimelineFamily, internal::kTypeColumn);
      std::vector<uint32_t> codes;
      if (type && type->size() == internal::kTypeBytes) {
        codes.push_back(storage::ReadBigEndian32(*type));
      } else {
        // Without its type the index row could be under any type.
        for (EventType t : kEventTypes) codes.push_back(static_cast<uint32_t>(t));
      }
      for (uint32_t code : codes) {
        storage::Get get;
        get.row = internal::IndexKey(code, parts->event_time_ms, parts->user_key, parts->event_id);
        get.columns = {{Str(internal::kIndexFamily), std::nullopt}};
        index_rows.push_back(std::move(get));
      }
    }
    // Index rows before their timeline rows: the timeline row is how an
    // interrupted erasure finds the index row again.
    if (!index_rows.empty()) {
      absl::StatusOr<std::vector<storage::RowResult>> present =
          store_.MultiGet(options_.events.index, index_rows);
      if (!present.ok()) return present.status();
      std::vector<storage::Delete> deletes;
      for (const storage::Get& g : index_rows) deletes.push_back(WholeRow(g.row));
      if (absl::Status s = store_.DeleteBatch(options_.events.index, deletes); !s.ok()) return s;
      rows->index += Present(*present);
    }
    if (absl::Status s = store_.DeleteBatch(options_.events.timeline, timeline_rows); !s.ok()) {
      return s;
    }
    rows->timeline += static_cast<int64_t>(timeline_rows.size());
  }
}

absl::Status DeviceEraser::SweepRollups(std::string_view user_key, ErasedRows* rows) {
  const std::string prefix = internal::UserPrefix(user_key);
  const std::string stop = storage::PrefixSuccessor(prefix);
  std::string start = prefix;
  while (true) {
    storage::Scan scan;
    scan.start_row = start;
    scan.stop_row = stop;
    scan.limit = options_.page_rows;
    scan.caching = options_.page_rows;
    absl::StatusOr<std::vector<storage::RowResult>> page =
        store_.Scan(options_.events.rollups, scan);
    if (!page.ok()) return page.status();
    if (page->empty()) return absl::OkStatus();
    start = page->back().row + '\0';
    std::vector<storage::Delete> deletes;
    const int64_t now = clock_.NowMillis();
    for (const storage::RowResult& row : *page) deletes.push_back(WholeRowCovering(row, now));
    if (absl::Status s = store_.DeleteBatch(options_.events.rollups, deletes); !s.ok()) return s;
    rows->rollups += static_cast<int64_t>(deletes.size());
  }
}

absl::Status DeviceEraser::CompactTables() {
  for (const std::string* table :
       {&options_.profiles, &options_.impressions, &options_.device_impressions,
        &options_.events.timeline, &options_.events.index, &options_.events.rollups}) {
    if (absl::Status s = store_.MajorCompact(*table); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status DeviceEraser::Failed(absl::Status status) {
  metrics_->failures->Increment();
  return status;
}

absl::Status DeviceEraser::TombstonePending(AdvanceReport* report,
                                            std::vector<ErasureStatus>* to_compact,
                                            std::vector<ErasureStatus>* compacted) {
  storage::Scan scan;
  scan.prefix = std::string(1, internal::kErasurePendingKind);
  scan.limit = options_.max_pending_per_advance;
  scan.caching = std::min(options_.max_pending_per_advance, 1000);
  absl::StatusOr<std::vector<storage::RowResult>> pending =
      store_.Scan(options_.events.erasures, scan);
  if (!pending.ok()) return Failed(pending.status());
  for (const storage::RowResult& row : *pending) {
    if (row.row.size() != internal::kErasureKeyBytes) continue;
    const std::string user = row.row.substr(1);
    ++report->pending;
    absl::StatusOr<std::optional<ErasureStatus>> status = Status(user);
    if (!status.ok()) return Failed(status.status());
    if (!*status || !(*status)->tombstoned_ms) {
      absl::StatusOr<ErasureStatus> erased = Erase(user);
      if (!erased.ok()) return erased.status();  // Erase counts its own failures
      ++report->tombstoned;
      *status = *std::move(erased);
    }
    if ((*status)->major_compacted_ms) {
      compacted->push_back(**std::move(status));
    } else {
      to_compact->push_back(**std::move(status));
    }
  }
  return absl::OkStatus();
}

absl::Status DeviceEraser::CompactErased(std::vector<ErasureStatus> to_compact,
                                         AdvanceReport* report,
                                         std::vector<ErasureStatus>* compacted) {
  if (to_compact.empty()) return absl::OkStatus();
  // Once more before compacting: a writer that did not check the erasure
  // record may have put rows after the tombstones.
  for (const ErasureStatus& s : to_compact) {
    absl::StatusOr<ErasedRows> rows = Sweep(s.user_key);
    if (!rows.ok()) return Failed(rows.status());
    if (*rows != ErasedRows{}) {
      if (absl::Status st = AddRows(s.user_key, *rows); !st.ok()) return Failed(st);
    }
  }
  const int64_t started = clock_.NowMillis();
  absl::Status compact = CompactTables();
  if (!compact.ok() && !absl::IsUnimplemented(compact)) return Failed(compact);
  for (ErasureStatus& s : to_compact) {
    int64_t done_ms = started;
    if (!compact.ok()) {
      // No compaction on demand: wait for the periodic one.
      const int64_t due = s.major_compaction_due_ms.value_or(*s.tombstoned_ms +
                                                             options_.periodic_major_compaction_ms);
      if (!s.major_compaction_due_ms) {
        if (absl::Status st =
                PutTimes(s.user_key, {{kPeriodicColumn, 1}, {kCompactionDueColumn, due}});
            !st.ok()) {
          return Failed(st);
        }
      }
      if (clock_.NowMillis() < due) continue;
      done_ms = due;
    }
    const int64_t expire = done_ms + options_.snapshot_retention_ms;
    if (absl::Status st =
            PutTimes(s.user_key, {{kCompactedColumn, done_ms}, {kSnapshotsExpireColumn, expire}});
        !st.ok()) {
      return Failed(st);
    }
    metrics_->major_compacted->Increment();
    ++report->major_compacted;
    s.major_compacted_ms = done_ms;
    s.prior_snapshots_expire_ms = expire;
    compacted->push_back(std::move(s));
  }
  return absl::OkStatus();
}

absl::Status DeviceEraser::ExpireSnapshots(const std::vector<ErasureStatus>& compacted,
                                           AdvanceReport* report) {
  for (const ErasureStatus& s : compacted) {
    if (!s.prior_snapshots_expire_ms || clock_.NowMillis() < *s.prior_snapshots_expire_ms) continue;
    if (absl::Status st = PutTimes(s.user_key, {{kSnapshotsExpiredColumn, clock_.NowMillis()}});
        !st.ok()) {
      return Failed(st);
    }
    if (absl::Status st = store_.Delete(options_.events.erasures,
                                        WholeRow(internal::ErasurePendingKey(s.user_key)));
        !st.ok()) {
      return Failed(st);
    }
    metrics_->prior_snapshots_expired->Increment();
    ++report->prior_snapshots_expired;
  }
  return absl::OkStatus();
}

absl::StatusOr<DeviceEraser::AdvanceReport> DeviceEraser::AdvancePending() {
  AdvanceReport report;
  std::vector<ErasureStatus> to_compact;
  std::vector<ErasureStatus> compacted;
  if (absl::Status s = TombstonePending(&report, &to_compact, &compacted); !s.ok()) return s;
  if (absl::Status s = CompactErased(std::move(to_compact), &report, &compacted); !s.ok()) {
    return s;
  }
  if (absl::Status s = ExpireSnapshots(compacted, &report); !s.ok()) return s;
  return report;
}

}  // namespace rtb::bidder::events

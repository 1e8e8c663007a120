#include "bidder/events/internal/event_writes.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "bidder/events/internal/keys.h"
#include "storage/key_bytes.h"

namespace rtb::bidder::events::internal {
namespace {

std::string Str(std::string_view s) { return std::string(s); }

// One nonce per event: a retried Increment of the same event's rollup is
// recognised by stores that keep nonces (the embedded engine, for
// storage::kNonceRetentionMs). Thrift2 carries none; there the rollup marker
// column answers (CountInRollup).
uint64_t RollupNonce(std::string_view event_id) {
  const uint64_t h = storage::StableHash64(absl::StrCat("rollup|", Str(event_id)));
  return h == 0 ? 1 : h;
}

// The nonce of the undo by the attempt whose Increment made the event's
// marker `times`. Attempts that saw different markers undo separately; a
// retry answered from nonce memory sees the same marker, so its undo is
// applied once too.
uint64_t RollupUndoNonce(std::string_view event_id, int64_t times) {
  const uint64_t h = storage::StableHash64(absl::StrCat("rollup-undo|", Str(event_id), "|", times));
  return h == 0 ? 1 : h;
}

std::string Code32(uint32_t v) {
  std::string s;
  storage::AppendBigEndian32(v, &s);
  return s;
}

std::string Code64(int64_t v) {
  std::string s;
  storage::AppendBigEndian64(static_cast<uint64_t>(v), &s);
  return s;
}

storage::Increment RollupIncrement(const Event& event, const std::string& marker) {
  storage::Increment rollup;
  rollup.row = RollupKey(event.user_key, event.event_time_ms);
  // The count and the event's marker move together (one row, one atomic
  // Increment): the marker says how many attempts have added the event.
  rollup.columns = {{Str(kRollupFamily), Str(EventTypeName(event.type)), 1},
                    {Str(kRollupFamily), marker, 1}};
  rollup.durability = storage::Durability::kSyncWal;
  rollup.nonce = RollupNonce(event.event_id);
  return rollup;
}

}  // namespace

std::string RollupMarkerOf(const Event& event) { return RollupMarkerQualifier(event.event_id); }

storage::Get RolledUpMarkerGet(const std::string& timeline_key) {
  storage::Get marker;
  marker.row = timeline_key;
  marker.columns = {{Str(kTimelineFamily), Str(kRolledUpColumn)}};
  return marker;
}

absl::StatusOr<bool> IsRolledUp(storage::Store& store, const EventTables& tables,
                                const std::string& timeline_key) {
  absl::StatusOr<storage::RowResult> existing =
      store.Get(tables.timeline, RolledUpMarkerGet(timeline_key));
  if (!existing.ok()) return existing.status();
  return !existing->empty();
}

storage::Get ErasureRecordGet(std::string_view user_key) {
  storage::Get get;
  get.row = ErasureStatusKey(user_key);
  get.columns = {{Str(kErasureFamily), Str(kErasureRequestedColumn)}};
  return get;
}

// No timestamps in the writes below: the server assigns ingest time, which is
// what the TTLs must count from (a late event must not expire on arrival).

storage::Put TimelinePut(const Event& event, const std::string& timeline_key) {
  const std::string family(kTimelineFamily);
  storage::Put timeline;
  timeline.row = timeline_key;
  timeline.durability = storage::Durability::kSyncWal;
  timeline.values = {
      {family, Str(kTypeColumn), Code32(static_cast<uint32_t>(event.type)), std::nullopt},
      {family, Str(kTimeColumn), Code64(event.event_time_ms), std::nullopt},
      {family, Str(kBodyColumn), event.body, std::nullopt},
      {family, Str(kSummaryColumn), event.summary, std::nullopt},
  };
  return timeline;
}

storage::Put IndexPut(const Event& event) {
  storage::Put index;
  index.row = IndexKey(static_cast<uint32_t>(event.type), event.event_time_ms, event.user_key,
                       event.event_id);
  index.durability = storage::Durability::kSyncWal;
  index.values = {{Str(kIndexFamily), Str(kIndexSummaryColumn), event.summary, std::nullopt}};
  return index;
}

// Adds the event to its day's count, once. A marker above 1 means an earlier
// attempt counted the event and died (or saw a store error) before the
// timeline marker, and no nonce memory caught this retry: this attempt
// takes its own 1 back, so each attempt undoes exactly itself whatever the
// others did (events.h has the windows left).
absl::StatusOr<RollupCount> CountInRollup(storage::Store& store, const EventTables& tables,
                                          const Event& event, const std::string& marker) {
  absl::StatusOr<storage::RowResult> counted =
      store.Increment(tables.rollups, RollupIncrement(event, marker));
  if (!counted.ok()) return counted.status();
  RollupCount out;
  int64_t times = 1;
  for (const storage::Cell& cell : counted->cells) {
    if (cell.family != kRollupFamily || cell.qualifier != marker) continue;
    times = storage::DecodeCounter(cell.value).value_or(1);
    out.marker_timestamp = cell.timestamp;
  }
  if (times <= 1) return out;
  storage::Increment undo;
  undo.row = RollupKey(event.user_key, event.event_time_ms);
  undo.columns = {{Str(kRollupFamily), Str(EventTypeName(event.type)), -1}};
  undo.durability = storage::Durability::kSyncWal;
  undo.nonce = RollupUndoNonce(event.event_id, times);
  if (absl::StatusOr<storage::RowResult> r = store.Increment(tables.rollups, undo); !r.ok()) {
    return r.status();
  }
  out.recounted = true;
  return out;
}

storage::Put RolledUpMarker(const std::string& timeline_key) {
  storage::Put done;
  done.row = timeline_key;
  done.durability = storage::Durability::kSyncWal;
  done.values = {{Str(kTimelineFamily), Str(kRolledUpColumn), "1", std::nullopt}};
  return done;
}

// Once the timeline marker stands, replays stop before the rollup, so the
// rollup marker has done its work; without this delete every rollup row
// would keep one marker per event for the rollups' two years. A lost delete
// (async WAL, a crash, an error) leaves a small column that readers skip.
// It names the version this attempt wrote: an Increment stamps a version
// above the one it replaces even when the clock has not moved past it (as
// HBase does), so a delete at "now" could miss a retry's version.
storage::Delete RollupMarkerDelete(const Event& event, const std::string& marker,
                                   std::optional<int64_t> marker_timestamp) {
  storage::Delete d;
  d.row = RollupKey(event.user_key, event.event_time_ms);
  d.targets = {{Str(kRollupFamily), marker, storage::DeleteKind::kColumnAll, marker_timestamp}};
  d.durability = storage::Durability::kAsyncWal;
  return d;
}

// The timeline row, its index row, the day's rollup, the marker that says
// the rollup counted the event (IsRolledUp), then the rollup's own marker
// goes. In that order: the rollup marker must outlive the moment the
// timeline marker is written, or a replay in between would count again.
absl::Status WriteEventRows(storage::Store& store, const EventTables& tables, const Event& event,
                            const std::string& timeline_key, EventMetrics& metrics) {
  if (absl::Status s = store.Put(tables.timeline, TimelinePut(event, timeline_key)); !s.ok()) {
    return s;
  }
  if (absl::Status s = store.Put(tables.index, IndexPut(event)); !s.ok()) return s;
  const std::string marker = RollupMarkerOf(event);
  absl::StatusOr<RollupCount> count = CountInRollup(store, tables, event, marker);
  if (!count.ok()) return count.status();
  if (count->recounted) metrics.rollup_recounts->Increment();
  if (absl::Status s = store.Put(tables.timeline, RolledUpMarker(timeline_key)); !s.ok()) {
    return s;
  }
  // The event is recorded whatever this delete answers: failing the Record
  // would only have it replayed, and a replay stops at the timeline marker.
  if (!store.Delete(tables.rollups, RollupMarkerDelete(event, marker, count->marker_timestamp))
           .ok()) {
    metrics.rollup_markers_left->Increment();
  }
  return absl::OkStatus();
}

}  // namespace rtb::bidder::events::internal

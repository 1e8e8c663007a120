#include "bidder/events/events.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "bidder/events/internal/event_writes.h"
#include "bidder/events/internal/hot_keys.h"
#include "bidder/events/internal/keys.h"
#include "bidder/events/internal/metrics.h"
#include "bidder/events/internal/reconcile_cursors.h"
#include "storage/buffered_mutator.h"
#include "storage/key_bytes.h"

namespace rtb::bidder::events {
namespace {

using internal::KeyRange;

constexpr int64_t kMaxEventTime = std::numeric_limits<int64_t>::max() - 1;

std::string Str(std::string_view s) { return std::string(s); }

int64_t SchemaIndexTtlMs() {
  for (const storage::TableSchema& t : storage::BidderTables()) {
    if (t.name != storage::kEventsByTypeTable) continue;
    const storage::FamilyOptions* f = t.Family(internal::kIndexFamily);
    if (f != nullptr && f->ttl_seconds > 0) return f->ttl_seconds * 1000;
  }
  return 30LL * 24 * 3600 * 1000;
}

bool KnownType(uint32_t code) {
  return code >= static_cast<uint32_t>(EventType::kImpression) &&
         code <= static_cast<uint32_t>(EventType::kLoss);
}

std::optional<Event> FromTimelineRow(const storage::RowResult& row) {
  std::optional<internal::TimelineKeyParts> parts = internal::ParseTimelineKey(row.row);
  if (!parts) return std::nullopt;
  std::optional<std::string_view> type =
      row.Value(internal::kTimelineFamily, internal::kTypeColumn);
  if (!type || type->size() != internal::kTypeBytes) return std::nullopt;
  Event e;
  e.user_key = Str(parts->user_key);
  e.event_id = Str(parts->event_id);
  e.event_time_ms = parts->event_time_ms;
  e.type = static_cast<EventType>(storage::ReadBigEndian32(*type));
  if (auto body = row.Value(internal::kTimelineFamily, internal::kBodyColumn)) e.body = Str(*body);
  if (auto summary = row.Value(internal::kTimelineFamily, internal::kSummaryColumn)) {
    e.summary = Str(*summary);
  }
  return e;
}

std::optional<Event> FromIndexRow(const storage::RowResult& row) {
  std::optional<internal::IndexKeyParts> parts = internal::ParseIndexKey(row.row);
  if (!parts) return std::nullopt;
  Event e;
  e.user_key = Str(parts->user_key);
  e.event_id = Str(parts->event_id);
  e.event_time_ms = parts->event_time_ms;
  e.type = static_cast<EventType>(parts->type);
  if (auto summary = row.Value(internal::kIndexFamily, internal::kIndexSummaryColumn)) {
    e.summary = Str(*summary);
  }
  return e;
}

storage::Delete WholeRow(std::string row) {
  storage::Delete d;
  d.row = std::move(row);
  d.durability = storage::Durability::kSyncWal;
  return d;
}

absl::Status CheckLimit(int limit) {
  if (limit < 1 || limit > kMaxReadLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("limit must be in 1..", kMaxReadLimit, ", got ", limit));
  }
  return absl::OkStatus();
}

absl::Status CheckUserKey(std::string_view user_key) {
  if (user_key.size() != kUserKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("user key must be ", kUserKeyBytes, " bytes, got ", user_key.size()));
  }
  return absl::OkStatus();
}

absl::Status CheckWindow(int64_t from_ms, int64_t to_ms) {
  if (from_ms < 0 || to_ms < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("time window bounds must be >= 0, got [", from_ms, ", ", to_ms, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckEvent(const Event& event) {
  if (absl::Status s = CheckUserKey(event.user_key); !s.ok()) return s;
  if (event.event_id.size() != kEventIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("event id must be ", kEventIdBytes, " bytes, got ", event.event_id.size()));
  }
  if (event.event_time_ms < 0 || event.event_time_ms > kMaxEventTime) {
    return absl::InvalidArgumentError(
        absl::StrCat("event time must be >= 0 ms, got ", event.event_time_ms));
  }
  const uint32_t code = static_cast<uint32_t>(event.type);
  if (!KnownType(code)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown event type code ", code));
  }
  return absl::OkStatus();
}

}  // namespace

EventStoreOptions EventStoreOptionsOf(const config::EventsConfig& events) {
  EventStoreOptions options;
  options.hot_keys.window_ms = events.hot_keys.window_ms;
  options.hot_keys.tracked_keys = events.hot_keys.tracked_keys;
  options.hot_keys.reported_keys = events.hot_keys.reported_keys;
  options.hot_keys.max_events_per_window = events.hot_keys.max_events_per_window;
  return options;
}

std::string_view EventTypeName(EventType type) {
  switch (type) {
    case EventType::kImpression:
      return "impression";
    case EventType::kClick:
      return "click";
    case EventType::kConversion:
      return "conversion";
    case EventType::kWin:
      return "win";
    case EventType::kBilling:
      return "billing";
    case EventType::kLoss:
      return "loss";
  }
  return "unknown";
}

std::optional<EventType> ParseEventType(std::string_view name) {
  for (EventType type : kEventTypes) {
    if (EventTypeName(type) == name) return type;
  }
  return std::nullopt;
}

EventStore::EventStore(storage::Store& store, storage::Clock& clock, prometheus::Registry* registry,
                       EventStoreOptions options)
    : store_(store), clock_(clock), options_(std::move(options)) {
  if (options_.index_ttl_ms <= 0) options_.index_ttl_ms = SchemaIndexTtlMs();
  options_.page_rows = std::clamp(options_.page_rows, 1, storage::kMaxScanRows);
  options_.reconcile_rows_per_user = std::max(options_.reconcile_rows_per_user, 1);
  options_.reconcile_index_rows_per_user = std::max(options_.reconcile_index_rows_per_user, 0);
  if (registry == nullptr) {
    own_registry_ = std::make_unique<prometheus::Registry>();
    registry = own_registry_.get();
  }
  metrics_ = std::make_unique<internal::EventMetrics>(*registry);
  hot_keys_ = std::make_unique<internal::HotKeyCounter>(options_.hot_keys);
}

EventStore::~EventStore() = default;

std::vector<HotKey> EventStore::HotKeys() const { return hot_keys_->LastWindowTop(); }

void EventStore::PublishHotKeys(const std::vector<HotKey>& top) {
  absl::MutexLock lock(&metrics_->hot_keys_mu);
  for (prometheus::Gauge* g : metrics_->hot_key_series) metrics_->hot_keys->Remove(g);
  metrics_->hot_key_series.clear();
  for (size_t i = 0; i < top.size(); ++i) {
    const std::string prefix = storage::Hex(top[i].user_key.substr(0, 4));
    prometheus::Gauge& g =
        metrics_->hot_keys->Add({{"rank", absl::StrCat(i + 1)}, {"key_prefix", prefix}});
    g.Set(static_cast<double>(top[i].events));
    metrics_->hot_key_series.push_back(&g);
  }
}

absl::StatusOr<bool> EventStore::IsErased(std::string_view user_key) {
  if (absl::Status s = CheckUserKey(user_key); !s.ok()) return s;
  absl::StatusOr<storage::RowResult> row =
      store_.Get(options_.tables.erasures, internal::ErasureRecordGet(user_key));
  if (!row.ok()) return row.status();
  return !row->empty();
}

absl::Status EventStore::Record(const Event& event) {
  auto failed = [this](absl::Status s) {
    metrics_->record_failures->Increment();
    return s;
  };
  if (absl::Status s = CheckEvent(event); !s.ok()) return failed(s);
  const uint32_t code = static_cast<uint32_t>(event.type);

  // Before any storage call, so a flood from one key costs no round trips.
  internal::HotKeyCounter::Counted counted = hot_keys_->Count(event.user_key, clock_.NowMillis());
  if (counted.window_closed) PublishHotKeys(counted.closed_top);
  if (!counted.admitted) {
    metrics_->rate_limited->Increment();
    return absl::OkStatus();
  }

  absl::StatusOr<bool> erased = IsErased(event.user_key);
  if (!erased.ok()) return failed(erased.status());
  if (*erased) {
    metrics_->skipped_erased->Increment();
    return absl::OkStatus();
  }

  const std::string timeline_key =
      internal::TimelineKey(event.user_key, event.event_time_ms, event.event_id);
  absl::StatusOr<bool> replayed = internal::IsRolledUp(store_, options_.tables, timeline_key);
  if (!replayed.ok()) return failed(replayed.status());
  if (*replayed) {
    metrics_->replayed->Increment();
    return absl::OkStatus();
  }
  if (absl::Status s =
          internal::WriteEventRows(store_, options_.tables, event, timeline_key, *metrics_);
      !s.ok()) {
    return failed(s);
  }

  // An erasure that landed after the first check may have swept the user's
  // rows before these writes; its delete markers are older than them, so they
  // would survive. Checking again after writing closes the gap: either the
  // erasure was recorded before this check (and the rows are removed here),
  // or every write above happened before it (and its sweep finds them).
  erased = IsErased(event.user_key);
  if (!erased.ok()) return failed(erased.status());
  if (*erased) {
    if (absl::Status s = RemoveWritten(event); !s.ok()) return failed(s);
    metrics_->skipped_erased->Increment();
    return absl::OkStatus();
  }
  metrics_->recorded[code]->Increment();
  return absl::OkStatus();
}

namespace {

// Whether each user is erased: one MultiGet over the distinct keys.
absl::StatusOr<absl::flat_hash_map<std::string, bool>> ErasedUsers(
    storage::Store& store, const std::string& table, const std::vector<const Event*>& events) {
  absl::flat_hash_map<std::string, bool> erased;
  std::vector<storage::Get> gets;
  std::vector<const std::string*> users;  // of each Get
  for (const Event* event : events) {
    if (!erased.emplace(event->user_key, false).second) continue;
    users.push_back(&event->user_key);
    gets.push_back(internal::ErasureRecordGet(event->user_key));
  }
  if (gets.empty()) return erased;
  absl::StatusOr<std::vector<storage::RowResult>> rows = store.MultiGet(table, gets);
  if (!rows.ok()) return rows.status();
  if (rows->size() != gets.size()) return absl::InternalError("erasures: MultiGet lost rows");
  for (size_t i = 0; i < gets.size(); ++i) {
    if (!(*rows)[i].empty()) erased[*users[i]] = true;
  }
  return erased;
}

}  // namespace

absl::Status EventStore::RecordBatch(std::span<const Event> events) {
  auto failed = [this](absl::Status s) {
    metrics_->record_failures->Increment();
    return s;
  };
  for (const Event& event : events) {
    if (absl::Status s = CheckEvent(event); !s.ok()) return failed(s);
  }
  // Admitted events, each once (a beacon logged twice in one batch is one
  // event), in the batch's order.
  std::vector<const Event*> admitted;
  std::vector<std::string> timeline_keys;
  absl::flat_hash_set<std::string> seen;
  for (const Event& event : events) {
    internal::HotKeyCounter::Counted counted = hot_keys_->Count(event.user_key, clock_.NowMillis());
    if (counted.window_closed) PublishHotKeys(counted.closed_top);
    if (!counted.admitted) {
      metrics_->rate_limited->Increment();
      continue;
    }
    std::string key = internal::TimelineKey(event.user_key, event.event_time_ms, event.event_id);
    if (!seen.insert(key).second) {
      metrics_->replayed->Increment();
      continue;
    }
    admitted.push_back(&event);
    timeline_keys.push_back(std::move(key));
  }
  absl::StatusOr<absl::flat_hash_map<std::string, bool>> erased =
      ErasedUsers(store_, options_.tables.erasures, admitted);
  if (!erased.ok()) return failed(erased.status());
  std::vector<storage::Get> markers;
  for (const std::string& key : timeline_keys) markers.push_back(internal::RolledUpMarkerGet(key));
  absl::StatusOr<std::vector<storage::RowResult>> replayed =
      markers.empty() ? std::vector<storage::RowResult>()
                      : store_.MultiGet(options_.tables.timeline, markers);
  if (!replayed.ok()) return failed(replayed.status());
  if (replayed->size() != markers.size()) {
    return failed(absl::InternalError("timeline: MultiGet lost rows"));
  }
  std::vector<size_t> todo;  // into admitted
  for (size_t i = 0; i < admitted.size(); ++i) {
    if (erased->at(admitted[i]->user_key)) {
      metrics_->skipped_erased->Increment();
    } else if (!(*replayed)[i].empty()) {
      metrics_->replayed->Increment();
    } else {
      todo.push_back(i);
    }
  }
  if (absl::Status s = WriteBatchSteps(admitted, timeline_keys, todo); !s.ok()) return failed(s);
  // As in Record: an erasure that landed meanwhile may have swept before
  // these writes; each step above is durable, so checking now closes the gap.
  std::vector<const Event*> written;
  for (size_t i : todo) written.push_back(admitted[i]);
  erased = ErasedUsers(store_, options_.tables.erasures, written);
  if (!erased.ok()) return failed(erased.status());
  for (const Event* event : written) {
    if (erased->at(event->user_key)) {
      if (absl::Status s = RemoveWritten(*event); !s.ok()) return failed(s);
      metrics_->skipped_erased->Increment();
    } else {
      metrics_->recorded[static_cast<uint32_t>(event->type)]->Increment();
    }
  }
  return absl::OkStatus();
}

absl::Status EventStore::WriteBatchSteps(const std::vector<const Event*>& events,
                                         const std::vector<std::string>& timeline_keys,
                                         const std::vector<size_t>& todo) {
  if (todo.empty()) return absl::OkStatus();
  // No timer: every step is flushed here, before the next one starts.
  const storage::BufferedMutatorOptions step{.max_buffer_bytes = size_t{8} << 20,
                                             .flush_interval_ms = 0};
  storage::BufferedMutator timeline(&store_, options_.tables.timeline, step);
  storage::BufferedMutator index(&store_, options_.tables.index, step);
  for (size_t i : todo) {
    if (absl::Status s = timeline.Mutate(internal::TimelinePut(*events[i], timeline_keys[i]));
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = timeline.Flush(); !s.ok()) return s;
  for (size_t i : todo) {
    if (absl::Status s = index.Mutate(internal::IndexPut(*events[i])); !s.ok()) return s;
  }
  if (absl::Status s = index.Flush(); !s.ok()) return s;
  std::vector<internal::RollupCount> counts;
  for (size_t i : todo) {
    absl::StatusOr<internal::RollupCount> count = internal::CountInRollup(
        store_, options_.tables, *events[i], internal::RollupMarkerOf(*events[i]));
    if (!count.ok()) return count.status();
    if (count->recounted) metrics_->rollup_recounts->Increment();
    counts.push_back(*count);
  }
  for (size_t i : todo) {
    if (absl::Status s = timeline.Mutate(internal::RolledUpMarker(timeline_keys[i])); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = timeline.Flush(); !s.ok()) return s;
  // As in Record, the events are recorded whatever the deletes answer.
  storage::BufferedMutator rollups(&store_, options_.tables.rollups, step);
  for (size_t k = 0; k < todo.size(); ++k) {
    const Event& event = *events[todo[k]];
    rollups
        .Mutate(internal::RollupMarkerDelete(event, internal::RollupMarkerOf(event),
                                             counts[k].marker_timestamp))
        .IgnoreError();
  }
  if (!rollups.Flush().ok()) {
    metrics_->rollup_markers_left->Increment(static_cast<double>(todo.size()));
  }
  return absl::OkStatus();
}

absl::Status EventStore::RemoveWritten(const Event& event) {
  const uint32_t code = static_cast<uint32_t>(event.type);
  // Index first: an index row must never outlive its timeline row unnoticed.
  if (absl::Status s = store_.Delete(
          options_.tables.index,
          WholeRow(internal::IndexKey(code, event.event_time_ms, event.user_key, event.event_id)));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = store_.Delete(
          options_.tables.timeline,
          WholeRow(internal::TimelineKey(event.user_key, event.event_time_ms, event.event_id)));
      !s.ok()) {
    return s;
  }
  // The whole day row: every count of an erased user goes.
  return store_.Delete(options_.tables.rollups,
                       WholeRow(internal::RollupKey(event.user_key, event.event_time_ms)));
}

absl::StatusOr<std::vector<Event>> EventStore::ScanTimeline(const storage::Scan& scan) {
  absl::StatusOr<std::vector<storage::RowResult>> rows =
      store_.Scan(options_.tables.timeline, scan);
  if (!rows.ok()) return rows.status();
  std::vector<Event> events;
  events.reserve(rows->size());
  for (const storage::RowResult& row : *rows) {
    if (std::optional<Event> e = FromTimelineRow(row)) events.push_back(*std::move(e));
  }
  return events;
}

absl::StatusOr<std::vector<Event>> EventStore::LastEvents(std::string_view user_key, int limit) {
  if (absl::Status s = CheckUserKey(user_key); !s.ok()) return s;
  if (absl::Status s = CheckLimit(limit); !s.ok()) return s;
  storage::Scan scan;
  scan.prefix = internal::UserPrefix(user_key);
  scan.columns = {{Str(internal::kTimelineFamily), std::nullopt}};
  scan.limit = limit;
  scan.caching = std::min(limit, 1000);
  return ScanTimeline(scan);
}

absl::StatusOr<std::vector<Event>> EventStore::EventsInWindow(std::string_view user_key,
                                                              int64_t from_ms, int64_t to_ms,
                                                              int limit) {
  if (absl::Status s = CheckUserKey(user_key); !s.ok()) return s;
  if (absl::Status s = CheckLimit(limit); !s.ok()) return s;
  if (absl::Status s = CheckWindow(from_ms, to_ms); !s.ok()) return s;
  if (from_ms >= to_ms) return std::vector<Event>();
  const KeyRange range = internal::TimelineWindow(user_key, from_ms, to_ms);
  storage::Scan scan;
  scan.start_row = range.start;
  scan.stop_row = range.stop;
  scan.columns = {{Str(internal::kTimelineFamily), std::nullopt}};
  scan.limit = limit;
  scan.caching = std::min(limit, 1000);
  return ScanTimeline(scan);
}

absl::StatusOr<std::vector<Event>> EventStore::EventsOfType(EventType type, int64_t from_ms,
                                                            int64_t to_ms, int limit) {
  if (absl::Status s = CheckLimit(limit); !s.ok()) return s;
  if (absl::Status s = CheckWindow(from_ms, to_ms); !s.ok()) return s;
  if (from_ms >= to_ms) return std::vector<Event>();
  // Each bucket is newest first; the newest `limit` overall are among the
  // newest `limit` of each bucket. The buckets are read one after another:
  // this is an operator's read, and a blocking scan needs no executor that
  // outlives late answers.
  std::vector<storage::RowResult> rows;
  for (int bucket = 0; bucket < internal::kIndexBuckets; ++bucket) {
    const KeyRange range =
        internal::IndexWindow(bucket, static_cast<uint32_t>(type), from_ms, to_ms);
    storage::Scan scan;
    scan.start_row = range.start;
    scan.stop_row = range.stop;
    scan.columns = {{Str(internal::kIndexFamily), std::nullopt}};
    scan.limit = limit;
    scan.caching = std::min(limit, 1000);
    absl::StatusOr<std::vector<storage::RowResult>> part = store_.Scan(options_.tables.index, scan);
    if (!part.ok()) return part.status();
    for (storage::RowResult& row : *part) rows.push_back(std::move(row));
  }
  // Past the bucket and type, the key is reverse time, user, event id: the
  // merge order (newest first, ties in key order).
  auto merge_key = [](const storage::RowResult& r) {
    return std::string_view(r.row).substr(1 + internal::kTypeBytes);
  };
  std::sort(rows.begin(), rows.end(),
            [&](const storage::RowResult& a, const storage::RowResult& b) {
              return merge_key(a) < merge_key(b);
            });
  std::vector<Event> events;
  for (const storage::RowResult& row : rows) {
    if (static_cast<int>(events.size()) == limit) break;
    if (std::optional<Event> e = FromIndexRow(row)) events.push_back(*std::move(e));
  }
  return events;
}

absl::StatusOr<std::optional<Event>> EventStore::GetEvent(std::string_view user_key,
                                                          int64_t event_time_ms,
                                                          std::string_view event_id) {
  if (absl::Status s = CheckUserKey(user_key); !s.ok()) return s;
  if (event_id.size() != kEventIdBytes || event_time_ms < 0 || event_time_ms > kMaxEventTime) {
    return absl::InvalidArgumentError("event id must be 16 bytes and event time >= 0");
  }
  storage::Get get;
  get.row = internal::TimelineKey(user_key, event_time_ms, event_id);
  get.columns = {{Str(internal::kTimelineFamily), std::nullopt}};
  absl::StatusOr<storage::RowResult> row = store_.Get(options_.tables.timeline, get);
  if (!row.ok()) return row.status();
  if (row->empty()) return std::optional<Event>();
  return FromTimelineRow(*row);
}

absl::StatusOr<storage::Scan> DailyCountsScan(std::string_view user_key, int64_t from_ms,
                                              int64_t to_ms) {
  if (absl::Status s = CheckUserKey(user_key); !s.ok()) return s;
  if (absl::Status s = CheckWindow(from_ms, to_ms); !s.ok()) return s;
  storage::Scan scan;
  if (from_ms >= to_ms) return scan;
  constexpr int64_t kDayMs = 24LL * 3600 * 1000;
  const int64_t days = (to_ms - 1) / kDayMs - from_ms / kDayMs + 1;  // UTC days touched
  if (days > kMaxReadLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("a rollup window covers at most ", kMaxReadLimit, " days"));
  }
  KeyRange range = internal::RollupWindow(user_key, from_ms, to_ms);
  scan.start_row = std::move(range.start);
  scan.stop_row = std::move(range.stop);
  scan.columns = {{Str(internal::kRollupFamily), std::nullopt}};
  scan.limit = static_cast<int>(days);
  return scan;
}

EngagementTotals SumEngagement(const std::vector<storage::RowResult>& rows) {
  EngagementTotals totals;
  for (const storage::RowResult& row : rows) {
    if (row.row.size() != internal::kRollupKeyBytes) continue;
    // Exact names: a rollup marker column ("#...") matches none of them.
    for (const storage::Cell& cell : row.cells) {
      int64_t* total = nullptr;
      if (cell.qualifier == EventTypeName(EventType::kImpression)) {
        total = &totals.impressions;
      } else if (cell.qualifier == EventTypeName(EventType::kClick)) {
        total = &totals.clicks;
      } else if (cell.qualifier == EventTypeName(EventType::kConversion)) {
        total = &totals.conversions;
      } else {
        continue;
      }
      if (std::optional<int64_t> count = storage::DecodeCounter(cell.value); count.has_value()) {
        *total += *count;
      }
    }
  }
  return totals;
}

absl::StatusOr<std::vector<DailyRollup>> EventStore::DailyCounts(std::string_view user_key,
                                                                 int64_t from_ms, int64_t to_ms) {
  absl::StatusOr<storage::Scan> scan = DailyCountsScan(user_key, from_ms, to_ms);
  if (!scan.ok()) return scan.status();
  if (scan->limit == 0) return std::vector<DailyRollup>();
  absl::StatusOr<std::vector<storage::RowResult>> rows =
      store_.Scan(options_.tables.rollups, *scan);
  if (!rows.ok()) return rows.status();
  std::vector<DailyRollup> out;
  for (const storage::RowResult& row : *rows) {
    if (row.row.size() != internal::kRollupKeyBytes) continue;
    DailyRollup day;
    day.day = row.row.substr(internal::kUserPrefixBytes);
    for (const storage::Cell& cell : row.cells) {
      // A marker is a count of attempts at one event, not of events.
      if (internal::IsRollupMarker(cell.qualifier)) continue;
      std::optional<EventType> type = ParseEventType(cell.qualifier);
      std::optional<int64_t> count = storage::DecodeCounter(cell.value);
      if (type && count) day.counts[*type] = *count;
    }
    out.push_back(std::move(day));
  }
  return out;
}

absl::StatusOr<EventStore::ReconcileReport> EventStore::Reconcile(int sample_users) {
  if (sample_users < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Reconcile needs at least one user, got ", sample_users));
  }
  absl::MutexLock lock(&reconcile_mu_);
  if (!cursors_loaded_) {
    absl::StatusOr<internal::ReconcileCursors> stored =
        internal::LoadReconcileCursors(store_, options_.tables.jobs);
    if (!stored.ok()) return stored.status();
    timeline_cursor_ = std::move(stored->timeline);
    index_cursor_ = std::move(stored->index);
    cursors_loaded_ = true;
  }
  ReconcileReport report;
  absl::flat_hash_set<std::string> seen;
  bool wrapped = false;
  while (report.users < sample_users) {
    storage::Scan next;
    next.start_row = timeline_cursor_;
    next.columns = {{Str(internal::kTimelineFamily), Str(internal::kTypeColumn)}};
    next.limit = 1;
    absl::StatusOr<std::vector<storage::RowResult>> rows =
        store_.Scan(options_.tables.timeline, next);
    if (!rows.ok()) return rows.status();
    if (rows->empty()) {
      if (timeline_cursor_.empty() || wrapped) break;
      timeline_cursor_.clear();
      wrapped = true;
      continue;
    }
    const std::string& row = rows->front().row;
    std::optional<internal::TimelineKeyParts> parts = internal::ParseTimelineKey(row);
    if (!parts) {
      timeline_cursor_ = row + '\0';
      continue;
    }
    const std::string user = Str(parts->user_key);
    timeline_cursor_ = storage::PrefixSuccessor(internal::UserPrefix(user));
    if (!seen.insert(user).second) break;  // round the whole table already
    absl::StatusOr<bool> erased = IsErased(user);
    if (!erased.ok()) return erased.status();
    if (*erased) continue;  // the erasure's own sweep owns these rows
    if (absl::Status s = ReconcileUser(user, &report); !s.ok()) return s;
    ++report.users;
    metrics_->reconcile_users->Increment();
    if (timeline_cursor_.empty()) wrapped = true;
  }
  if (absl::Status s =
          ReconcileIndexRows(sample_users * options_.reconcile_index_rows_per_user, &report);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = internal::SaveReconcileCursors(
          store_, options_.tables.jobs, {.timeline = timeline_cursor_, .index = index_cursor_});
      !s.ok()) {
    return s;
  }
  return report;
}

absl::Status EventStore::ReconcileUser(std::string_view user_key, ReconcileReport* report) {
  const std::string prefix = internal::UserPrefix(user_key);
  const std::string stop = storage::PrefixSuccessor(prefix);
  std::string start = prefix;
  std::vector<std::string> added;
  int checked = 0;
  while (checked < options_.reconcile_rows_per_user) {
    storage::Scan scan;
    scan.start_row = start;
    scan.stop_row = stop;
    scan.columns = {{Str(internal::kTimelineFamily), Str(internal::kTypeColumn)},
                    {Str(internal::kTimelineFamily), Str(internal::kSummaryColumn)}};
    scan.limit = std::min(options_.page_rows, options_.reconcile_rows_per_user - checked);
    scan.caching = scan.limit;
    absl::StatusOr<std::vector<storage::RowResult>> rows =
        store_.Scan(options_.tables.timeline, scan);
    if (!rows.ok()) return rows.status();
    if (rows->empty()) break;
    checked += static_cast<int>(rows->size());
    report->timeline_rows_checked += static_cast<int>(rows->size());
    start = rows->back().row + '\0';

    const int64_t now = clock_.NowMillis();
    std::vector<storage::Get> gets;
    std::vector<storage::Put> repairs;
    for (const storage::RowResult& row : *rows) {
      std::optional<internal::TimelineKeyParts> parts = internal::ParseTimelineKey(row.row);
      if (!parts) continue;
      const storage::Cell* type_cell = nullptr;
      for (const storage::Cell& cell : row.cells) {
        if (cell.qualifier == internal::kTypeColumn) type_cell = &cell;
      }
      if (type_cell == nullptr || type_cell->value.size() != internal::kTypeBytes) continue;
      // The index row of an event ingested longer ago than the index TTL has
      // expired by design; re-adding it would extend the index's retention.
      const int64_t left_ms = options_.index_ttl_ms - (now - type_cell->timestamp);
      if (left_ms <= 0) continue;
      storage::Put put;
      put.row = internal::IndexKey(storage::ReadBigEndian32(type_cell->value), parts->event_time_ms,
                                   parts->user_key, parts->event_id);
      put.ttl_ms = left_ms;
      put.durability = storage::Durability::kSyncWal;
      std::optional<std::string_view> summary =
          row.Value(internal::kTimelineFamily, internal::kSummaryColumn);
      put.values = {{Str(internal::kIndexFamily), Str(internal::kIndexSummaryColumn),
                     summary ? Str(*summary) : std::string(), std::nullopt}};
      storage::Get get;
      get.row = put.row;
      get.columns = {{Str(internal::kIndexFamily), std::nullopt}};
      gets.push_back(std::move(get));
      repairs.push_back(std::move(put));
    }
    if (gets.empty()) continue;
    absl::StatusOr<std::vector<storage::RowResult>> present =
        store_.MultiGet(options_.tables.index, gets);
    if (!present.ok()) return present.status();
    std::vector<storage::Put> missing;
    for (size_t i = 0; i < gets.size() && i < present->size(); ++i) {
      if ((*present)[i].empty()) missing.push_back(std::move(repairs[i]));
    }
    if (missing.empty()) continue;
    if (absl::Status s = store_.PutBatch(options_.tables.index, missing); !s.ok()) return s;
    for (const storage::Put& p : missing) added.push_back(p.row);
    report->index_rows_added += static_cast<int>(missing.size());
    metrics_->index_rows_added->Increment(static_cast<double>(missing.size()));
  }
  if (added.empty()) return absl::OkStatus();
  // Same gap as in Record: an erasure may have swept the user meanwhile.
  absl::StatusOr<bool> erased = IsErased(user_key);
  if (!erased.ok()) return erased.status();
  if (!*erased) return absl::OkStatus();
  std::vector<storage::Delete> undo;
  for (std::string& row : added) undo.push_back(WholeRow(std::move(row)));
  return store_.DeleteBatch(options_.tables.index, undo);
}

absl::Status EventStore::ReconcileIndexRows(int rows_to_check, ReconcileReport* report) {
  int checked = 0;
  bool wrapped = false;
  while (checked < rows_to_check) {
    storage::Scan scan;
    scan.start_row = index_cursor_;
    scan.columns = {{Str(internal::kIndexFamily), std::nullopt}};
    scan.limit = std::min(options_.page_rows, rows_to_check - checked);
    scan.caching = scan.limit;
    absl::StatusOr<std::vector<storage::RowResult>> rows = store_.Scan(options_.tables.index, scan);
    if (!rows.ok()) return rows.status();
    if (rows->empty()) {
      if (index_cursor_.empty() || wrapped) break;
      index_cursor_.clear();
      wrapped = true;
      continue;
    }
    checked += static_cast<int>(rows->size());
    report->index_rows_checked += static_cast<int>(rows->size());
    index_cursor_ = rows->back().row + '\0';

    std::vector<storage::Get> gets;
    std::vector<std::string> index_rows;
    for (const storage::RowResult& row : *rows) {
      std::optional<internal::IndexKeyParts> parts = internal::ParseIndexKey(row.row);
      if (!parts) continue;
      storage::Get get;
      get.row = internal::TimelineKey(parts->user_key, parts->event_time_ms, parts->event_id);
      get.columns = {{Str(internal::kTimelineFamily), Str(internal::kTypeColumn)}};
      gets.push_back(std::move(get));
      index_rows.push_back(row.row);
    }
    if (gets.empty()) continue;
    absl::StatusOr<std::vector<storage::RowResult>> timeline =
        store_.MultiGet(options_.tables.timeline, gets);
    if (!timeline.ok()) return timeline.status();
    std::vector<storage::Delete> orphans;
    for (size_t i = 0; i < gets.size() && i < timeline->size(); ++i) {
      if ((*timeline)[i].empty()) orphans.push_back(WholeRow(index_rows[i]));
    }
    if (orphans.empty()) continue;
    if (absl::Status s = store_.DeleteBatch(options_.tables.index, orphans); !s.ok()) return s;
    report->index_rows_removed += static_cast<int>(orphans.size());
    metrics_->index_rows_removed->Increment(static_cast<double>(orphans.size()));
  }
  return absl::OkStatus();
}

}  // namespace rtb::bidder::events

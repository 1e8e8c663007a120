// Event timelines: the storage side of the beacons (event-tracking seed).
//
// Every event is written to three tables:
//   - `events` (timeline): one row per event under the user's prefix, newest
//     first, with the full record; family TTL 90 days;
//   - `events_by_type` (index): one row per event under one of 16 buckets and
//     the event type, with a short summary for list views; TTL 30 days;
//   - `event_rollups`: one counter per event type, user and UTC day; 2 years.
// Key layouts are drawn in bidder/events/internal/keys.h.
//
// Two clocks: the event time (which may be days late) lives in the keys and in
// the `ts` value; cell timestamps are left to the server, so every TTL counts
// from ingest and a late event is never expired on arrival.
//
// Write order and replays: Record writes the timeline row, then the index row
// (both SYNC_WAL), then the rollup increment, then a marker cell on the
// timeline row. Keys are deterministic (the event id comes from the beacon),
// so a replay after a crash rewrites the same cells, and a replay of a
// complete event finds the marker and changes nothing. A crash between the
// timeline and index writes leaves a timeline row without its index row:
// replaying the beacon repairs it, and so does Reconcile.
//
// Rollups after a crash. A replay that finds no timeline marker increments
// the rollup again, and the increment of the crashed attempt may have
// landed. Its nonce (from the event id) lets the embedded engine answer the
// retry with the first result for storage::kNonceRetentionMs, but Thrift2
// (HBase, storage-server) carries no nonce. So the rollup Increment also
// adds 1 to the event's marker column in the same row, atomically: c:#<hex
// event id> (internal::RollupMarkerQualifier; no type name starts with '#').
// An attempt whose Increment made the marker 2 or more takes its own 1 back
// from the count (a second Increment, -1, with a nonce of its own), so an
// event counts once on every backend however many attempts die before the
// timeline marker. Once the timeline marker is written the rollup marker
// column is deleted (replays stop before the rollup from then on), so rows
// do not keep a marker per event for two years; a crash or an error before
// that delete leaves one small column, which every rollup reader skips.
// What is left, on a store without nonce memory (or past its retention):
//   - a crash (or a store error that kept the undo from landing) between a
//     retry's over-count and its undo counts the event twice: two failures
//     at exact points (one before the timeline marker, then one inside the
//     retry);
//   - two attempts at the same event running at once, when the later one
//     read no timeline marker before the earlier wrote it but increments
//     after the earlier deleted the rollup marker, count it twice: that
//     needs a duplicate delivery overlapping the first by a few round trips
//     (two stream workers on one batch), not a crash and a retry.
//
// Erased users (bidder/events/erasure.h) are skipped at ingest: Record checks
// the erasure record before writing and again after, and removes what it
// wrote if an erasure landed in between, so a replayed beacon cannot bring an
// erased user's events back.
//
// Every scan is bounded by a prefix or a row range and a limit.
//
// Thread-safety: an EventStore is safe to call from any number of threads.
// Calls block on storage; keep them off I/O threads.
#ifndef RTB_BIDDER_EVENTS_EVENTS_H_
#define RTB_BIDDER_EVENTS_EVENTS_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "config/config.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::bidder::events {

namespace internal {
struct EventMetrics;
class HotKeyCounter;
}  // namespace internal

// Codes are stored in keys and values: never renumber.
enum class EventType : uint32_t {
  kImpression = 1,
  kClick = 2,
  kConversion = 3,
  kWin = 4,
  kBilling = 5,
  kLoss = 6,
};
inline constexpr std::array<EventType, 6> kEventTypes = {EventType::kImpression, EventType::kClick,
                                                         EventType::kConversion, EventType::kWin,
                                                         EventType::kBilling,    EventType::kLoss};

// "impression", "click", "conversion", "win", "billing", "loss"; "unknown"
// for a code this build does not know.
std::string_view EventTypeName(EventType type);
std::optional<EventType> ParseEventType(std::string_view name);

// Byte widths of the ids (fixed, so one user's prefix never covers another's).
inline constexpr size_t kUserKeyBytes = 16;
inline constexpr size_t kEventIdBytes = 16;

struct Event {
  // 16 bytes: the device key (HMAC of the device id), never a raw id.
  std::string user_key;
  // 16 bytes, deterministic for a beacon, so a replay rewrites the same cells.
  std::string event_id;
  EventType type = EventType::kImpression;
  // When it happened (may be late), ms since the epoch, >= 0. Key and value.
  int64_t event_time_ms = 0;
  // JSON text, the full record (timeline only).
  std::string body;
  // Short text for the index row, enough for a list view.
  std::string summary;

  bool operator==(const Event&) const = default;
};

// Table names; the defaults are the tables of storage/schemas.h. Tests point
// them at tables of their own.
struct EventTables {
  std::string timeline = std::string(storage::kEventsTable);
  std::string index = std::string(storage::kEventsByTypeTable);
  std::string rollups = std::string(storage::kEventRollupsTable);
  std::string erasures = std::string(storage::kErasuresTable);
  // Where Reconcile keeps its cursors.
  std::string jobs = std::string(storage::kFleetJobsTable);
};

// Hot entities: events per user key are counted in fixed windows (a bounded
// sketch, bidder/events/internal/hot_keys.h); after each window the top keys
// are exported as bidder_events_hot_key_events{rank,key_prefix} (the first 4
// bytes of the device key in hex: a hash, never an id). A window closes on
// the first Record after it ends.
struct HotKeyOptions {
  // Length of a counting window, ms; 0 turns counting off. Default 60000.
  int64_t window_ms = 60000;
  // Keys counted per window; keys above events/tracked_keys are always
  // found. Default 64.
  int tracked_keys = 64;
  // Top keys exported per window. Default 5.
  int reported_keys = 5;
  // Events of one key per window beyond which Record skips that key's events
  // (bidder_events_rate_limited_total), so one bot or shared id cannot make
  // a hot region. 0 (default): never skip.
  int64_t max_events_per_window = 0;
};

struct HotKey {
  std::string user_key;
  int64_t events = 0;             // estimate, at most the true count + error
  int64_t guaranteed_events = 0;  // at most the true count
};

struct EventStoreOptions {
  EventTables tables;
  // Lifetime of an index row since ingest, ms. Reconcile does not re-add the
  // index row of a timeline row older than this: it expired by design.
  // 0 (default): the `events_by_type` family TTL of storage::BidderTables().
  int64_t index_ttl_ms = 0;
  // Timeline rows read per page by Reconcile. Default 500.
  int page_rows = 500;
  // Newest timeline rows Reconcile compares per sampled user. Default 10000.
  int reconcile_rows_per_user = 10000;
  // Index rows (following a cursor through the index) whose timeline row
  // Reconcile checks, per sampled user. Default 64.
  int reconcile_index_rows_per_user = 64;
  HotKeyOptions hot_keys;
};

// The options the `events` section of the configuration gives (hot keys);
// the rest default.
EventStoreOptions EventStoreOptionsOf(const config::EventsConfig& events);

// Largest `limit` a read accepts.
inline constexpr int kMaxReadLimit = 10000;

// Event counts of one user and UTC day.
struct DailyRollup {
  std::string day;  // "yyyymmdd", UTC
  std::map<EventType, int64_t> counts;

  bool operator==(const DailyRollup&) const = default;
};

// A user's engagement over some days: the sums of its rollup counters.
struct EngagementTotals {
  int64_t impressions = 0;
  int64_t clicks = 0;
  int64_t conversions = 0;

  bool operator==(const EngagementTotals&) const = default;
};

// The scan of a user's rollup rows for the UTC days from the day of from_ms
// to the day of to_ms - 1, one row per day at most: what DailyCounts reads,
// for a reader that runs it itself on `EventTables::rollups` (the bid path
// reads a device's history with Store::AsyncScan). InvalidArgument for a
// user key that is not kUserKeyBytes wide, a negative bound, or more than
// kMaxReadLimit days; an empty window gives a scan with limit 0.
absl::StatusOr<storage::Scan> DailyCountsScan(std::string_view user_key, int64_t from_ms,
                                              int64_t to_ms);

// The impression, click and conversion counters of the rows such a scan
// read, summed. Rows that are not rollup rows, and rollup marker columns,
// are skipped. No allocation.
EngagementTotals SumEngagement(const std::vector<storage::RowResult>& rows);

class EventStore {
 public:
  // `store` and `clock` must outlive this. `clock` should be the clock of the
  // storage servers' timestamps (the system clock in production); Reconcile
  // compares it with cell timestamps. `registry` may be null: the metrics are
  // then kept in a registry of this store's own.
  EventStore(storage::Store& store, storage::Clock& clock, prometheus::Registry* registry,
             EventStoreOptions options = {});
  ~EventStore();
  EventStore(const EventStore&) = delete;
  EventStore& operator=(const EventStore&) = delete;

  // Timeline row, index row, rollup counter (Increment with a nonce derived
  // from event_id, and the event's rollup marker; an attempt that finds the
  // event counted takes its 1 back), then the replay marker, then the rollup
  // marker's delete; timeline and index SYNC_WAL, so both are durable when
  // this returns OK. A failed rollup marker delete does not fail the Record
  // (bidder_events_rollup_markers_left_total). Skips (returns OK, counts
  // bidder_events_skipped_erased_total) when the user is erased, and (counts
  // bidder_events_rate_limited_total) when the user is over
  // hot_keys.max_events_per_window.
  // InvalidArgument for ids that are not 16 bytes or a negative time.
  absl::Status Record(const Event& event);

  // Records `events` as Record records each, with each step taken for all
  // of them at once: the replay markers and erasure records read in one
  // MultiGet each, the timeline rows written through a BufferedMutator and
  // flushed, then the index rows (flushed), then one rollup Increment per
  // event, then the timeline markers (flushed), then the rollup markers'
  // deletes. Every step is durable before the next starts, so each event's
  // writes keep Record's order, and a crash or an error anywhere leaves what
  // one inside Record would: calling it again with the same events repairs
  // it. This is the stream worker's way (event-tracking seed: "After each
  // batch from the log: timeline.flush(); index.flush(); then commit the log
  // offset"): a handful of round trips per step instead of several per
  // event. An event given twice is recorded once. InvalidArgument, with
  // nothing written, when any event is invalid.
  absl::Status RecordBatch(std::span<const Event> events);

  // The newest `limit` (1..kMaxReadLimit) events of a user, newest first.
  absl::StatusOr<std::vector<Event>> LastEvents(std::string_view user_key, int limit);
  // A user's events with from_ms <= event time < to_ms, newest first, at most
  // `limit`.
  absl::StatusOr<std::vector<Event>> EventsInWindow(std::string_view user_key, int64_t from_ms,
                                                    int64_t to_ms, int limit);
  // Events of one type with from_ms <= event time < to_ms across all index
  // buckets (one bounded scan per bucket), merged newest first, at most
  // `limit`. Read from the index: `body` is empty; GetEvent has the record.
  absl::StatusOr<std::vector<Event>> EventsOfType(EventType type, int64_t from_ms, int64_t to_ms,
                                                  int limit);
  // The timeline row of one event, or nullopt.
  absl::StatusOr<std::optional<Event>> GetEvent(std::string_view user_key, int64_t event_time_ms,
                                                std::string_view event_id);
  // A user's rollups for the UTC days from the day of from_ms to the day of
  // to_ms - 1, oldest first. Rollup marker columns are skipped.
  absl::StatusOr<std::vector<DailyRollup>> DailyCounts(std::string_view user_key, int64_t from_ms,
                                                       int64_t to_ms);

  absl::StatusOr<bool> IsErased(std::string_view user_key);

  // Compares index rows with timeline rows for `sample_users` users (the next
  // ones after a cursor that walks the timeline and wraps, so every user is
  // checked in turn), adds missing index rows (with the cell TTL they have
  // left), and removes index rows whose timeline row is gone (checked along a
  // second cursor through the index). Counted in
  // bidder_events_index_repairs_total{action}. Erased users are left alone.
  // The cursors are read from the `fleet_jobs` table at the first call and
  // written back after each, so the walk goes on across restarts and from
  // one leader of the fleet's jobs to the next.
  struct ReconcileReport {
    int users = 0;
    int index_rows_added = 0;
    int index_rows_removed = 0;
    int timeline_rows_checked = 0;
    int index_rows_checked = 0;
  };
  absl::StatusOr<ReconcileReport> Reconcile(int sample_users);

  // The most active user keys of the last closed window, most events first.
  std::vector<HotKey> HotKeys() const;

  const EventTables& tables() const { return options_.tables; }

 private:
  absl::Status RemoveWritten(const Event& event);
  // RecordBatch's writes of events[i] for each i in `todo`, step by step.
  absl::Status WriteBatchSteps(const std::vector<const Event*>& events,
                               const std::vector<std::string>& timeline_keys,
                               const std::vector<size_t>& todo);
  absl::StatusOr<std::vector<Event>> ScanTimeline(const storage::Scan& scan);
  absl::Status ReconcileUser(std::string_view user_key, ReconcileReport* report);
  absl::Status ReconcileIndexRows(int rows, ReconcileReport* report);
  void PublishHotKeys(const std::vector<HotKey>& top);

  storage::Store& store_;
  storage::Clock& clock_;
  EventStoreOptions options_;
  std::unique_ptr<prometheus::Registry> own_registry_;
  std::unique_ptr<internal::EventMetrics> metrics_;
  std::unique_ptr<internal::HotKeyCounter> hot_keys_;

  absl::Mutex reconcile_mu_;
  // Where the next Reconcile continues in the timeline (a user prefix
  // successor) and in the index (a row key successor); "" is the start.
  std::string timeline_cursor_ ABSL_GUARDED_BY(reconcile_mu_);
  std::string index_cursor_ ABSL_GUARDED_BY(reconcile_mu_);
  bool cursors_loaded_ ABSL_GUARDED_BY(reconcile_mu_) = false;
};

}  // namespace rtb::bidder::events

#endif  // RTB_BIDDER_EVENTS_EVENTS_H_

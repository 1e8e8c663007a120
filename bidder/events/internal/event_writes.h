// The writes of one event (bidder/events/events.h, "Write order and
// replays"), shared by EventStore::Record, which makes them one event at a
// time, and EventStore::RecordBatch, which makes each step for many events
// at once.
#ifndef RTB_BIDDER_EVENTS_INTERNAL_EVENT_WRITES_H_
#define RTB_BIDDER_EVENTS_INTERNAL_EVENT_WRITES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bidder/events/events.h"
#include "bidder/events/internal/metrics.h"
#include "storage/store.h"

namespace rtb::bidder::events::internal {

// The read of the marker a timeline row carries once the rollup counted
// its event: present, the event was recorded before and this is a replay.
storage::Get RolledUpMarkerGet(const std::string& timeline_key);
absl::StatusOr<bool> IsRolledUp(storage::Store& store, const EventTables& tables,
                                const std::string& timeline_key);

// The read of a user's erasure record (`erasures`): present, the user is
// erased.
storage::Get ErasureRecordGet(std::string_view user_key);

// The timeline row (SYNC_WAL).
storage::Put TimelinePut(const Event& event, const std::string& timeline_key);
// The index row (SYNC_WAL).
storage::Put IndexPut(const Event& event);

// What CountInRollup did.
struct RollupCount {
  // The event was counted before: this attempt took its own 1 back.
  bool recounted = false;
  // The timestamp of the marker version this attempt wrote, if the store
  // said: the marker's delete names it (RollupMarkerDelete).
  std::optional<int64_t> marker_timestamp;
};

// The rollup marker column of an event (RollupMarkerQualifier).
std::string RollupMarkerOf(const Event& event);

// Adds the event to its day's count, once (events.h, "Rollups after a
// crash").
absl::StatusOr<RollupCount> CountInRollup(storage::Store& store, const EventTables& tables,
                                          const Event& event, const std::string& marker);

// The timeline marker that says the rollup counted the event (SYNC_WAL).
storage::Put RolledUpMarker(const std::string& timeline_key);

// The rollup marker's delete, once the timeline marker stands (async WAL:
// a lost one leaves a column readers skip).
storage::Delete RollupMarkerDelete(const Event& event, const std::string& marker,
                                   std::optional<int64_t> marker_timestamp);

// Every write of one event, in order, each durable before the next.
absl::Status WriteEventRows(storage::Store& store, const EventTables& tables, const Event& event,
                            const std::string& timeline_key, EventMetrics& metrics);

}  // namespace rtb::bidder::events::internal

#endif  // RTB_BIDDER_EVENTS_INTERNAL_EVENT_WRITES_H_

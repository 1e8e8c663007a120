#include "bidder/events/internal/metrics.h"

#include "bidder/events/events.h"
#include "prometheus/family.h"

namespace rtb::bidder::events::internal {

EventMetrics::EventMetrics(prometheus::Registry& registry) {
  auto& recorded_family = prometheus::BuildCounter()
                              .Name("bidder_events_recorded_total")
                              .Help("Events written to the timeline, index and rollups")
                              .Register(registry);
  recorded[0] = &recorded_family.Add({{"type", "unknown"}});
  for (EventType type : kEventTypes) {
    recorded[static_cast<size_t>(type)] =
        &recorded_family.Add({{"type", std::string(EventTypeName(type))}});
  }
  replayed = &prometheus::BuildCounter()
                  .Name("bidder_events_replayed_total")
                  .Help("Records of an event that was already completely written")
                  .Register(registry)
                  .Add({});
  skipped_erased = &prometheus::BuildCounter()
                        .Name("bidder_events_skipped_erased_total")
                        .Help("Records skipped because the user is erased")
                        .Register(registry)
                        .Add({});
  record_failures = &prometheus::BuildCounter()
                         .Name("bidder_events_record_failures_total")
                         .Help("Records that returned an error")
                         .Register(registry)
                         .Add({});
  rate_limited = &prometheus::BuildCounter()
                      .Name("bidder_events_rate_limited_total")
                      .Help("Records skipped because the user passed its events per window")
                      .Register(registry)
                      .Add({});
  rollup_recounts = &prometheus::BuildCounter()
                         .Name("bidder_events_rollup_recounts_total")
                         .Help(
                             "Rollup increments of an event that was already counted (a retry "
                             "after a crash or a store error), taken back")
                         .Register(registry)
                         .Add({});
  rollup_markers_left = &prometheus::BuildCounter()
                             .Name("bidder_events_rollup_markers_left_total")
                             .Help(
                                 "Rollup marker columns left behind because their delete failed "
                                 "(readers skip them)")
                             .Register(registry)
                             .Add({});
  hot_keys = &prometheus::BuildGauge()
                  .Name("bidder_events_hot_key_events")
                  .Help(
                      "Events of the most active device keys in the last closed window "
                      "(key_prefix: first 4 bytes of the device key, hex)")
                  .Register(registry);
  reconcile_users = &prometheus::BuildCounter()
                         .Name("bidder_events_reconcile_users_total")
                         .Help("Users whose index rows Reconcile compared with the timeline")
                         .Register(registry)
                         .Add({});
  auto& repairs = prometheus::BuildCounter()
                      .Name("bidder_events_index_repairs_total")
                      .Help(
                          "Index rows Reconcile added (timeline row without one) or removed "
                          "(timeline row gone)")
                      .Register(registry);
  index_rows_added = &repairs.Add({{"action", "added"}});
  index_rows_removed = &repairs.Add({{"action", "removed"}});
}

const char* ErasedTableName(ErasedTable table) {
  switch (table) {
    case ErasedTable::kProfiles:
      return "profiles";
    case ErasedTable::kImpressions:
      return "impressions";
    case ErasedTable::kDeviceImpressions:
      return "device_impressions";
    case ErasedTable::kTimeline:
      return "events";
    case ErasedTable::kIndex:
      return "events_by_type";
    case ErasedTable::kRollups:
      return "event_rollups";
  }
  return "unknown";
}

ErasureMetrics::ErasureMetrics(prometheus::Registry& registry) {
  auto& steps = prometheus::BuildCounter()
                    .Name("bidder_erasures_total")
                    .Help("Device erasures that reached each step")
                    .Register(registry);
  requested = &steps.Add({{"step", "requested"}});
  tombstoned = &steps.Add({{"step", "tombstoned"}});
  major_compacted = &steps.Add({{"step", "major_compacted"}});
  prior_snapshots_expired = &steps.Add({{"step", "prior_snapshots_expired"}});
  auto& rows = prometheus::BuildCounter()
                   .Name("bidder_erasure_rows_deleted_total")
                   .Help("Rows deleted by device erasures, by table")
                   .Register(registry);
  for (size_t i = 0; i < kErasedTableCount; ++i) {
    rows_deleted[i] = &rows.Add({{"table", ErasedTableName(static_cast<ErasedTable>(i))}});
  }
  failures = &prometheus::BuildCounter()
                  .Name("bidder_erasure_failures_total")
                  .Help("Erase and AdvancePending calls that returned an error")
                  .Register(registry)
                  .Add({});
}

}  // namespace rtb::bidder::events::internal

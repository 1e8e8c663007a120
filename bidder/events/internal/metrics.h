// Metrics of the events module, declared once; the write path only increments
// handles resolved here. Label values are the fixed sets below.
//
//   bidder_events_recorded_total{type}            events written (first time)
//   bidder_events_replayed_total                  Records of an event already complete
//   bidder_events_skipped_erased_total            Records skipped: the user is erased
//   bidder_events_record_failures_total           Records that returned an error
//   bidder_events_rate_limited_total              Records skipped: the user is over its rate
//   bidder_events_rollup_recounts_total           rollup adds of a counted event, taken back
//   bidder_events_rollup_markers_left_total       rollup markers whose delete failed (harmless)
//   bidder_events_hot_key_events{rank,key_prefix} events of the top keys in the last window
//   bidder_events_reconcile_users_total           users compared by Reconcile
//   bidder_events_index_repairs_total{action}     added | removed index rows
//   bidder_erasures_total{step}                   requested | tombstoned |
//                                                 major_compacted | prior_snapshots_expired
//   bidder_erasure_rows_deleted_total{table}      rows deleted by erasures, per table role
//   bidder_erasure_failures_total                 Erase / AdvancePending errors
//
// Thread-safety: prometheus-cpp handles are safe to update from any thread.
#ifndef RTB_BIDDER_EVENTS_INTERNAL_METRICS_H_
#define RTB_BIDDER_EVENTS_INTERNAL_METRICS_H_

#include <array>
#include <cstddef>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace rtb::bidder::events::internal {

struct EventMetrics {
  explicit EventMetrics(prometheus::Registry& registry);

  // By EventType code; 0 holds codes this build does not know.
  std::array<prometheus::Counter*, 7> recorded{};
  prometheus::Counter* replayed = nullptr;
  prometheus::Counter* skipped_erased = nullptr;
  prometheus::Counter* record_failures = nullptr;
  prometheus::Counter* rate_limited = nullptr;
  prometheus::Counter* rollup_recounts = nullptr;
  prometheus::Counter* rollup_markers_left = nullptr;
  // Series are replaced when a window closes: at most reported_keys exist.
  prometheus::Family<prometheus::Gauge>* hot_keys = nullptr;
  absl::Mutex hot_keys_mu;
  std::vector<prometheus::Gauge*> hot_key_series ABSL_GUARDED_BY(hot_keys_mu);
  prometheus::Counter* reconcile_users = nullptr;
  prometheus::Counter* index_rows_added = nullptr;
  prometheus::Counter* index_rows_removed = nullptr;
};

// Table roles an erasure deletes from, in the order of ErasureStatus.
enum class ErasedTable : size_t {
  kProfiles,
  kImpressions,
  kDeviceImpressions,
  kTimeline,
  kIndex,
  kRollups,
};
inline constexpr size_t kErasedTableCount = 6;
const char* ErasedTableName(ErasedTable table);

struct ErasureMetrics {
  explicit ErasureMetrics(prometheus::Registry& registry);

  prometheus::Counter* requested = nullptr;
  prometheus::Counter* tombstoned = nullptr;
  prometheus::Counter* major_compacted = nullptr;
  prometheus::Counter* prior_snapshots_expired = nullptr;
  std::array<prometheus::Counter*, kErasedTableCount> rows_deleted{};
  prometheus::Counter* failures = nullptr;
};

}  // namespace rtb::bidder::events::internal

#endif  // RTB_BIDDER_EVENTS_INTERNAL_METRICS_H_

// Metric ids and the series index.
//
// Metric ids are sequential, assigned with CheckAndMutate on the counter row
// of metric_ids: a process takes id n+1 only if the counter still reads n,
// then claims the name with a second CheckAndMutate (name row absent). A lost
// name race wastes the id (a gap) and never gives two names one id.
//
// A series is registered once in metric_series (row "s"+metric+series ->
// canonical tags, claimed with CheckAndMutate so an 8-byte hash collision is
// detected, not merged), with its tag index rows; the cardinality limits read
// the series counters before a registration. Both are cached per process.
//
// Thread-safety: safe for concurrent use.
#ifndef RTB_BIDDER_TELEMETRY_INTERNAL_SERIES_REGISTRY_H_
#define RTB_BIDDER_TELEMETRY_INTERNAL_SERIES_REGISTRY_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bidder/telemetry/internal/metrics.h"
#include "storage/store.h"

namespace rtb::bidder::telemetry::internal {

struct SeriesRef {
  uint32_t metric_id = 0;
  uint64_t series_id = 0;
};

class SeriesRegistry {
 public:
  SeriesRegistry(storage::Store& store, int max_series, int max_series_per_metric,
                 TelemetryMetrics* metrics);

  // The id of `name`; NotFound when absent and !create.
  absl::StatusOr<uint32_t> MetricId(std::string_view name, bool create);
  // Registers the series when new. ResourceExhausted past a limit (reason in
  // `limit_metric`), Internal on a series id collision.
  absl::StatusOr<SeriesRef> Resolve(std::string_view metric,
                                    const std::map<std::string, std::string>& tags,
                                    prometheus::Counter** refusal_metric);

 private:
  absl::StatusOr<uint32_t> AssignMetricId(std::string_view name);
  absl::Status Register(uint32_t metric_id, uint64_t series_id,
                        const std::map<std::string, std::string>& tags,
                        prometheus::Counter** refusal_metric);

  storage::Store& store_;
  const int max_series_;
  const int max_series_per_metric_;
  TelemetryMetrics* metrics_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, uint32_t> metric_ids_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::pair<uint32_t, uint64_t>> known_series_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rtb::bidder::telemetry::internal

#endif  // RTB_BIDDER_TELEMETRY_INTERNAL_SERIES_REGISTRY_H_

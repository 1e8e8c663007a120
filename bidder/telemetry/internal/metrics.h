// Metrics of the telemetry module, declared once (names in telemetry.h).
//
// Thread-safety: prometheus-cpp handles are safe to update from any thread.
#ifndef RTB_BIDDER_TELEMETRY_INTERNAL_METRICS_H_
#define RTB_BIDDER_TELEMETRY_INTERNAL_METRICS_H_

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace rtb::bidder::telemetry::internal {

struct TelemetryMetrics {
  explicit TelemetryMetrics(prometheus::Registry& registry);

  prometheus::Counter* points_written = nullptr;
  // Refusal reasons, a fixed set.
  prometheus::Counter* refused_invalid = nullptr;
  prometheus::Counter* refused_id_like_tag = nullptr;
  prometheus::Counter* refused_series_limit = nullptr;
  prometheus::Counter* refused_metric_series_limit = nullptr;
  prometheus::Counter* refused_out_of_range = nullptr;
  prometheus::Counter* refused_storage_error = nullptr;
  prometheus::Gauge* series = nullptr;
  prometheus::Counter* packed_rows = nullptr;
  prometheus::Gauge* packed_bytes_per_point = nullptr;
  prometheus::Gauge* oldest_unpacked_bucket_age = nullptr;
  prometheus::Counter* packer_runs_ok = nullptr;
  prometheus::Counter* packer_runs_error = nullptr;
  prometheus::Gauge* packer_last_success = nullptr;
};

}  // namespace rtb::bidder::telemetry::internal

#endif  // RTB_BIDDER_TELEMETRY_INTERNAL_METRICS_H_

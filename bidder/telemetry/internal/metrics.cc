#include "bidder/telemetry/internal/metrics.h"

#include "prometheus/family.h"

namespace rtb::bidder::telemetry::internal {

TelemetryMetrics::TelemetryMetrics(prometheus::Registry& registry) {
  points_written = &prometheus::BuildCounter()
                        .Name("bidder_telemetry_points_written_total")
                        .Help("Telemetry points written as raw cells")
                        .Register(registry)
                        .Add({});
  auto& refused = prometheus::BuildCounter()
                      .Name("bidder_telemetry_points_refused_total")
                      .Help("Telemetry points refused at ingest, by reason")
                      .Register(registry);
  refused_invalid = &refused.Add({{"reason", "invalid"}});
  refused_id_like_tag = &refused.Add({{"reason", "id_like_tag"}});
  refused_series_limit = &refused.Add({{"reason", "series_limit"}});
  refused_metric_series_limit = &refused.Add({{"reason", "metric_series_limit"}});
  refused_out_of_range = &refused.Add({{"reason", "out_of_range"}});
  refused_storage_error = &refused.Add({{"reason", "storage_error"}});
  series = &prometheus::BuildGauge()
                .Name("bidder_telemetry_series")
                .Help("Distinct telemetry series registered, as last read from the series counters")
                .Register(registry)
                .Add({});
  packed_rows = &prometheus::BuildCounter()
                     .Name("bidder_telemetry_packed_rows_total")
                     .Help("Closed buckets packed into Gorilla blocks (repacks included)")
                     .Register(registry)
                     .Add({});
  packed_bytes_per_point = &prometheus::BuildGauge()
                                .Name("bidder_telemetry_packed_bytes_per_point")
                                .Help("Block bytes per point over the last packer run")
                                .Register(registry)
                                .Add({});
  oldest_unpacked_bucket_age = &prometheus::BuildGauge()
                                    .Name("bidder_telemetry_oldest_unpacked_bucket_age_seconds")
                                    .Help(
                                        "Seconds since the end of the oldest closed bucket the "
                                        "packer has not packed yet (0: none)")
                                    .Register(registry)
                                    .Add({});
  auto& runs = prometheus::BuildCounter()
                   .Name("bidder_telemetry_packer_runs_total")
                   .Help("Packer runs, by result")
                   .Register(registry);
  packer_runs_ok = &runs.Add({{"result", "ok"}});
  packer_runs_error = &runs.Add({{"result", "error"}});
  packer_last_success = &prometheus::BuildGauge()
                             .Name("bidder_telemetry_packer_last_success_timestamp_seconds")
                             .Help("When the packer last finished a run without errors")
                             .Register(registry)
                             .Add({});
}

}  // namespace rtb::bidder::telemetry::internal

// The bidder's telemetry as time series (spec: seeds/time-series.txt), kept in
// the `metrics`, `metric_rollups`, `metric_ids` and `metric_series` tables
// through the storage layer. Byte layouts: internal/keys.h and gorilla.h.
//
//   Telemetry::Write    points -> raw cells (metrics:d), one per point, cell
//                       timestamps assigned by the server; new series pass the
//                       cardinality limits and the id-like tag check first.
//   Telemetry::Pack     closed buckets -> one Gorilla block (metrics:p) merged
//                       with raw winning, plus 1-minute and 1-hour rollups;
//                       rows are found by a time-range scan on cell timestamps.
//   Telemetry::Query    metric + tag filter + range + step + aggregators; the
//                       router picks raw, 1-minute or 1-hour data.
//   Telemetry::Suggest  metric names, tag keys and values by prefix.
//   Telemetry::Lookup   the series (tag sets) of a metric a tag filter selects.
//
// Metrics (declared in internal/metrics.h):
//   bidder_telemetry_points_written_total, bidder_telemetry_points_refused_total{reason},
//   bidder_telemetry_series, bidder_telemetry_packed_rows_total,
//   bidder_telemetry_packed_bytes_per_point, bidder_telemetry_oldest_unpacked_bucket_age_seconds,
//   bidder_telemetry_packer_runs_total{result},
//   bidder_telemetry_packer_last_success_timestamp_seconds.
//
// Thread-safety: every method may be called from any thread; Pack runs are
// serialised internally.
#ifndef RTB_BIDDER_TELEMETRY_TELEMETRY_H_
#define RTB_BIDDER_TELEMETRY_TELEMETRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bidder/telemetry/gorilla.h"
#include "config/config.h"
#include "prometheus/registry.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::bidder::telemetry {

// The tag naming the process that wrote a series (a fleet's bidders each
// write their own series); exempt from the id-like check of tag values.
inline constexpr char kInstanceTag[] = "instance";

namespace internal {
class SeriesRegistry;
struct TelemetryMetrics;
}  // namespace internal

struct DataPoint {
  std::string metric;
  std::map<std::string, std::string> tags;
  // Event time, seconds since the Unix epoch (milliseconds are accepted and
  // truncated to the second: points of one series are one per second at most).
  int64_t timestamp = 0;
  double value = 0;
};

struct TelemetryOptions {
  // Distinct series in total / per metric name. Defaults as TelemetryConfig.
  int max_series = 10000;
  int max_series_per_metric = 1000;
  // Seconds after a bucket's end before it is packed, for late points. Default 300.
  int64_t pack_grace_s = 300;
  // Points further than this ahead of the clock are refused, seconds. Default 600.
  int64_t max_future_s = 600;
  // Series resolved by one query at most. Default 10000.
  int max_query_series = 10000;
  // Time source for "now" (bucket closing, future checks). Default: system.
  std::shared_ptr<storage::Clock> clock;
  // Where the module's metrics go. Required.
  prometheus::Registry* registry = nullptr;

  static TelemetryOptions FromConfig(const config::TelemetryConfig& config);
};

struct WriteSummary {
  int64_t success = 0;
  int64_t failed = 0;
  // One message per failed point, at most the first 20, "<index>: <reason>".
  std::vector<std::string> errors;
  // Indexes of the failed points the store could not take (a storage error,
  // not a refusal of the point itself): worth writing again later.
  std::vector<size_t> unstored;
};

struct PackStats {
  int64_t rows_scanned = 0;         // rows with raw cells ingested since the last run
  int64_t rows_packed = 0;          // closed buckets (re)packed
  int64_t rows_already_packed = 0;  // closed buckets whose block had every point
  int64_t points_packed = 0;
  int64_t packed_bytes = 0;
};

enum class Aggregator { kAvg, kSum, kMin, kMax, kCount };
std::optional<Aggregator> ParseAggregator(std::string_view name);
const char* AggregatorName(Aggregator aggregator);

// Seconds per point of the data a query reads.
enum class Resolution : int64_t { kRaw = 0, kMinute = 60, kHour = 3600 };
// The coarsest resolution not coarser than `step_s` whose intervals tile a
// step exactly (so no rollup interval straddles two steps). Step 0 = raw.
Resolution ChooseResolution(int64_t step_s);

// OpenTSDB's rate conversion: each series' value change per second between
// consecutive points (after downsampling, before the series are combined);
// a series' first point has no rate.
struct RateOptions {
  // The series is a monotonically increasing counter: a drop is a rollover
  // at counter_max (or a reset), not a negative rate.
  bool counter = false;
  double counter_max = 9223372036854775807.0;  // OpenTSDB's default, Long.MAX_VALUE
  // A counter rate above this (> 0) is taken as a reset and reported as 0.
  double reset_value = 0;
  // A counter's drop yields no point at all.
  bool drop_resets = false;
};

struct TimeSeriesQuery {
  std::string metric;
  // tag key -> exact value, "*" (any value, grouped by it) or "a|b" (either,
  // grouped by it). Series lacking a filtered key never match.
  std::map<std::string, std::string> tags;
  int64_t start_s = 0;  // inclusive
  int64_t end_s = 0;    // inclusive
  // Downsampling interval, seconds; 0 returns every raw point.
  int64_t step_s = 0;
  Aggregator downsample = Aggregator::kAvg;  // within a step, per series
  Aggregator aggregator = Aggregator::kSum;  // across the series of a group
  std::optional<RateOptions> rate;           // per second, per series
  // Reads this resolution instead of the router's choice (benchmarks, tests).
  std::optional<Resolution> force_resolution;
};

struct SeriesGroup {
  std::string metric;
  // Tags equal across every series of the group.
  std::map<std::string, std::string> tags;
  // Tag keys that differ between the group's series.
  std::vector<std::string> aggregated_tags;
  // Step start (or raw timestamp) -> value, ascending.
  std::vector<Point> points;
};

struct QueryResult {
  std::vector<SeriesGroup> groups;
  Resolution resolution = Resolution::kRaw;
  int64_t series = 0;       // series matched
  int64_t rows_read = 0;    // rows the data scans returned
  int64_t points_read = 0;  // points or rollup intervals fed into the steps
};

enum class SuggestType { kMetrics, kTagKeys, kTagValues };

struct SeriesDescription {
  uint32_t metric_id = 0;
  uint64_t series_id = 0;
  std::map<std::string, std::string> tags;
};

struct LookupResult {
  std::vector<SeriesDescription> series;  // at most the limit, by series id
  int64_t total = 0;                      // every series matched
};

class Telemetry {
 public:
  // `store` must hold the tables of storage::BidderTables() and outlive this.
  static absl::StatusOr<std::unique_ptr<Telemetry>> Create(storage::Store& store,
                                                           TelemetryOptions options);
  ~Telemetry();

  WriteSummary Write(std::span<const DataPoint> points);
  // Packs every closed bucket with raw cells ingested since the last run.
  absl::StatusOr<PackStats> Pack();
  absl::StatusOr<QueryResult> Query(const TimeSeriesQuery& query);
  absl::StatusOr<std::vector<std::string>> Suggest(SuggestType type, std::string_view prefix,
                                                   int max);
  // The series of `metric` that `tags` select (as TimeSeriesQuery::tags), at
  // most `limit` of them. NotFound for an unknown metric.
  absl::StatusOr<LookupResult> Lookup(std::string_view metric,
                                      const std::map<std::string, std::string>& tags, int limit);

  // Why a tag value is refused, or nullopt: values that look like request or
  // user ids (uuids, long hex or digit runs, long tokens with many digits).
  static std::optional<std::string> IdLikeTagValue(std::string_view value);

  // The clock's time, seconds (relative query times count from it).
  int64_t NowSeconds() const { return options_.clock->NowMillis() / 1000; }

 private:
  Telemetry(storage::Store& store, TelemetryOptions options);

  storage::Store& store_;
  TelemetryOptions options_;
  std::unique_ptr<internal::TelemetryMetrics> metrics_;
  std::unique_ptr<internal::SeriesRegistry> registry_;
  absl::Mutex pack_mu_;
};

}  // namespace rtb::bidder::telemetry

#endif  // RTB_BIDDER_TELEMETRY_TELEMETRY_H_

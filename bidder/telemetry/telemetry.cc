#include "bidder/telemetry/telemetry.h"

#include <algorithm>
#include <cctype>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "bidder/telemetry/internal/keys.h"
#include "bidder/telemetry/internal/metrics.h"
#include "bidder/telemetry/internal/series_registry.h"
#include "storage/schemas.h"

namespace rtb::bidder::telemetry {
namespace {

constexpr size_t kMaxNameLength = 200;
constexpr size_t kMaxTags = 8;
constexpr size_t kMaxReportedErrors = 20;
constexpr int64_t kMillisThreshold = 100000000000;  // later than year 5138 in seconds

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// OpenTSDB's character set for metric names, tag keys and tag values.
std::optional<std::string> NameProblem(std::string_view what, std::string_view name) {
  if (name.empty()) return absl::StrCat(AbslView(what), " is empty");
  if (name.size() > kMaxNameLength)
    return absl::StrCat(AbslView(what), " is longer than 200 characters");
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' &&
        c != '/') {
      return absl::StrCat(AbslView(what), " '", AbslView(name),
                          "' has a character outside [A-Za-z0-9._/-]");
    }
  }
  return std::nullopt;
}

}  // namespace

TelemetryOptions TelemetryOptions::FromConfig(const config::TelemetryConfig& config) {
  TelemetryOptions options;
  options.max_series = config.max_series;
  options.max_series_per_metric = config.max_series_per_metric;
  return options;
}

std::optional<Aggregator> ParseAggregator(std::string_view name) {
  if (name == "avg") return Aggregator::kAvg;
  if (name == "sum") return Aggregator::kSum;
  if (name == "min") return Aggregator::kMin;
  if (name == "max") return Aggregator::kMax;
  if (name == "count") return Aggregator::kCount;
  return std::nullopt;
}

const char* AggregatorName(Aggregator aggregator) {
  switch (aggregator) {
    case Aggregator::kAvg:
      return "avg";
    case Aggregator::kSum:
      return "sum";
    case Aggregator::kMin:
      return "min";
    case Aggregator::kMax:
      return "max";
    case Aggregator::kCount:
      return "count";
  }
  return "avg";
}

Resolution ChooseResolution(int64_t step_s) {
  if (step_s >= 3600 && step_s % 3600 == 0) return Resolution::kHour;
  if (step_s >= 60 && step_s % 60 == 0) return Resolution::kMinute;
  return Resolution::kRaw;
}

std::optional<std::string> Telemetry::IdLikeTagValue(std::string_view value) {
  size_t hex = 0, digits = 0, letters = 0, dashes = 0;
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isdigit(u)) ++digits;
    if (std::isalpha(u)) ++letters;
    if (std::isxdigit(u)) ++hex;
    if (c == '-') ++dashes;
  }
  if (hex + dashes == value.size() && hex >= 16) {
    return "looks like a request or user id (a uuid or a run of 16+ hex digits)";
  }
  if (digits == value.size() && digits >= 12) return "looks like a request or user id (12+ digits)";
  if (value.size() >= 20 && digits >= 6 && letters >= 6) {
    return "looks like a request or user id (a long token of letters and digits)";
  }
  return std::nullopt;
}

absl::StatusOr<std::unique_ptr<Telemetry>> Telemetry::Create(storage::Store& store,
                                                             TelemetryOptions options) {
  if (options.registry == nullptr)
    return absl::InvalidArgumentError("telemetry: a metrics registry is required");
  if (options.max_series < 1 || options.max_series_per_metric < 1) {
    return absl::InvalidArgumentError(
        "telemetry: max_series and max_series_per_metric must be >= 1");
  }
  if (options.pack_grace_s < 0 || options.max_future_s < 0) {
    return absl::InvalidArgumentError("telemetry: pack_grace_s and max_future_s must be >= 0");
  }
  for (std::string_view table : {storage::kMetricsTable, storage::kMetricIdsTable,
                                 storage::kMetricSeriesTable, storage::kMetricRollupsTable}) {
    auto exists = store.TableExists(table);
    if (!exists.ok()) return exists.status();
    if (!*exists) {
      return absl::FailedPreconditionError(absl::StrCat(
          "telemetry: table '", AbslView(table), "' is missing (apply storage::BidderTables())"));
    }
  }
  if (!options.clock) options.clock = storage::SystemClock();
  return std::unique_ptr<Telemetry>(new Telemetry(store, std::move(options)));
}

Telemetry::Telemetry(storage::Store& store, TelemetryOptions options)
    : store_(store),
      options_(std::move(options)),
      metrics_(std::make_unique<internal::TelemetryMetrics>(*options_.registry)),
      registry_(std::make_unique<internal::SeriesRegistry>(
          store, options_.max_series, options_.max_series_per_metric, metrics_.get())) {}

Telemetry::~Telemetry() = default;

namespace {

// What is wrong with a point's metric name and tags, if anything: an invalid
// name or tag (`invalid`), or a tag value that looks like an id (`id_like`).
struct NamesCheck {
  std::optional<std::string> invalid;
  std::optional<std::string> id_like;
};

NamesCheck CheckNames(const DataPoint& p) {
  NamesCheck check;
  check.invalid = NameProblem("metric name", p.metric);
  if (!check.invalid && p.tags.size() > kMaxTags) check.invalid = "more than 8 tags";
  for (const auto& [k, v] : p.tags) {
    if (check.invalid || check.id_like) break;
    check.invalid = NameProblem("tag key", k);
    if (!check.invalid) check.invalid = NameProblem(absl::StrCat("tag ", k), v);
    // A process's name (a host name with digits in it) is not a request's
    // id: the fleet's size bounds its values.
    if (!check.invalid && k != kInstanceTag) {
      if (auto why = Telemetry::IdLikeTagValue(v))
        check.id_like =
            absl::StrCat("tag ", k, "=", v, " ", *why, "; refused to bound the series count");
    }
  }
  return check;
}

// The points of one Write as puts into the metrics table: one put per
// (series, bucket) row, one cell per second.
class RawPointBatch {
 public:
  void Add(size_t index, const internal::SeriesRef& ref, int64_t ts, double value) {
    const int64_t bucket = ts - ts % internal::kBucketSeconds;
    std::string row = internal::EncodeRowKey({ref.metric_id, ref.series_id, bucket});
    auto [it, inserted] = put_of_row_.try_emplace(row, puts_.size());
    if (inserted) {
      storage::Put put;
      put.row = std::move(row);
      // Telemetry tolerates losing the last ~100 ms on a crash; the bid path's
      // store should not pay a sync per batch for it.
      put.durability = storage::Durability::kAsyncWal;
      puts_.push_back(std::move(put));
      put_points_.emplace_back();
    }
    const auto offset = static_cast<uint16_t>(ts - bucket);
    auto [cell, fresh] = value_of_cell_.try_emplace(std::make_pair(it->second, offset),
                                                    puts_[it->second].values.size());
    storage::PutValue cell_value{std::string(internal::kRawFamily), internal::EncodeUint16(offset),
                                 internal::EncodeDouble(value), std::nullopt};
    if (fresh) {
      puts_[it->second].values.push_back(std::move(cell_value));
    } else {
      puts_[it->second].values[cell->second] = std::move(cell_value);
    }
    put_points_[it->second].push_back(index);
  }

  const std::vector<storage::Put>& puts() const { return puts_; }
  // The indexes of the points each put holds.
  const std::vector<std::vector<size_t>>& put_points() const { return put_points_; }

 private:
  std::vector<storage::Put> puts_;
  std::vector<std::vector<size_t>> put_points_;
  absl::flat_hash_map<std::string, size_t> put_of_row_;
  // Within one call the last point of a (series, second) wins, as a later call would.
  absl::flat_hash_map<std::pair<size_t, uint16_t>, size_t> value_of_cell_;
};

}  // namespace

WriteSummary Telemetry::Write(std::span<const DataPoint> points) {
  WriteSummary summary;
  auto fail = [&](size_t index, prometheus::Counter* metric, std::string_view why) {
    ++summary.failed;
    metric->Increment();
    if (metric == metrics_->refused_storage_error) summary.unstored.push_back(index);
    if (summary.errors.size() < kMaxReportedErrors) {
      summary.errors.push_back(absl::StrCat(index, ": ", AbslView(why)));
    }
  };
  const int64_t now_s = options_.clock->NowMillis() / 1000;
  RawPointBatch batch;
  for (size_t i = 0; i < points.size(); ++i) {
    const DataPoint& p = points[i];
    NamesCheck names = CheckNames(p);
    if (names.invalid) {
      fail(i, metrics_->refused_invalid, *names.invalid);
      continue;
    }
    if (names.id_like) {
      fail(i, metrics_->refused_id_like_tag, *names.id_like);
      continue;
    }
    int64_t ts = p.timestamp >= kMillisThreshold ? p.timestamp / 1000 : p.timestamp;
    if (ts < 0 || ts > 0xffffffffLL - internal::kBucketSeconds ||
        ts > now_s + options_.max_future_s) {
      fail(i, metrics_->refused_out_of_range,
           absl::StrCat("timestamp ", p.timestamp, " is negative, past 2106 or more than ",
                        options_.max_future_s, " s ahead of now"));
      continue;
    }
    prometheus::Counter* refusal = metrics_->refused_storage_error;
    auto ref = registry_->Resolve(p.metric, p.tags, &refusal);
    if (!ref.ok()) {
      fail(i, refusal, std::string(ref.status().message()));
      continue;
    }
    batch.Add(i, *ref, ts, p.value);
  }
  if (!batch.puts().empty()) {
    absl::Status s = store_.PutBatch(storage::kMetricsTable, batch.puts());
    for (const std::vector<size_t>& indexes : batch.put_points()) {
      for (size_t index : indexes) {
        if (s.ok()) {
          ++summary.success;
        } else {
          fail(index, metrics_->refused_storage_error, std::string(s.message()));
        }
      }
    }
    if (s.ok()) metrics_->points_written->Increment(static_cast<double>(summary.success));
  }
  return summary;
}

absl::StatusOr<std::vector<std::string>> Telemetry::Suggest(SuggestType type,
                                                            std::string_view prefix, int max) {
  if (max < 1 || max > 1000) return absl::InvalidArgumentError("suggest: max must be in [1, 1000]");
  const char* lead = type == SuggestType::kMetrics   ? "n"
                     : type == SuggestType::kTagKeys ? "k"
                                                     : "v";
  storage::Scan scan;
  scan.prefix = absl::StrCat(lead, AbslView(prefix));
  scan.columns.push_back({std::string(internal::kIdFamily), std::nullopt});
  scan.limit = max;
  auto rows = store_.Scan(storage::kMetricIdsTable, scan);
  if (!rows.ok()) return rows.status();
  std::vector<std::string> names;
  for (const storage::RowResult& row : *rows) names.push_back(row.row.substr(1));
  return names;
}

}  // namespace rtb::bidder::telemetry

#include "bidder/telemetry/internal/series_registry.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "bidder/telemetry/internal/keys.h"
#include "storage/schemas.h"

namespace rtb::bidder::telemetry::internal {
namespace {

constexpr std::string_view kCounterRow = "c";
constexpr std::string_view kCounterQualifier = "c";
constexpr std::string_view kIdQualifier = "id";
constexpr std::string_view kTagsQualifier = "t";
constexpr std::string_view kTotalQualifier = "total";
constexpr int kMaxIdAttempts = 64;

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

storage::Get GetColumn(std::string row, std::string_view family, std::string_view qualifier) {
  storage::Get get;
  get.row = std::move(row);
  get.columns.push_back({std::string(family), std::string(qualifier)});
  return get;
}

storage::Put PutCell(std::string row, std::string_view family, std::string_view qualifier,
                     std::string value) {
  storage::Put put;
  put.row = std::move(row);
  put.values.push_back(
      {std::string(family), std::string(qualifier), std::move(value), std::nullopt});
  return put;
}

}  // namespace

SeriesRegistry::SeriesRegistry(storage::Store& store, int max_series, int max_series_per_metric,
                               TelemetryMetrics* metrics)
    : store_(store),
      max_series_(max_series),
      max_series_per_metric_(max_series_per_metric),
      metrics_(metrics) {}

absl::StatusOr<uint32_t> SeriesRegistry::MetricId(std::string_view name, bool create) {
  {
    absl::MutexLock lock(&mu_);
    auto it = metric_ids_.find(std::string(name));
    if (it != metric_ids_.end()) return it->second;
  }
  auto row =
      store_.Get(storage::kMetricIdsTable, GetColumn(MetricNameRow(name), kIdFamily, kIdQualifier));
  if (!row.ok()) return row.status();
  std::optional<uint32_t> id;
  if (auto v = row->Value(kIdFamily, kIdQualifier)) id = DecodeUint32(*v);
  if (!id) {
    if (!create) return absl::NotFoundError(absl::StrCat("no such metric '", AbslView(name), "'"));
    auto assigned = AssignMetricId(name);
    if (!assigned.ok()) return assigned.status();
    id = *assigned;
  }
  absl::MutexLock lock(&mu_);
  metric_ids_[std::string(name)] = *id;
  return *id;
}

absl::StatusOr<uint32_t> SeriesRegistry::AssignMetricId(std::string_view name) {
  for (int attempt = 0; attempt < kMaxIdAttempts; ++attempt) {
    auto counter = store_.Get(storage::kMetricIdsTable,
                              GetColumn(std::string(kCounterRow), kIdFamily, kCounterQualifier));
    if (!counter.ok()) return counter.status();
    std::optional<int64_t> current = counter->Counter(kIdFamily, kCounterQualifier);
    const int64_t next = current.value_or(0) + 1;
    if (next > 0xffffffffLL) return absl::ResourceExhaustedError("metric ids exhausted");
    storage::CheckAndMutate advance;
    advance.row = std::string(kCounterRow);
    advance.family = std::string(kIdFamily);
    advance.qualifier = std::string(kCounterQualifier);
    advance.op = storage::CompareOp::kEqual;
    if (current) advance.value = storage::EncodeCounter(*current);
    advance.puts.push_back(PutCell(std::string(kCounterRow), kIdFamily, kCounterQualifier,
                                   storage::EncodeCounter(next)));
    auto advanced = store_.CheckAndMutate(storage::kMetricIdsTable, advance);
    if (!advanced.ok()) return advanced.status();
    if (!*advanced) continue;  // another writer took this id: read the counter again

    const uint32_t id = static_cast<uint32_t>(next);
    storage::CheckAndMutate claim;
    claim.row = MetricNameRow(name);
    claim.family = std::string(kIdFamily);
    claim.qualifier = std::string(kIdQualifier);
    claim.puts.push_back(PutCell(MetricNameRow(name), kIdFamily, kIdQualifier, EncodeUint32(id)));
    auto claimed = store_.CheckAndMutate(storage::kMetricIdsTable, claim);
    if (!claimed.ok()) return claimed.status();
    if (*claimed) {
      if (absl::Status s =
              store_.Put(storage::kMetricIdsTable,
                         PutCell(MetricIdRow(id), kIdFamily, kIdQualifier, std::string(name)));
          !s.ok()) {
        return s;
      }
      return id;
    }
    // The name was claimed concurrently: its id wins, ours stays a gap.
    auto row = store_.Get(storage::kMetricIdsTable,
                          GetColumn(MetricNameRow(name), kIdFamily, kIdQualifier));
    if (!row.ok()) return row.status();
    if (auto v = row->Value(kIdFamily, kIdQualifier)) {
      if (auto winner = DecodeUint32(*v)) return *winner;
    }
    return absl::InternalError(
        absl::StrCat("metric '", AbslView(name), "' has a malformed id row"));
  }
  return absl::UnavailableError("metric id counter is contended; try again");
}

absl::StatusOr<SeriesRef> SeriesRegistry::Resolve(std::string_view metric,
                                                  const std::map<std::string, std::string>& tags,
                                                  prometheus::Counter** refusal_metric) {
  auto metric_id = MetricId(metric, /*create=*/true);
  if (!metric_id.ok()) return metric_id.status();
  SeriesRef ref{*metric_id, SeriesId(CanonicalSeries(metric, tags))};
  {
    absl::MutexLock lock(&mu_);
    if (known_series_.contains(std::make_pair(ref.metric_id, ref.series_id))) return ref;
  }
  if (absl::Status s = Register(ref.metric_id, ref.series_id, tags, refusal_metric); !s.ok())
    return s;
  absl::MutexLock lock(&mu_);
  known_series_.insert(std::make_pair(ref.metric_id, ref.series_id));
  return ref;
}

absl::Status SeriesRegistry::Register(uint32_t metric_id, uint64_t series_id,
                                      const std::map<std::string, std::string>& tags,
                                      prometheus::Counter** refusal_metric) {
  const std::string series_row = SeriesRow(metric_id, series_id);
  const std::string canonical = CanonicalTags(tags);
  auto check_existing = [&](const storage::RowResult& row) -> std::optional<absl::Status> {
    auto stored = row.Value(kSeriesFamily, kTagsQualifier);
    if (!stored) return std::nullopt;
    if (*stored != canonical) {
      return absl::InternalError(absl::StrCat("series id collision between {", canonical, "} and {",
                                              AbslView(*stored), "}"));
    }
    return absl::OkStatus();
  };
  auto existing =
      store_.Get(storage::kMetricSeriesTable, GetColumn(series_row, kSeriesFamily, kTagsQualifier));
  if (!existing.ok()) return existing.status();
  if (auto done = check_existing(*existing)) return *done;

  const std::string metric_qualifier = "m" + EncodeUint32(metric_id);
  storage::Get counters;
  counters.row = std::string(kCounterRow);
  counters.columns.push_back({std::string(kSeriesFamily), std::nullopt});
  auto counts = store_.Get(storage::kMetricSeriesTable, counters);
  if (!counts.ok()) return counts.status();
  const int64_t total = counts->Counter(kSeriesFamily, kTotalQualifier).value_or(0);
  const int64_t of_metric = counts->Counter(kSeriesFamily, metric_qualifier).value_or(0);
  metrics_->series->Set(static_cast<double>(total));
  if (total >= max_series_) {
    *refusal_metric = metrics_->refused_series_limit;
    return absl::ResourceExhaustedError(
        absl::StrCat("series limit reached: ", total, " series of at most ", max_series_,
                     " (telemetry.max_series); new series {", canonical, "} refused"));
  }
  if (of_metric >= max_series_per_metric_) {
    *refusal_metric = metrics_->refused_metric_series_limit;
    return absl::ResourceExhaustedError(
        absl::StrCat("series limit of the metric reached: ", of_metric, " series of at most ",
                     max_series_per_metric_, " (telemetry.max_series_per_metric); new series {",
                     canonical, "} refused"));
  }

  // Index rows first: they are idempotent, and a series row is only claimed once
  // its index exists, so a failure here is retried by the next point.
  std::vector<storage::Put> index;
  std::vector<storage::Put> names;
  for (const auto& [k, v] : tags) {
    index.push_back(
        PutCell(TagIndexRow(metric_id, k, v, series_id), kSeriesFamily, kTagsQualifier, ""));
    names.push_back(PutCell("k" + k, kIdFamily, kIdQualifier, ""));
    names.push_back(PutCell("v" + v, kIdFamily, kIdQualifier, ""));
  }
  if (!index.empty()) {
    if (absl::Status s = store_.PutBatch(storage::kMetricSeriesTable, index); !s.ok()) return s;
    if (absl::Status s = store_.PutBatch(storage::kMetricIdsTable, names); !s.ok()) return s;
  }
  storage::CheckAndMutate claim;
  claim.row = series_row;
  claim.family = std::string(kSeriesFamily);
  claim.qualifier = std::string(kTagsQualifier);
  claim.puts.push_back(PutCell(series_row, kSeriesFamily, kTagsQualifier, canonical));
  auto claimed = store_.CheckAndMutate(storage::kMetricSeriesTable, claim);
  if (!claimed.ok()) return claimed.status();
  if (!*claimed) {
    auto again = store_.Get(storage::kMetricSeriesTable,
                            GetColumn(series_row, kSeriesFamily, kTagsQualifier));
    if (!again.ok()) return again.status();
    if (auto done = check_existing(*again)) return *done;
    return absl::InternalError("series row vanished while registering");
  }
  storage::Increment increment;
  increment.row = std::string(kCounterRow);
  increment.columns.push_back({std::string(kSeriesFamily), std::string(kTotalQualifier), 1});
  increment.columns.push_back({std::string(kSeriesFamily), metric_qualifier, 1});
  if (auto s = store_.Increment(storage::kMetricSeriesTable, increment); !s.ok()) return s.status();
  metrics_->series->Set(static_cast<double>(total + 1));

  return absl::OkStatus();
}

}  // namespace rtb::bidder::telemetry::internal

// Telemetry::Pack: closed buckets -> Gorilla blocks and rollups.
//
// Rows to pack are found by a scan of metrics:d restricted to cells ingested
// since the last run (cell timestamps are the server's). A row whose bucket
// was still open at the last run may hold cells ingested before it; those
// cells are at most one bucket + grace + future allowance older than the last
// run, so the time range starts that much earlier. Packing a row is
// idempotent: block = encode(merge(existing block, every raw cell), raw
// winning), rollups recomputed from the same points. The rollups are written
// before the block, so a stored block equal to the one computed means its
// rollups are written too and the row needs nothing (the lookback finds a
// closed row on several runs).
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "bidder/telemetry/internal/keys.h"
#include "bidder/telemetry/internal/metrics.h"
#include "bidder/telemetry/telemetry.h"
#include "storage/schemas.h"

namespace rtb::bidder::telemetry {
namespace {

constexpr std::string_view kPackerRow = "packer";
constexpr std::string_view kLastRunQualifier = "last_run_ms";
constexpr int kScanBatchRows = 500;

struct PackedRow {
  int64_t points = 0;
  int64_t bytes = 0;
  bool unchanged = false;  // the stored block was already this one
};

// Merges raw cells over the block's points, raw winning on equal offsets.
absl::StatusOr<std::vector<Point>> MergedPoints(const internal::RowKey& key,
                                                const storage::RowResult& row) {
  std::map<int64_t, double> merged;
  if (auto block = row.Value(internal::kPackedFamily, internal::kPackedQualifier)) {
    auto points = DecodeGorillaBlock(key.bucket_start, *block);
    if (!points.ok()) {
      return absl::DataLossError(absl::StrCat("packed block of bucket ", key.bucket_start,
                                              " of series ", key.series_id, ": ",
                                              points.status().message()));
    }
    for (const Point& p : *points) merged[p.timestamp] = p.value;
  }
  for (const storage::Cell& cell : row.cells) {
    if (cell.family != internal::kRawFamily) continue;
    auto offset = internal::DecodeUint16(cell.qualifier);
    auto value = internal::DecodeDouble(cell.value);
    if (!offset || !value || *offset >= internal::kBucketSeconds) continue;
    merged[key.bucket_start + *offset] = *value;
  }
  std::vector<Point> points;
  points.reserve(merged.size());
  for (const auto& [t, v] : merged) points.push_back({t, v});
  return points;
}

absl::StatusOr<PackedRow> PackRow(storage::Store& store, const std::string& row_key) {
  auto key = internal::DecodeRowKey(row_key);
  if (!key) return PackedRow{};  // not a row this module wrote
  storage::Get get;
  get.row = row_key;
  auto row = store.Get(storage::kMetricsTable, get);
  if (!row.ok()) return row.status();
  auto points = MergedPoints(*key, *row);
  if (!points.ok()) return points.status();
  if (points->empty()) return PackedRow{};
  auto block = EncodeGorillaBlock(key->bucket_start, *points);
  if (!block.ok()) return block.status();
  auto existing = row->Value(internal::kPackedFamily, internal::kPackedQualifier);
  if (existing && *existing == *block) {
    return PackedRow{static_cast<int64_t>(points->size()), static_cast<int64_t>(block->size()),
                     true};
  }

  // Rollups of the hour, from the same merged points.
  const int64_t day = key->bucket_start - key->bucket_start % internal::kRollupRowSeconds;
  std::map<int64_t, internal::Rollup> minutes;
  internal::Rollup hour;
  for (const Point& p : *points) {
    minutes[(p.timestamp - key->bucket_start) / 60].Add(p.value);
    hour.Add(p.value);
  }
  storage::Put rollups;
  rollups.row = internal::EncodeRowKey({key->metric_id, key->series_id, day});
  // The hour's minutes in one cell: a query reads one cell per series-hour,
  // not sixty (per-cell cost dominates reads).
  std::string minute_cell;
  for (const auto& [minute, rollup] : minutes) {
    minute_cell += internal::EncodeUint16(static_cast<uint16_t>(minute % 60));
    minute_cell += internal::EncodeRollup(rollup);
  }
  const auto hour_of_day = static_cast<uint16_t>((key->bucket_start - day) / 3600);
  rollups.values.push_back({std::string(internal::kMinuteFamily),
                            internal::EncodeUint16(hour_of_day), std::move(minute_cell),
                            std::nullopt});
  rollups.values.push_back(
      {std::string(internal::kHourFamily),
       internal::EncodeUint16(static_cast<uint16_t>((key->bucket_start - day) / 3600)),
       internal::EncodeRollup(hour), std::nullopt});
  if (absl::Status s = store.Put(storage::kMetricRollupsTable, rollups); !s.ok()) return s;

  storage::Put put;
  put.row = row_key;
  put.values.push_back({std::string(internal::kPackedFamily),
                        std::string(internal::kPackedQualifier), *block, std::nullopt});
  if (absl::Status s = store.Put(storage::kMetricsTable, put); !s.ok()) return s;
  return PackedRow{static_cast<int64_t>(points->size()), static_cast<int64_t>(block->size())};
}

// When the packer last finished a run, ms; 0 before the first.
absl::StatusOr<int64_t> LastRunMs(storage::Store& store) {
  storage::Get state;
  state.row = std::string(kPackerRow);
  auto last = store.Get(storage::kMetricIdsTable, state);
  if (!last.ok()) return last.status();
  return last->Counter(internal::kIdFamily, kLastRunQualifier).value_or(0);
}

absl::Status RecordRun(storage::Store& store, int64_t now_ms) {
  storage::Put done;
  done.row = std::string(kPackerRow);
  done.values.push_back({std::string(internal::kIdFamily), std::string(kLastRunQualifier),
                         storage::EncodeCounter(now_ms), std::nullopt});
  return store.Put(storage::kMetricIdsTable, done);
}

// The raw rows written in [from_ms, now_ms] whose bucket is closed (its end
// plus the grace is past), and the oldest such bucket's end (0 when none).
struct ClosedRows {
  std::vector<std::string> rows;
  int64_t oldest_end = 0;
};

absl::StatusOr<ClosedRows> FindClosedRows(storage::Store& store, int64_t from_ms, int64_t now_ms,
                                          int64_t pack_grace_s, PackStats* stats) {
  const int64_t now_s = now_ms / 1000;
  storage::Scan scan;
  scan.columns.push_back({std::string(internal::kRawFamily), std::nullopt});
  scan.time_range = {from_ms, now_ms + 1};
  scan.caching = kScanBatchRows;
  auto scanner = store.OpenScanner(storage::kMetricsTable, scan);
  if (!scanner.ok()) return scanner.status();
  ClosedRows closed;
  while (true) {
    auto batch = (*scanner)->Next(kScanBatchRows);
    if (!batch.ok()) return batch.status();
    if (batch->empty()) break;
    for (const storage::RowResult& row : *batch) {
      ++stats->rows_scanned;
      auto key = internal::DecodeRowKey(row.row);
      if (!key) continue;
      const int64_t bucket_end = key->bucket_start + internal::kBucketSeconds;
      if (bucket_end + pack_grace_s > now_s) continue;  // still open for late points
      closed.rows.push_back(row.row);
      if (closed.oldest_end == 0 || bucket_end < closed.oldest_end) closed.oldest_end = bucket_end;
    }
  }
  return closed;
}

}  // namespace

absl::StatusOr<PackStats> Telemetry::Pack() {
  absl::MutexLock lock(&pack_mu_);
  const int64_t now_ms = options_.clock->NowMillis();
  const int64_t now_s = now_ms / 1000;

  absl::StatusOr<int64_t> last_run_ms = LastRunMs(store_);
  if (!last_run_ms.ok()) return last_run_ms.status();
  const int64_t lookback_ms =
      (internal::kBucketSeconds + options_.pack_grace_s + options_.max_future_s) * 1000;
  const int64_t from_ms = *last_run_ms == 0 ? 0 : std::max<int64_t>(0, *last_run_ms - lookback_ms);

  PackStats stats;
  absl::StatusOr<ClosedRows> closed =
      FindClosedRows(store_, from_ms, now_ms, options_.pack_grace_s, &stats);
  if (!closed.ok()) return closed.status();
  metrics_->oldest_unpacked_bucket_age->Set(
      closed->oldest_end == 0 ? 0.0 : static_cast<double>(now_s - closed->oldest_end));

  absl::Status first_error;
  int64_t oldest_failed_end = 0;
  for (const std::string& row : closed->rows) {
    auto packed = PackRow(store_, row);
    if (!packed.ok()) {
      if (first_error.ok()) first_error = packed.status();
      const int64_t end = internal::DecodeRowKey(row)->bucket_start + internal::kBucketSeconds;
      if (oldest_failed_end == 0 || end < oldest_failed_end) oldest_failed_end = end;
      continue;
    }
    if (packed->points == 0) continue;
    if (packed->unchanged) {
      ++stats.rows_already_packed;
      continue;
    }
    ++stats.rows_packed;
    stats.points_packed += packed->points;
    stats.packed_bytes += packed->bytes;
  }
  metrics_->packed_rows->Increment(static_cast<double>(stats.rows_packed));
  if (stats.points_packed > 0) {
    metrics_->packed_bytes_per_point->Set(static_cast<double>(stats.packed_bytes) /
                                          static_cast<double>(stats.points_packed));
  }
  metrics_->oldest_unpacked_bucket_age->Set(
      oldest_failed_end == 0 ? 0.0 : static_cast<double>(now_s - oldest_failed_end));
  if (!first_error.ok()) {
    // The watermark stays, so the failed rows are found again next run.
    metrics_->packer_runs_error->Increment();
    return first_error;
  }
  if (absl::Status s = RecordRun(store_, now_ms); !s.ok()) {
    metrics_->packer_runs_error->Increment();
    return s;
  }
  metrics_->packer_runs_ok->Increment();
  metrics_->packer_last_success->Set(static_cast<double>(now_s));
  return stats;
}

}  // namespace rtb::bidder::telemetry

// Telemetry::Query: series index -> resolution router -> one multi-range scan
// -> per-series steps -> groups.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bidder/telemetry/internal/keys.h"
#include "bidder/telemetry/internal/series_registry.h"
#include "bidder/telemetry/telemetry.h"
#include "storage/schemas.h"

namespace rtb::bidder::telemetry {
namespace {

using internal::Rollup;

constexpr int64_t kMaxSteps = 1000000;
constexpr int kScanBatchRows = 1000;
// Raw cells live two days from ingest (metrics:d TTL).
constexpr int64_t kRawRetentionSeconds = 2 * 86400;

struct SeriesData {
  uint64_t id = 0;
  std::map<std::string, std::string> tags;
  // Per step (step > 0) ...
  std::vector<Rollup> steps;
  // ... or per raw timestamp (step == 0).
  std::map<int64_t, double> raw;
  // Hours (start, s) with rollup cells.
  absl::flat_hash_set<int64_t> covered_hours;
};

double Reduce(const Rollup& r, Aggregator a) {
  switch (a) {
    case Aggregator::kAvg:
      return r.sum / static_cast<double>(r.count);
    case Aggregator::kSum:
      return r.sum;
    case Aggregator::kMin:
      return r.min;
    case Aggregator::kMax:
      return r.max;
    case Aggregator::kCount:
      return static_cast<double>(r.count);
  }
  return 0;
}

// The per-second rate of `points` (ascending times), as OpenTSDB computes it.
std::vector<Point> RateOf(const std::vector<Point>& points, const RateOptions& options) {
  std::vector<Point> out;
  for (size_t i = 1; i < points.size(); ++i) {
    const Point& before = points[i - 1];
    const Point& at = points[i];
    const double seconds = static_cast<double>(at.timestamp - before.timestamp);
    double delta = at.value - before.value;
    if (options.counter && delta < 0) {
      if (options.drop_resets) continue;
      delta = options.counter_max - before.value + at.value;
    }
    double rate = delta / seconds;
    if (options.counter && options.reset_value > 0 && rate > options.reset_value) rate = 0;
    out.push_back({at.timestamp, rate});
  }
  return out;
}

class Accumulator {
 public:
  Accumulator(const TimeSeriesQuery& q)
      : q_(q), origin_(q.step_s > 0 ? q.start_s - q.start_s % q.step_s : 0) {}
  int64_t origin() const { return origin_; }
  size_t steps() const {
    return q_.step_s > 0 ? static_cast<size_t>((q_.end_s - origin_) / q_.step_s + 1) : 0;
  }

  void AddPoint(SeriesData& s, int64_t t, double v) const {
    if (t < q_.start_s || t > q_.end_s) return;
    if (q_.step_s == 0) {
      s.raw[t] = v;
      return;
    }
    s.steps[static_cast<size_t>((t - origin_) / q_.step_s)].Add(v);
  }
  // A rollup interval [t, t + width): kept when it starts inside the range
  // aligned down to its width.
  void AddRollup(SeriesData& s, int64_t t, int64_t width, const Rollup& r) const {
    if (t < q_.start_s - q_.start_s % width || t > q_.end_s) return;
    const int64_t at = std::max(t, origin_);
    s.steps[static_cast<size_t>((at - origin_) / q_.step_s)].Merge(r);
  }

 private:
  const TimeSeriesQuery& q_;
  int64_t origin_;
};

absl::StatusOr<std::vector<uint64_t>> ScanIds(storage::Store& store, const std::string& prefix,
                                              int limit, bool from_series_rows) {
  storage::Scan scan;
  scan.prefix = prefix;
  scan.columns.push_back({std::string(internal::kSeriesFamily), std::nullopt});
  scan.limit = limit;
  auto rows = store.Scan(storage::kMetricSeriesTable, scan);
  if (!rows.ok()) return rows.status();
  std::vector<uint64_t> ids;
  for (const storage::RowResult& row : *rows) {
    if (row.row.size() < 8) continue;
    (void)from_series_rows;
    if (auto id = internal::DecodeUint64(std::string_view(row.row).substr(row.row.size() - 8)))
      ids.push_back(*id);
  }
  return ids;
}

// Points of one metrics row: the block's, with raw cells merged over them.
absl::Status RowPoints(const internal::RowKey& key, const storage::RowResult& row,
                       std::vector<Point>* block_points, std::vector<Point>* out) {
  out->clear();
  block_points->clear();
  if (auto block = row.Value(internal::kPackedFamily, internal::kPackedQualifier)) {
    if (absl::Status s = DecodeGorillaBlock(key.bucket_start, *block, block_points); !s.ok())
      return s;
  }
  size_t b = 0;
  for (const storage::Cell& cell : row.cells) {
    if (cell.family != internal::kRawFamily) continue;
    auto offset = internal::DecodeUint16(cell.qualifier);
    auto value = internal::DecodeDouble(cell.value);
    if (!offset || !value) continue;
    const int64_t t = key.bucket_start + *offset;
    while (b < block_points->size() && (*block_points)[b].timestamp < t)
      out->push_back((*block_points)[b++]);
    if (b < block_points->size() && (*block_points)[b].timestamp == t) ++b;  // raw wins
    out->push_back({t, *value});
  }
  while (b < block_points->size()) out->push_back((*block_points)[b++]);
  return absl::OkStatus();
}

struct MatchedSeries {
  uint64_t id = 0;
  std::map<std::string, std::string> tags;
};

struct Matches {
  std::vector<MatchedSeries> series;  // the first `described` by series id, with tags
  int64_t total = 0;                  // every series matched
};

// The series of metric `mid` that `tags` (as TimeSeriesQuery::tags) select,
// in series id order, the tags read for the first `described` of them only;
// ResourceExhausted past `max_series`. `group_by` gets the keys whose filter
// groups ("*", "a|b").
absl::StatusOr<Matches> MatchSeries(storage::Store& store, uint32_t mid,
                                    const std::map<std::string, std::string>& tags, int max_series,
                                    size_t described, std::vector<std::string>* group_by) {
  const int limit = max_series + 1;
  std::optional<std::set<uint64_t>> ids;
  for (const auto& [k, v] : tags) {
    std::set<uint64_t> matched;
    std::vector<std::string> prefixes;
    if (v == "*") {
      prefixes.push_back(internal::TagIndexPrefix(mid, k));
      group_by->push_back(k);
    } else {
      std::vector<std::string> values = absl::StrSplit(absl::string_view(v.data(), v.size()), '|');
      if (values.size() > 1) group_by->push_back(k);
      for (const std::string& one : values)
        prefixes.push_back(internal::TagIndexPrefix(mid, k, one));
    }
    for (const std::string& prefix : prefixes) {
      auto found = ScanIds(store, prefix, limit, false);
      if (!found.ok()) return found.status();
      matched.insert(found->begin(), found->end());
    }
    if (ids) {
      std::set<uint64_t> both;
      std::set_intersection(ids->begin(), ids->end(), matched.begin(), matched.end(),
                            std::inserter(both, both.begin()));
      ids = std::move(both);
    } else {
      ids = std::move(matched);
    }
  }
  if (!ids) {
    auto all = ScanIds(store, internal::SeriesPrefix(mid), limit, true);
    if (!all.ok()) return all.status();
    ids = std::set<uint64_t>(all->begin(), all->end());
  }
  if (ids->size() > static_cast<size_t>(max_series)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("query: more than ", max_series, " series match; narrow the tag filter"));
  }
  Matches out;
  out.total = static_cast<int64_t>(ids->size());
  std::vector<storage::Get> gets;
  for (uint64_t id : *ids) {
    if (gets.size() >= described) break;
    storage::Get get;
    get.row = internal::SeriesRow(mid, id);
    gets.push_back(std::move(get));
  }
  if (gets.empty()) return out;
  auto rows = store.MultiGet(storage::kMetricSeriesTable, gets);
  if (!rows.ok()) return rows.status();
  for (const storage::RowResult& row : *rows) {
    auto series_tags = row.Value(internal::kSeriesFamily, "t");
    if (!series_tags || row.row.size() < 8) continue;
    MatchedSeries m;
    m.id = *internal::DecodeUint64(std::string_view(row.row).substr(row.row.size() - 8));
    m.tags = internal::ParseCanonicalTags(*series_tags);
    out.series.push_back(std::move(m));
  }
  return out;
}

// The reads of one query: the matched series, and what the scans add to
// them; the counters go to the result.
class SeriesReader {
 public:
  SeriesReader(storage::Store& store, uint32_t mid, const TimeSeriesQuery& q,
               std::vector<MatchedSeries> matched, QueryResult* result)
      : store_(store), mid_(mid), acc_(q), result_(result) {
    for (MatchedSeries& m : matched) {
      SeriesData s;
      s.id = m.id;
      s.tags = std::move(m.tags);
      s.steps.resize(acc_.steps());
      index_of_[s.id] = series_.size();
      series_.push_back(std::move(s));
    }
  }

  const std::vector<SeriesData>& series() const { return series_; }
  const Accumulator& accumulator() const { return acc_; }

  // The row range of series `sid` for buckets [first_bucket, last_bucket]
  // of `width` seconds.
  storage::RowRange RangeOf(uint64_t sid, int64_t first_bucket, int64_t last_bucket,
                            int64_t width) const {
    storage::RowRange r;
    r.start = internal::EncodeRowKey({mid_, sid, first_bucket});
    r.stop = internal::EncodeRowKey({mid_, sid, last_bucket + width});
    return r;
  }

  // Hour rows of every series in [first_hour, last_hour].
  std::vector<storage::RowRange> HourRanges(int64_t first_hour, int64_t last_hour) const {
    std::vector<storage::RowRange> ranges;
    for (const SeriesData& s : series_)
      ranges.push_back(RangeOf(s.id, first_hour, last_hour, 3600));
    return ranges;
  }

  // Raw and packed cells of `ranges` (one scan): decoded, merged, accumulated.
  absl::Status ReadRaw(const std::vector<storage::RowRange>& ranges) {
    if (ranges.empty()) return absl::OkStatus();
    storage::Scan scan;
    scan.ranges = ranges;
    scan.caching = kScanBatchRows;
    auto scanner = store_.OpenScanner(storage::kMetricsTable, scan);
    if (!scanner.ok()) return scanner.status();
    std::vector<Point> block_points, points;
    while (true) {
      auto batch = (*scanner)->Next(kScanBatchRows);
      if (!batch.ok()) return batch.status();
      if (batch->empty()) return absl::OkStatus();
      for (const storage::RowResult& row : *batch) {
        std::optional<internal::RowKey> key;
        SeriesData* s = SeriesOf(row, &key);
        if (s == nullptr) continue;
        if (absl::Status st = RowPoints(*key, row, &block_points, &points); !st.ok()) return st;
        result_->points_read += static_cast<int64_t>(points.size());
        for (const Point& p : points) acc_.AddPoint(*s, p.timestamp, p.value);
      }
    }
  }

  // Rollup cells of `resolution` for [start_s, end_s]; marks the hours they
  // cover in each series.
  absl::Status ReadRollups(Resolution resolution, int64_t start_s, int64_t end_s) {
    if (series_.empty()) return absl::OkStatus();
    const int64_t first_day = start_s - start_s % internal::kRollupRowSeconds;
    const int64_t last_day = end_s - end_s % internal::kRollupRowSeconds;
    storage::Scan scan;
    for (const SeriesData& s : series_) {
      scan.ranges.push_back(RangeOf(s.id, first_day, last_day, internal::kRollupRowSeconds));
    }
    scan.columns.push_back({std::string(resolution == Resolution::kMinute ? internal::kMinuteFamily
                                                                          : internal::kHourFamily),
                            std::nullopt});
    scan.caching = kScanBatchRows;
    auto scanner = store_.OpenScanner(storage::kMetricRollupsTable, scan);
    if (!scanner.ok()) return scanner.status();
    while (true) {
      auto batch = (*scanner)->Next(kScanBatchRows);
      if (!batch.ok()) return batch.status();
      if (batch->empty()) return absl::OkStatus();
      for (const storage::RowResult& row : *batch) {
        std::optional<internal::RowKey> key;
        SeriesData* s = SeriesOf(row, &key);
        if (s == nullptr) continue;
        for (const storage::Cell& cell : row.cells) AddRollupCell(resolution, *key, cell, *s);
      }
    }
  }

  // Raw ranges of the hours in [from_hour, to_hour] that have no rollup in a
  // series, one range per run of such hours.
  std::vector<storage::RowRange> HoursWithoutRollups(int64_t from_hour, int64_t to_hour) const {
    std::vector<storage::RowRange> ranges;
    for (const SeriesData& s : series_) {
      int64_t run_start = -1;
      for (int64_t h = from_hour; h <= to_hour; h += 3600) {
        const bool missing = !s.covered_hours.contains(h);
        if (missing && run_start < 0) run_start = h;
        if (!missing && run_start >= 0) {
          ranges.push_back(RangeOf(s.id, run_start, h - 3600, 3600));
          run_start = -1;
        }
      }
      if (run_start >= 0) ranges.push_back(RangeOf(s.id, run_start, to_hour, 3600));
    }
    return ranges;
  }

 private:
  // The series a row belongs to (its key in `*key`), counted as read; null
  // for a row of another metric or series.
  SeriesData* SeriesOf(const storage::RowResult& row, std::optional<internal::RowKey>* key) {
    *key = internal::DecodeRowKey(row.row);
    if (!*key || (*key)->metric_id != mid_) return nullptr;
    auto it = index_of_.find((*key)->series_id);
    if (it == index_of_.end()) return nullptr;
    ++result_->rows_read;
    return &series_[it->second];
  }

  // One hour's rollup cell: the hour's rollup, or its minutes' (34 bytes
  // each: minute, rollup).
  void AddRollupCell(Resolution resolution, const internal::RowKey& key, const storage::Cell& cell,
                     SeriesData& s) {
    auto hour = internal::DecodeUint16(cell.qualifier);
    if (!hour) return;
    const int64_t width = static_cast<int64_t>(resolution);
    const int64_t hour_start = key.bucket_start + *hour * 3600;
    s.covered_hours.insert(hour_start);
    if (resolution == Resolution::kHour) {
      if (auto rollup = internal::DecodeRollup(cell.value)) {
        ++result_->points_read;
        acc_.AddRollup(s, hour_start, width, *rollup);
      }
      return;
    }
    std::string_view entries(cell.value);
    for (; entries.size() >= 34; entries.remove_prefix(34)) {
      auto minute = internal::DecodeUint16(entries.substr(0, 2));
      auto rollup = internal::DecodeRollup(entries.substr(2, 32));
      if (!minute || !rollup) break;
      ++result_->points_read;
      acc_.AddRollup(s, hour_start + *minute * 60, width, *rollup);
    }
  }

  storage::Store& store_;
  const uint32_t mid_;
  Accumulator acc_;
  QueryResult* result_;
  std::vector<SeriesData> series_;
  absl::flat_hash_map<uint64_t, size_t> index_of_;
};

// The members combined at every timestamp any of them has, as OpenTSDB
// does: a member without a point there contributes the value interpolated
// linearly between its neighbours, and nothing outside its own first and
// last point. So a sum over instances that sample at different moments (a
// fleet's processes, each on its own timer) is the sum of all of them at
// every point, not one instance at a time.
template <typename Combine>
std::vector<Point> CombineAtEveryTimestamp(const std::vector<std::vector<Point>>& members,
                                           const Combine& combine) {
  std::set<int64_t> times;
  for (const std::vector<Point>& m : members) {
    for (const Point& p : m) times.insert(p.timestamp);
  }
  std::vector<size_t> next(members.size(), 0);  // first point at or after t
  std::vector<Point> out;
  std::vector<double> values;
  for (int64_t t : times) {
    values.clear();
    for (size_t i = 0; i < members.size(); ++i) {
      const std::vector<Point>& m = members[i];
      size_t& j = next[i];
      while (j < m.size() && m[j].timestamp < t) ++j;
      if (j == m.size()) continue;  // past its last point
      if (m[j].timestamp == t) {
        values.push_back(m[j].value);
      } else if (j > 0) {
        const Point& a = m[j - 1];
        const Point& b = m[j];
        const double f =
            static_cast<double>(t - a.timestamp) / static_cast<double>(b.timestamp - a.timestamp);
        values.push_back(a.value + (b.value - a.value) * f);
      }
    }
    if (!values.empty()) out.push_back({t, combine(values)});
  }
  return out;
}

// The points of one group of series: per step (or raw timestamp) the
// group's members reduced by the downsampler, then combined by the
// aggregator; with a rate, each member's rate first.
std::vector<Point> GroupPoints(const TimeSeriesQuery& q, const Accumulator& acc,
                               const std::vector<const SeriesData*>& members) {
  auto combine = [&](const std::vector<double>& values) {
    Rollup r;
    for (double v : values) r.Add(v);
    return q.aggregator == Aggregator::kCount ? static_cast<double>(r.count)
                                              : Reduce(r, q.aggregator);
  };
  std::vector<Point> out;
  if (q.step_s > 0 && !q.rate) {
    std::vector<double> values;
    for (size_t i = 0; i < acc.steps(); ++i) {
      values.clear();
      for (const SeriesData* s : members) {
        if (s->steps[i].count > 0) values.push_back(Reduce(s->steps[i], q.downsample));
      }
      if (!values.empty()) {
        out.push_back({acc.origin() + static_cast<int64_t>(i) * q.step_s, combine(values)});
      }
    }
    return out;
  }
  // Raw timestamps, or rates: each member's points (its rate first), then
  // the members combined at every timestamp any of them has.
  std::vector<std::vector<Point>> per_member;
  for (const SeriesData* s : members) {
    std::vector<Point> points;
    if (q.rate && q.step_s > 0) {
      for (size_t i = 0; i < acc.steps(); ++i) {
        if (s->steps[i].count == 0) continue;
        points.push_back(
            {acc.origin() + static_cast<int64_t>(i) * q.step_s, Reduce(s->steps[i], q.downsample)});
      }
    } else {
      for (const auto& [t, v] : s->raw) points.push_back({t, v});
    }
    per_member.push_back(q.rate ? RateOf(points, *q.rate) : std::move(points));
  }
  return CombineAtEveryTimestamp(per_member, combine);
}

// The series grouped by the values of the group-by tags; a group keeps the
// tags its members agree on and lists the others as aggregated.
std::vector<SeriesGroup> GroupSeries(const TimeSeriesQuery& q, const Accumulator& acc,
                                     const std::vector<SeriesData>& series,
                                     const std::vector<std::string>& group_by) {
  std::map<std::vector<std::string>, std::vector<const SeriesData*>> groups;
  for (const SeriesData& s : series) {
    std::vector<std::string> key;
    for (const std::string& k : group_by) {
      auto it = s.tags.find(k);
      key.push_back(it == s.tags.end() ? "" : it->second);
    }
    groups[key].push_back(&s);
  }
  std::vector<SeriesGroup> out;
  for (const auto& [unused, members] : groups) {
    SeriesGroup g;
    g.metric = q.metric;
    std::set<std::string> keys;
    for (const SeriesData* s : members) {
      for (const auto& [k, v] : s->tags) keys.insert(k);
    }
    for (const std::string& k : keys) {
      const SeriesData* first = members.front();
      auto f = first->tags.find(k);
      bool same = f != first->tags.end();
      for (const SeriesData* s : members) {
        auto it = s->tags.find(k);
        same = same && it != s->tags.end() && it->second == f->second;
      }
      if (same) {
        g.tags[k] = f->second;
      } else {
        g.aggregated_tags.push_back(k);
      }
    }
    g.points = GroupPoints(q, acc, members);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

absl::StatusOr<QueryResult> Telemetry::Query(const TimeSeriesQuery& q) {
  if (q.end_s < q.start_s || q.start_s < 0)
    return absl::InvalidArgumentError("query: end is before start");
  if (q.step_s < 0) return absl::InvalidArgumentError("query: step must be >= 0");
  if (q.step_s > 0 && (q.end_s - q.start_s) / q.step_s + 2 > kMaxSteps) {
    return absl::InvalidArgumentError("query: more than 1000000 steps; use a larger step");
  }
  QueryResult result;
  result.resolution = q.force_resolution.value_or(ChooseResolution(q.step_s));
  if (result.resolution != Resolution::kRaw &&
      (q.step_s == 0 || q.step_s % static_cast<int64_t>(result.resolution) != 0)) {
    return absl::InvalidArgumentError(
        "query: a rollup resolution needs a step that is a multiple of it");
  }
  auto metric_id = registry_->MetricId(q.metric, /*create=*/false);
  if (!metric_id.ok()) return metric_id.status();

  // 1. Series from the index.
  std::vector<std::string> group_by;
  auto matched = MatchSeries(store_, *metric_id, q.tags, options_.max_query_series,
                             std::numeric_limits<size_t>::max(), &group_by);
  if (!matched.ok()) return matched.status();
  SeriesReader reader(store_, *metric_id, q, std::move(matched->series), &result);
  result.series = static_cast<int64_t>(reader.series().size());

  // 2-4. One scan over one row range per series (per run of hours, for raw
  // fallbacks), decode, merge, accumulate.
  const int64_t first_hour = q.start_s - q.start_s % 3600;
  const int64_t last_hour = q.end_s - q.end_s % 3600;
  if (result.resolution == Resolution::kRaw) {
    if (absl::Status s = reader.ReadRaw(reader.HourRanges(first_hour, last_hour)); !s.ok()) {
      return s;
    }
  } else {
    if (absl::Status s = reader.ReadRollups(result.resolution, q.start_s, q.end_s); !s.ok()) {
      return s;
    }
    // Hours not packed yet (the current ones, or a packer behind) have no
    // rollups: read them raw while raw cells still exist.
    const int64_t now_s = options_.clock->NowMillis() / 1000;
    const int64_t raw_from = std::max(first_hour, now_s - kRawRetentionSeconds - (now_s % 3600));
    const int64_t raw_to = std::min(last_hour, now_s - now_s % 3600);
    if (absl::Status s = reader.ReadRaw(reader.HoursWithoutRollups(raw_from, raw_to)); !s.ok()) {
      return s;
    }
  }

  // 5. Groups.
  result.groups = GroupSeries(q, reader.accumulator(), reader.series(), group_by);
  return result;
}

absl::StatusOr<LookupResult> Telemetry::Lookup(std::string_view metric,
                                               const std::map<std::string, std::string>& tags,
                                               int limit) {
  auto metric_id = registry_->MetricId(metric, /*create=*/false);
  if (!metric_id.ok()) return metric_id.status();
  std::vector<std::string> group_by;
  auto matched = MatchSeries(store_, *metric_id, tags, options_.max_query_series,
                             static_cast<size_t>(std::max(limit, 0)), &group_by);
  if (!matched.ok()) return matched.status();
  LookupResult result;
  result.total = matched->total;
  for (MatchedSeries& m : matched->series)
    result.series.push_back({*metric_id, m.id, std::move(m.tags)});
  return result;
}

}  // namespace rtb::bidder::telemetry

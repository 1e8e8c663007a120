// Byte layouts of the telemetry tables (storage/schemas.cc names the tables).
//
// metrics and metric_rollups row key, 17 bytes, series-first:
//
//   +------+-----------+----------------+--------------+
//   | salt | metric id | series id      | bucket start |
//   | 1 B  | 4 B BE    | 8 B BE         | 4 B BE       |
//   +------+-----------+----------------+--------------+
//   salt = series id mod 16, so one series stays in one salt range and a
//   series scan is contiguous; bucket start is epoch seconds (unsigned, good
//   to 2106): the hour for metrics, the UTC day for metric_rollups.
//
// metrics:d       qualifier = 2-byte BE offset in the hour, value = 8-byte BE
//                 IEEE-754 bits of the point.
// metrics:p       qualifier "b", value = the Gorilla block of the hour.
// metric_rollups  qualifier = 2-byte BE hour of the day.
//                 h: value = one rollup: count (8 B BE) + sum, min, max (8 B BE doubles);
//                 m: value = the hour's minutes with points, each 2-byte BE
//                    minute of the hour + one rollup (34 B per minute).
//
// metric_ids rows: "c" (id counter, 8-byte counter), "n"+name -> id (4 B BE),
// "r"+id -> name, "k"+tag key, "v"+tag value, "packer" (last run, ms).
// metric_series rows: "s"+metric id+series id -> canonical tags,
// "t"+metric id+key+\0+value+\0+series id, "c" (series counters: qualifier
// "total", and "m"+metric id).
//
// Thread-safety: pure functions.
#ifndef RTB_BIDDER_TELEMETRY_INTERNAL_KEYS_H_
#define RTB_BIDDER_TELEMETRY_INTERNAL_KEYS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "storage/schemas.h"

namespace rtb::bidder::telemetry::internal {

inline constexpr int64_t kBucketSeconds = 3600;
inline constexpr int64_t kRollupRowSeconds = 86400;
inline constexpr int kSaltBuckets = 16;
inline constexpr size_t kRowKeySize = 17;
inline constexpr std::string_view kRawFamily = storage::kMetricsRawFamily;
inline constexpr std::string_view kPackedFamily = storage::kMetricsPackedFamily;
inline constexpr std::string_view kPackedQualifier = "b";
inline constexpr std::string_view kMinuteFamily = storage::kMetricRollupsMinuteFamily;
inline constexpr std::string_view kHourFamily = storage::kMetricRollupsHourFamily;
inline constexpr std::string_view kIdFamily = storage::kMetricIdsFamily;
inline constexpr std::string_view kSeriesFamily = storage::kMetricSeriesFamily;

struct RowKey {
  uint32_t metric_id = 0;
  uint64_t series_id = 0;
  int64_t bucket_start = 0;
};

uint8_t SaltOf(uint64_t series_id);
std::string EncodeRowKey(const RowKey& key);
std::optional<RowKey> DecodeRowKey(std::string_view row);

std::string EncodeUint16(uint16_t v);
std::optional<uint16_t> DecodeUint16(std::string_view bytes);
std::string EncodeUint32(uint32_t v);
std::optional<uint32_t> DecodeUint32(std::string_view bytes);
std::string EncodeUint64(uint64_t v);
std::optional<uint64_t> DecodeUint64(std::string_view bytes);
std::string EncodeDouble(double v);
std::optional<double> DecodeDouble(std::string_view bytes);

// count, sum, min, max of the points of one rollup interval.
struct Rollup {
  int64_t count = 0;
  double sum = 0;
  double min = 0;
  double max = 0;
  void Add(double v);
  void Merge(const Rollup& other);
};
std::string EncodeRollup(const Rollup& r);
std::optional<Rollup> DecodeRollup(std::string_view bytes);

// "metric{k1=v1,k2=v2}" with tags sorted by key: the identity of a series.
std::string CanonicalSeries(std::string_view metric,
                            const std::map<std::string, std::string>& tags);
// "k1=v1,k2=v2"; ParseCanonicalTags inverts it.
std::string CanonicalTags(const std::map<std::string, std::string>& tags);
std::map<std::string, std::string> ParseCanonicalTags(std::string_view canonical);
// storage::StableHash64 of the canonical series, so ids are the same in every
// process and every build.
uint64_t SeriesId(std::string_view canonical_series);

// metric_ids / metric_series rows.
std::string MetricNameRow(std::string_view name);
std::string MetricIdRow(uint32_t metric_id);
std::string SeriesRow(uint32_t metric_id, uint64_t series_id);
std::string SeriesPrefix(uint32_t metric_id);
std::string TagIndexPrefix(uint32_t metric_id, std::string_view key);
std::string TagIndexPrefix(uint32_t metric_id, std::string_view key, std::string_view value);
std::string TagIndexRow(uint32_t metric_id, std::string_view key, std::string_view value,
                        uint64_t series_id);

}  // namespace rtb::bidder::telemetry::internal

#endif  // RTB_BIDDER_TELEMETRY_INTERNAL_KEYS_H_

#include "bidder/telemetry/internal/keys.h"

#include <algorithm>
#include <bit>

#include "storage/key_bytes.h"

namespace rtb::bidder::telemetry::internal {
namespace {

// A fixed-width big-endian field: exactly sizeof(T) bytes or nothing.
template <typename T>
std::string EncodeBigEndian(T v) {
  std::string out;
  storage::AppendBigEndian(static_cast<uint64_t>(v), sizeof(T), &out);
  return out;
}

template <typename T>
std::optional<T> DecodeBigEndian(std::string_view bytes) {
  if (bytes.size() != sizeof(T)) return std::nullopt;
  return static_cast<T>(storage::ReadBigEndian(bytes));
}

}  // namespace

uint8_t SaltOf(uint64_t series_id) { return static_cast<uint8_t>(series_id % kSaltBuckets); }

std::string EncodeRowKey(const RowKey& key) {
  std::string row;
  row.reserve(kRowKeySize);
  row.push_back(static_cast<char>(SaltOf(key.series_id)));
  row += EncodeUint32(key.metric_id);
  row += EncodeUint64(key.series_id);
  row += EncodeUint32(static_cast<uint32_t>(key.bucket_start));
  return row;
}

std::optional<RowKey> DecodeRowKey(std::string_view row) {
  if (row.size() != kRowKeySize) return std::nullopt;
  RowKey key;
  key.metric_id = *DecodeUint32(row.substr(1, 4));
  key.series_id = *DecodeUint64(row.substr(5, 8));
  key.bucket_start = *DecodeUint32(row.substr(13, 4));
  if (static_cast<uint8_t>(row[0]) != SaltOf(key.series_id)) return std::nullopt;
  return key;
}

std::string EncodeUint16(uint16_t v) { return EncodeBigEndian(v); }
std::optional<uint16_t> DecodeUint16(std::string_view b) { return DecodeBigEndian<uint16_t>(b); }
std::string EncodeUint32(uint32_t v) { return EncodeBigEndian(v); }
std::optional<uint32_t> DecodeUint32(std::string_view b) { return DecodeBigEndian<uint32_t>(b); }
std::string EncodeUint64(uint64_t v) { return EncodeBigEndian(v); }
std::optional<uint64_t> DecodeUint64(std::string_view b) { return DecodeBigEndian<uint64_t>(b); }
std::string EncodeDouble(double v) { return EncodeUint64(std::bit_cast<uint64_t>(v)); }
std::optional<double> DecodeDouble(std::string_view b) {
  auto bits = DecodeUint64(b);
  if (!bits) return std::nullopt;
  return std::bit_cast<double>(*bits);
}

void Rollup::Add(double v) {
  if (count == 0) {
    min = max = v;
  } else {
    min = std::min(min, v);
    max = std::max(max, v);
  }
  sum += v;
  ++count;
}

void Rollup::Merge(const Rollup& other) {
  if (other.count == 0) return;
  if (count == 0) {
    *this = other;
    return;
  }
  count += other.count;
  sum += other.sum;
  min = std::min(min, other.min);
  max = std::max(max, other.max);
}

std::string EncodeRollup(const Rollup& r) {
  return EncodeUint64(static_cast<uint64_t>(r.count)) + EncodeDouble(r.sum) + EncodeDouble(r.min) +
         EncodeDouble(r.max);
}

std::optional<Rollup> DecodeRollup(std::string_view bytes) {
  if (bytes.size() != 32) return std::nullopt;
  Rollup r;
  r.count = static_cast<int64_t>(*DecodeUint64(bytes.substr(0, 8)));
  r.sum = *DecodeDouble(bytes.substr(8, 8));
  r.min = *DecodeDouble(bytes.substr(16, 8));
  r.max = *DecodeDouble(bytes.substr(24, 8));
  return r;
}

std::string CanonicalTags(const std::map<std::string, std::string>& tags) {
  std::string out;
  for (const auto& [k, v] : tags) {
    if (!out.empty()) out.push_back(',');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

std::string CanonicalSeries(std::string_view metric,
                            const std::map<std::string, std::string>& tags) {
  std::string out(metric);
  out.push_back('{');
  out += CanonicalTags(tags);
  out.push_back('}');
  return out;
}

std::map<std::string, std::string> ParseCanonicalTags(std::string_view canonical) {
  std::map<std::string, std::string> tags;
  while (!canonical.empty()) {
    const size_t comma = canonical.find(',');
    std::string_view pair = canonical.substr(0, comma);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos)
      tags[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
    if (comma == std::string_view::npos) break;
    canonical.remove_prefix(comma + 1);
  }
  return tags;
}

uint64_t SeriesId(std::string_view canonical_series) {
  return storage::StableHash64(canonical_series);
}

std::string MetricNameRow(std::string_view name) { return "n" + std::string(name); }
std::string MetricIdRow(uint32_t metric_id) { return "r" + EncodeUint32(metric_id); }
std::string SeriesRow(uint32_t metric_id, uint64_t series_id) {
  return SeriesPrefix(metric_id) + EncodeUint64(series_id);
}
std::string SeriesPrefix(uint32_t metric_id) { return "s" + EncodeUint32(metric_id); }
std::string TagIndexPrefix(uint32_t metric_id, std::string_view key) {
  std::string out = "t" + EncodeUint32(metric_id);
  out += key;
  out.push_back('\0');
  return out;
}
std::string TagIndexPrefix(uint32_t metric_id, std::string_view key, std::string_view value) {
  std::string out = TagIndexPrefix(metric_id, key);
  out += value;
  out.push_back('\0');
  return out;
}
std::string TagIndexRow(uint32_t metric_id, std::string_view key, std::string_view value,
                        uint64_t series_id) {
  return TagIndexPrefix(metric_id, key, value) + EncodeUint64(series_id);
}

}  // namespace rtb::bidder::telemetry::internal

#include "pricing/internal/pricing_rows.h"

#include "absl/strings/str_format.h"
#include "pricing/internal/price_grid.h"
#include "storage/key_bytes.h"

namespace rtb::pricing::internal {
namespace {

constexpr size_t kOutcomeRowBytes = 1 + 4 + 8;

}  // namespace

uint32_t HourOf(int64_t unix_ms) {
  return unix_ms <= 0 ? 0 : static_cast<uint32_t>(unix_ms / (3600 * 1000));
}

std::string OutcomeRow(uint64_t bucket, uint32_t hour) {
  std::string row = OutcomeRowStart(static_cast<int>(bucket % kSalts), hour);
  storage::AppendBigEndian64(bucket, &row);
  return row;
}

std::string OutcomeRowStart(int salt, uint32_t hour) {
  std::string row;
  row.reserve(kOutcomeRowBytes);
  row.push_back(static_cast<char>(salt));
  storage::AppendBigEndian32(hour, &row);
  return row;
}

std::optional<OutcomeRowKey> ParseOutcomeRow(std::string_view row) {
  if (row.size() != kOutcomeRowBytes) return std::nullopt;
  OutcomeRowKey key;
  key.hour = storage::ReadBigEndian32(row.substr(1, 4));
  key.bucket = storage::ReadBigEndian64(row.substr(5, 8));
  if (static_cast<uint64_t>(static_cast<unsigned char>(row[0])) != key.bucket % kSalts) {
    return std::nullopt;
  }
  return key;
}

std::string OutcomeQualifier(OutcomeKind kind, int bin) {
  std::string qualifier(1, static_cast<char>(kind));
  storage::AppendBigEndian16(static_cast<uint16_t>(bin), &qualifier);
  return qualifier;
}

std::optional<OutcomeCell> ParseOutcomeQualifier(std::string_view qualifier) {
  if (qualifier.size() != 3) return std::nullopt;
  OutcomeCell cell;
  switch (qualifier[0]) {
    case 'b':
    case 'n':
    case 'w':
    case 'l':
    case 'x':
    case 'y':
      cell.kind = static_cast<OutcomeKind>(qualifier[0]);
      break;
    default:
      return std::nullopt;
  }
  cell.bin = static_cast<int>(storage::ReadBigEndian(qualifier.substr(1, 2)));
  if (cell.bin >= kPriceBins) return std::nullopt;
  return cell;
}

std::string EngagementRow(std::string_view campaign_id, int shard) {
  return absl::StrFormat("%s|%02d", std::string(campaign_id), shard);
}

std::string EngagementRowPrefix(std::string_view campaign_id) {
  std::string prefix(campaign_id);
  prefix.push_back('|');
  return prefix;
}

std::string EngagementQualifier(EngagementKind kind, std::string_view yyyymmdd) {
  std::string qualifier(1, static_cast<char>(kind));
  qualifier.append(yyyymmdd);
  return qualifier;
}

std::string ModelChunkRow(int64_t version, int chunk) {
  std::string row(kModelPointerRow);
  row.push_back('|');
  storage::AppendBigEndian64(static_cast<uint64_t>(version), &row);
  storage::AppendBigEndian16(static_cast<uint16_t>(chunk), &row);
  return row;
}

std::string ModelPointerValue(int64_t version, int chunks) {
  std::string value;
  storage::AppendBigEndian64(static_cast<uint64_t>(version), &value);
  storage::AppendBigEndian16(static_cast<uint16_t>(chunks), &value);
  return value;
}

std::optional<ModelPointer> ParseModelPointer(std::string_view value) {
  if (value.size() != 10) return std::nullopt;
  ModelPointer pointer;
  pointer.version = static_cast<int64_t>(storage::ReadBigEndian64(value.substr(0, 8)));
  pointer.chunks = static_cast<int>(storage::ReadBigEndian(value.substr(8, 2)));
  if (pointer.version <= 0 || pointer.chunks <= 0) return std::nullopt;
  return pointer;
}

}  // namespace rtb::pricing::internal

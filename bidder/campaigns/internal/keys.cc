#include "bidder/campaigns/internal/keys.h"

#include <limits>

#include "storage/key_bytes.h"

namespace rtb::bidder::campaigns::internal {

std::string ChangeRow(uint64_t sequence) {
  std::string row;
  storage::AppendBigEndian64(sequence, &row);
  return row;
}

std::optional<uint64_t> SequenceOfChangeRow(std::string_view row) {
  if (row.size() != 8) return std::nullopt;
  return storage::ReadBigEndian64(row);
}

std::string AuditPrefix(std::string_view campaign_id) {
  std::string prefix(campaign_id);
  prefix.push_back('\0');
  return prefix;
}

std::string AuditRow(std::string_view campaign_id, int64_t at_ms, int64_t version) {
  std::string row = AuditPrefix(campaign_id);
  storage::AppendBigEndian64(static_cast<uint64_t>(std::numeric_limits<int64_t>::max() - at_ms),
                             &row);
  storage::AppendBigEndian64(static_cast<uint64_t>(version), &row);
  return row;
}

std::optional<int64_t> AuditTime(std::string_view row) {
  const size_t zero = row.find('\0');
  if (zero == std::string_view::npos || row.size() != zero + 1 + 16) return std::nullopt;
  return std::numeric_limits<int64_t>::max() -
         static_cast<int64_t>(storage::ReadBigEndian64(row.substr(zero + 1, 8)));
}

}  // namespace rtb::bidder::campaigns::internal

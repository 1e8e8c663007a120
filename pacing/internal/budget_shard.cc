#include "pacing/internal/budget_shard.h"

#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace rtb::pacing::internal {

int ShardOf(int worker_id) { return worker_id % kBudgetShards; }

std::string BudgetShardRow(std::string_view campaign_id, int shard) {
  const int nn = ((shard % kBudgetShards) + kBudgetShards) % kBudgetShards;
  std::string row(campaign_id);
  row.push_back('|');
  row.push_back(static_cast<char>('0' + nn / 10));
  row.push_back(static_cast<char>('0' + nn % 10));
  return row;
}

std::optional<int> ParseBudgetShardRow(std::string_view row, std::string_view campaign_id) {
  if (row.size() != campaign_id.size() + 3 || !row.starts_with(campaign_id) ||
      row[campaign_id.size()] != '|') {
    return std::nullopt;
  }
  const char tens = row[campaign_id.size() + 1];
  const char ones = row[campaign_id.size() + 2];
  if (tens < '0' || tens > '9' || ones < '0' || ones > '9') return std::nullopt;
  const int shard = (tens - '0') * 10 + (ones - '0');
  if (shard >= kBudgetShards) return std::nullopt;
  return shard;
}

std::string PositionQualifier(int worker_id) { return absl::StrCat("pos:", worker_id); }

std::string DayQualifier(absl::CivilDay day) {
  char text[16];
  std::snprintf(text, sizeof(text), "%04d%02d%02d", static_cast<int>(day.year() % 10000),
                day.month(), day.day());
  return std::string(text, 8);
}

std::optional<absl::CivilDay> ParseDayQualifier(std::string_view qualifier) {
  if (qualifier.size() != 8) return std::nullopt;
  for (char c : qualifier) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  int year = 0, month = 0, day = 0;
  if (!absl::SimpleAtoi(absl::string_view(qualifier.data(), 4), &year) ||
      !absl::SimpleAtoi(absl::string_view(qualifier.data() + 4, 2), &month) ||
      !absl::SimpleAtoi(absl::string_view(qualifier.data() + 6, 2), &day)) {
    return std::nullopt;
  }
  const absl::CivilDay parsed(year, month, day);
  // CivilDay normalises 20260231 to March; such a qualifier is not a day.
  if (parsed.year() != year || parsed.month() != month || parsed.day() != day) return std::nullopt;
  return parsed;
}

storage::Scan BudgetShardScan(std::string_view campaign_id, absl::CivilDay today,
                              absl::CivilDay yesterday, bool every_day) {
  storage::Scan scan;
  scan.start_row = BudgetShardRow(campaign_id, 0);
  scan.stop_row = absl::StrCat(std::string(campaign_id), "|", kBudgetShards);
  if (every_day) {
    scan.columns = {storage::Column{std::string(kSpendFamily), std::nullopt}};
  } else {
    scan.columns = {storage::Column{std::string(kSpendFamily), DayQualifier(today)},
                    storage::Column{std::string(kSpendFamily), DayQualifier(yesterday)}};
  }
  scan.limit = kBudgetShards;
  scan.caching = kBudgetShards;
  return scan;
}

}  // namespace rtb::pacing::internal

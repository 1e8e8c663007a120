// The layout of the `budget` table: a campaign's spend is split over 16 shard
// rows so no single row takes every worker's increments (ad-tech seed,
// "Budget pacing without a hot row").
//
//   row        campaign id | NN             e.g. "c8812|07"
//              NN = worker id mod 16, two decimal digits "00".."15"
//   family     spend
//   qualifier  yyyymmdd                     the day in the campaign's time zone,
//                                           8 ASCII digits, e.g. "20261004"
//   value      8-byte big-endian int64      micro-units of the campaign's
//                                           currency (an Increment counter)
//
//   family     spend (the same row)
//   qualifier  pos:<worker id>              decimal, e.g. "pos:19"
//   value      8-byte big-endian int64      the worker's position: every entry
//                                           of its spend journal for this
//                                           campaign up to this sequence is
//                                           counted in the spend columns
//                                           (pacing/internal/spend_journal.h)
//
// The flusher moves a position in the same Increment that adds the spend, so
// the row itself says how far the spend it holds goes. Readers of spend take
// the day columns by name (BudgetShardScan); a position is never a day.
//
// Campaign ids are [A-Za-z0-9_-]+ and hold no '|', so the rows of one campaign
// are exactly [id|00, id|16): one short scan of at most 16 rows reads them,
// and no other campaign's rows fall inside that range. Rows starting with '|'
// belong to no campaign; pacing/internal/decision_board.h uses one.
//
// Thread-safety: pure functions.
#ifndef RTB_PACING_INTERNAL_BUDGET_SHARD_H_
#define RTB_PACING_INTERNAL_BUDGET_SHARD_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/time/civil_time.h"
#include "storage/schemas.h"
#include "storage/types.h"

namespace rtb::pacing::internal {

inline constexpr int kBudgetShards = 16;
inline constexpr std::string_view kSpendFamily = storage::kBudgetSpendFamily;

// The shard a worker writes: worker_id mod 16 (worker ids are >= 0).
int ShardOf(int worker_id);

// "campaign|NN" for shard `shard` in [0, 16).
std::string BudgetShardRow(std::string_view campaign_id, int shard);

// The shard number of `row` when it is one of `campaign_id`'s shard rows.
std::optional<int> ParseBudgetShardRow(std::string_view row, std::string_view campaign_id);

// "pos:<worker id>".
std::string PositionQualifier(int worker_id);

// "yyyymmdd".
std::string DayQualifier(absl::CivilDay day);
std::optional<absl::CivilDay> ParseDayQualifier(std::string_view qualifier);

// The one scan that reads a campaign's shards: rows [id|00, id|16), the
// columns spend:<day> for each day given, at most 16 rows in one round trip.
// With `every_day`, the whole family: every day the rows keep (a lifetime
// budget counts them), and the workers' positions, which readers skip.
storage::Scan BudgetShardScan(std::string_view campaign_id, absl::CivilDay today,
                              absl::CivilDay yesterday, bool every_day = false);

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_BUDGET_SHARD_H_

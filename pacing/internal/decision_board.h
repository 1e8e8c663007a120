// Where the rtb-pacer process publishes its decisions for the workers'
// Pacers (pacing.mode "pacer"): one cell of the `budget` table holding every
// campaign's decision of one controller tick, replaced whole at every tick
// and read with one Get. One cell rather than one per campaign, so a reader
// sees the decisions of a single tick, and each tick adds one cell version,
// not one per campaign, to what a read walks until compaction.
//
//   row        "|decisions"   (a campaign's rows start with its id, which
//                              holds no '|': no shard scan ever reaches it)
//   family     spend
//   qualifier  "decisions"
//   value      big-endian:
//     1 byte   layout version, 1
//     4 bytes  number of campaigns N
//     N times: 1 byte id length L, L bytes campaign id, then 38 bytes:
//       offset size
//       0      1    layout version, 1
//       1      1    flags: bit 0 = stopped
//       2      8    computed_at: ms since the Unix epoch, int64
//       10     8    throttle: IEEE-754 binary64 bits
//       18     4    day in the campaign's time zone, yyyymmdd as uint32
//       22     8    spent today, micros, int64
//       30     8    overspend bound, micros, int64
//
// The cell carries a TTL of a day, so the decisions of a pacer that is gone
// stop being read at all; long before that their age stops the campaigns.
//
// Thread-safety: one thread per instance.
#ifndef RTB_PACING_INTERNAL_DECISION_BOARD_H_
#define RTB_PACING_INTERNAL_DECISION_BOARD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/civil_time.h"
#include "pacing/internal/budget_controller.h"
#include "pacing/internal/campaign_budget.h"
#include "pacing/pacer.h"
#include "storage/store.h"

namespace rtb::pacing::internal {

inline constexpr std::string_view kDecisionBoardRow = "|decisions";
inline constexpr std::string_view kDecisionBoardQualifier = "decisions";
inline constexpr int64_t kDecisionBoardTtlMs = 24 * 3600 * 1000;

struct BoardEntry {
  int64_t computed_at_ms = 0;
  absl::CivilDay day;
  double throttle = 0;
  bool stopped = false;
  int64_t spent_today_micros = 0;
  int64_t overspend_bound_micros = 0;

  bool operator==(const BoardEntry&) const = default;
};

std::string EncodeBoardEntry(const BoardEntry& entry);
// nullopt for a value of another size or version, or a throttle outside [0, 1].
std::optional<BoardEntry> DecodeBoardEntry(std::string_view value);

// The whole cell: (campaign id, entry) pairs. Decoding skips entries that do
// not decode and fails (nullopt) only when the framing is broken.
std::string EncodeBoard(const std::vector<std::pair<std::string, BoardEntry>>& entries);
std::optional<std::vector<std::pair<std::string, BoardEntry>>> DecodeBoard(std::string_view value);

class DecisionBoard {
 public:
  // `campaigns` and `store` must outlive this.
  DecisionBoard(const std::vector<CampaignBudget>& campaigns, storage::Store& store);

  // Campaigns were appended to `campaigns` (positions never change).
  void TrackAppendedCampaigns();

  // Writes every campaign that has a decision, in one Put of one cell.
  absl::Status Write(const BudgetController& controller);
  // Reads the board and publishes each campaign found into `decisions`,
  // valid until computed_at + max_age_ms. Campaigns absent from the board
  // keep what they had (and age). `entries`, when given, gets what was read
  // per campaign.
  absl::Status ReadInto(Decisions& decisions, int64_t max_age_ms,
                        std::vector<std::optional<BoardEntry>>* entries = nullptr);

 private:
  const std::vector<CampaignBudget>& campaigns_;
  storage::Store& store_;
  absl::flat_hash_map<std::string, size_t> index_;
};

}  // namespace rtb::pacing::internal

#endif  // RTB_PACING_INTERNAL_DECISION_BOARD_H_

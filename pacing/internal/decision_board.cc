#include "pacing/internal/decision_board.h"

#include <bit>
#include <cstring>

#include "pacing/internal/budget_shard.h"
#include "storage/schemas.h"

namespace rtb::pacing::internal {
namespace {

constexpr uint8_t kVersion = 1;
constexpr size_t kEntryBytes = 38;
constexpr uint8_t kStopped = 1;

void PutBigEndian(uint64_t value, int bytes, std::string* out) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t GetBigEndian(std::string_view bytes, size_t offset, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[offset + i]);
  }
  return value;
}

uint32_t DayNumber(absl::CivilDay day) {
  return static_cast<uint32_t>(day.year() * 10000 + day.month() * 100 + day.day());
}

}  // namespace

std::string EncodeBoardEntry(const BoardEntry& entry) {
  std::string out;
  out.reserve(kEntryBytes);
  out.push_back(static_cast<char>(kVersion));
  out.push_back(static_cast<char>(entry.stopped ? kStopped : 0));
  PutBigEndian(static_cast<uint64_t>(entry.computed_at_ms), 8, &out);
  PutBigEndian(std::bit_cast<uint64_t>(entry.throttle), 8, &out);
  PutBigEndian(DayNumber(entry.day), 4, &out);
  PutBigEndian(static_cast<uint64_t>(entry.spent_today_micros), 8, &out);
  PutBigEndian(static_cast<uint64_t>(entry.overspend_bound_micros), 8, &out);
  return out;
}

std::optional<BoardEntry> DecodeBoardEntry(std::string_view value) {
  if (value.size() != kEntryBytes || static_cast<uint8_t>(value[0]) != kVersion) {
    return std::nullopt;
  }
  BoardEntry entry;
  entry.stopped = (static_cast<uint8_t>(value[1]) & kStopped) != 0;
  entry.computed_at_ms = static_cast<int64_t>(GetBigEndian(value, 2, 8));
  entry.throttle = std::bit_cast<double>(GetBigEndian(value, 10, 8));
  const uint32_t day = static_cast<uint32_t>(GetBigEndian(value, 18, 4));
  entry.day = absl::CivilDay(day / 10000, (day / 100) % 100, day % 100);
  entry.spent_today_micros = static_cast<int64_t>(GetBigEndian(value, 22, 8));
  entry.overspend_bound_micros = static_cast<int64_t>(GetBigEndian(value, 30, 8));
  if (!(entry.throttle >= 0 && entry.throttle <= 1)) return std::nullopt;
  return entry;
}

DecisionBoard::DecisionBoard(const std::vector<CampaignBudget>& campaigns, storage::Store& store)
    : campaigns_(campaigns), store_(store) {
  for (size_t i = 0; i < campaigns.size(); ++i) index_.emplace(campaigns[i].id, i);
}

absl::Status DecisionBoard::Write(const BudgetController& controller) {
  storage::Put put;
  put.row = std::string(kDecisionBoardRow);
  put.ttl_ms = kDecisionBoardTtlMs;
  for (size_t i = 0; i < controller.campaigns(); ++i) {
    const CampaignDecision& d = controller.decision(i);
    if (d.computed_at_ms == 0) continue;
    const BoardEntry entry{.computed_at_ms = d.computed_at_ms,
                           .day = d.day,
                           .throttle = d.decision.throttle,
                           .stopped = d.decision.stopped,
                           .spent_today_micros = d.spent_today_micros,
                           .overspend_bound_micros = d.decision.overspend_bound_micros};
    put.values.push_back(
        storage::PutValue{std::string(kSpendFamily), campaigns_[i].id, EncodeBoardEntry(entry)});
  }
  if (put.values.empty()) return absl::OkStatus();
  return store_.Put(storage::kBudgetTable, put);
}

absl::Status DecisionBoard::ReadInto(Decisions& decisions, int64_t max_age_ms,
                                     std::vector<std::optional<BoardEntry>>* entries) {
  storage::Get get;
  get.row = std::string(kDecisionBoardRow);
  get.columns = {storage::Column{std::string(kSpendFamily), std::nullopt}};
  absl::StatusOr<storage::RowResult> row = store_.Get(storage::kBudgetTable, get);
  if (!row.ok()) return row.status();
  if (entries != nullptr) entries->assign(campaigns_.size(), std::nullopt);
  for (const storage::Cell& cell : row->cells) {
    auto it = index_.find(cell.qualifier);
    if (it == index_.end()) continue;
    std::optional<BoardEntry> entry = DecodeBoardEntry(cell.value);
    if (!entry) continue;
    // A cell older than what is already published (a pacer restarted on a
    // clock behind) must not extend the validity.
    const int64_t valid_until = entry->computed_at_ms + max_age_ms;
    if (valid_until >= decisions.valid_until_ms(it->second)) {
      decisions.Publish(it->second, entry->throttle, valid_until);
    }
    if (entries != nullptr) (*entries)[it->second] = entry;
  }
  return absl::OkStatus();
}

}  // namespace rtb::pacing::internal

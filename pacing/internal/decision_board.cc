#include "pacing/internal/decision_board.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "pacing/internal/budget_shard.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"

namespace rtb::pacing::internal {
namespace {

constexpr uint8_t kVersion = 1;
constexpr size_t kEntryBytes = 38;
constexpr uint8_t kStopped = 1;

uint32_t DayNumber(absl::CivilDay day) {
  return static_cast<uint32_t>(day.year() * 10000 + day.month() * 100 + day.day());
}

}  // namespace

std::string EncodeBoardEntry(const BoardEntry& entry) {
  std::string out;
  out.reserve(kEntryBytes);
  out.push_back(static_cast<char>(kVersion));
  out.push_back(static_cast<char>(entry.stopped ? kStopped : 0));
  storage::AppendBigEndian(static_cast<uint64_t>(entry.computed_at_ms), 8, &out);
  storage::AppendBigEndian(std::bit_cast<uint64_t>(entry.throttle), 8, &out);
  storage::AppendBigEndian(DayNumber(entry.day), 4, &out);
  storage::AppendBigEndian(static_cast<uint64_t>(entry.spent_today_micros), 8, &out);
  storage::AppendBigEndian(static_cast<uint64_t>(entry.overspend_bound_micros), 8, &out);
  return out;
}

std::optional<BoardEntry> DecodeBoardEntry(std::string_view value) {
  if (value.size() != kEntryBytes || static_cast<uint8_t>(value[0]) != kVersion) {
    return std::nullopt;
  }
  BoardEntry entry;
  entry.stopped = (static_cast<uint8_t>(value[1]) & kStopped) != 0;
  entry.computed_at_ms = static_cast<int64_t>(storage::ReadBigEndian(value.substr(2, 8)));
  entry.throttle = std::bit_cast<double>(storage::ReadBigEndian(value.substr(10, 8)));
  const uint32_t day = static_cast<uint32_t>(storage::ReadBigEndian(value.substr(18, 4)));
  entry.day = absl::CivilDay(day / 10000, (day / 100) % 100, day % 100);
  entry.spent_today_micros = static_cast<int64_t>(storage::ReadBigEndian(value.substr(22, 8)));
  entry.overspend_bound_micros = static_cast<int64_t>(storage::ReadBigEndian(value.substr(30, 8)));
  if (!(entry.throttle >= 0 && entry.throttle <= 1)) return std::nullopt;
  return entry;
}

std::string EncodeBoard(const std::vector<std::pair<std::string, BoardEntry>>& entries) {
  std::string out;
  out.reserve(5 + entries.size() * (1 + 32 + kEntryBytes));
  out.push_back(static_cast<char>(kVersion));
  storage::AppendBigEndian(entries.size(), 4, &out);
  for (const auto& [id, entry] : entries) {
    // Campaign ids are at most 32 characters (config/config.h).
    const size_t length = std::min<size_t>(id.size(), 255);
    out.push_back(static_cast<char>(length));
    out.append(id, 0, length);
    out += EncodeBoardEntry(entry);
  }
  return out;
}

std::optional<std::vector<std::pair<std::string, BoardEntry>>> DecodeBoard(std::string_view value) {
  if (value.size() < 5 || static_cast<uint8_t>(value[0]) != kVersion) return std::nullopt;
  const uint64_t count = storage::ReadBigEndian(value.substr(1, 4));
  std::vector<std::pair<std::string, BoardEntry>> entries;
  size_t at = 5;
  for (uint64_t i = 0; i < count; ++i) {
    if (at >= value.size()) return std::nullopt;
    const size_t length = static_cast<uint8_t>(value[at]);
    if (value.size() - at - 1 < length + kEntryBytes) return std::nullopt;
    std::string id(value.substr(at + 1, length));
    std::optional<BoardEntry> entry = DecodeBoardEntry(value.substr(at + 1 + length, kEntryBytes));
    at += 1 + length + kEntryBytes;
    if (entry) entries.emplace_back(std::move(id), *entry);
  }
  if (at != value.size()) return std::nullopt;
  return entries;
}

DecisionBoard::DecisionBoard(const std::vector<CampaignBudget>& campaigns, storage::Store& store)
    : campaigns_(campaigns), store_(store) {
  TrackAppendedCampaigns();
}

void DecisionBoard::TrackAppendedCampaigns() {
  for (size_t i = index_.size(); i < campaigns_.size(); ++i) index_.emplace(campaigns_[i].id, i);
}

absl::Status DecisionBoard::Write(const BudgetController& controller) {
  std::vector<std::pair<std::string, BoardEntry>> entries;
  for (size_t i = 0; i < controller.campaigns(); ++i) {
    const CampaignDecision& d = controller.decision(i);
    if (d.computed_at_ms == 0) continue;
    entries.emplace_back(campaigns_[i].id,
                         BoardEntry{.computed_at_ms = d.computed_at_ms,
                                    .day = d.day,
                                    .throttle = d.decision.throttle,
                                    .stopped = d.decision.stopped,
                                    .spent_today_micros = d.spent_today_micros,
                                    .overspend_bound_micros = d.decision.overspend_bound_micros});
  }
  if (entries.empty()) return absl::OkStatus();
  storage::Put put;
  put.row = std::string(kDecisionBoardRow);
  put.ttl_ms = kDecisionBoardTtlMs;
  put.values.push_back(storage::PutValue{
      std::string(kSpendFamily), std::string(kDecisionBoardQualifier), EncodeBoard(entries)});
  return store_.Put(storage::kBudgetTable, put);
}

absl::Status DecisionBoard::ReadInto(Decisions& decisions, int64_t max_age_ms,
                                     std::vector<std::optional<BoardEntry>>* entries) {
  storage::Get get;
  get.row = std::string(kDecisionBoardRow);
  get.columns = {storage::Column{std::string(kSpendFamily), std::string(kDecisionBoardQualifier)}};
  absl::StatusOr<storage::RowResult> row = store_.Get(storage::kBudgetTable, get);
  if (!row.ok()) return row.status();
  if (entries != nullptr) entries->assign(campaigns_.size(), std::nullopt);
  std::optional<std::string_view> value = row->Value(kSpendFamily, kDecisionBoardQualifier);
  if (!value) return absl::OkStatus();  // no pacer has published yet
  std::optional<std::vector<std::pair<std::string, BoardEntry>>> board = DecodeBoard(*value);
  if (!board) return absl::DataLossError("the pacing decision board does not decode");
  for (const auto& [id, entry] : *board) {
    auto it = index_.find(id);
    if (it == index_.end()) continue;
    // Decisions older than what is already published (a pacer restarted on
    // a clock behind) must not extend the validity.
    const int64_t valid_until = entry.computed_at_ms + max_age_ms;
    if (valid_until >= decisions.valid_until_ms(it->second)) {
      decisions.Publish(it->second, entry.throttle, valid_until);
    }
    if (entries != nullptr) (*entries)[it->second] = entry;
  }
  return absl::OkStatus();
}

}  // namespace rtb::pacing::internal

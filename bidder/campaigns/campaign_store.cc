#include "bidder/campaigns/campaign_store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bidder/campaigns/internal/keys.h"
#include "nlohmann/json.hpp"
#include "storage/schemas.h"
#include "storage/types.h"

namespace rtb::bidder::campaigns {
namespace {

using Json = nlohmann::ordered_json;
using internal::kCampaignFamily;

// A gap in the change log (a writer between its Increment and its Put, or
// one that died there) is waited for this long before readers step over it.
constexpr int64_t kGapPatienceMs = 10000;

std::string Str(std::string_view s) { return std::string(s); }

storage::PutValue Cell(std::string_view family, std::string_view qualifier, std::string value) {
  return storage::PutValue{Str(family), Str(qualifier), std::move(value), std::nullopt};
}

// The object of `text`, compact, keys in the order given; InvalidArgument
// when it is not one.
absl::StatusOr<Json> ParseObject(std::string_view text) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::InvalidArgumentError("malformed JSON");
  if (!json.is_object()) return absl::InvalidArgumentError("a campaign must be a JSON object");
  return json;
}

// What is stored of a validated object: everything but "enabled", which the
// state column holds (one source of truth for pause and resume).
std::string Stored(Json object) {
  object.erase("enabled");
  return object.dump();
}

std::optional<CampaignRecord> RecordOf(const storage::RowResult& row) {
  if (row.empty() || row.row.starts_with('~')) return std::nullopt;
  std::optional<std::string_view> json = row.Value(kCampaignFamily, internal::kJsonColumn);
  std::optional<int64_t> version = row.Counter(kCampaignFamily, internal::kVersionColumn);
  std::optional<CampaignState> state = ParseCampaignState(
      row.Value(kCampaignFamily, internal::kStateColumn).value_or(std::string_view()));
  if (!json || !version || !state) return std::nullopt;
  CampaignRecord record;
  record.id = row.row;
  record.json = Str(*json);
  record.version = *version;
  record.state = *state;
  record.updated_ms = row.Counter(kCampaignFamily, internal::kUpdatedAtColumn).value_or(0);
  record.updated_by = Str(row.Value(kCampaignFamily, internal::kUpdatedByColumn).value_or(""));
  return record;
}

}  // namespace

const char* CampaignStateName(CampaignState state) {
  switch (state) {
    case CampaignState::kActive:
      return "active";
    case CampaignState::kPaused:
      return "paused";
    case CampaignState::kArchived:
      return "archived";
  }
  return "active";
}

std::optional<CampaignState> ParseCampaignState(std::string_view name) {
  for (CampaignState s :
       {CampaignState::kActive, CampaignState::kPaused, CampaignState::kArchived}) {
    if (name == CampaignStateName(s)) return s;
  }
  return std::nullopt;
}

CampaignStore::CampaignStore(storage::Store& store, std::shared_ptr<storage::Clock> clock,
                             Validator validate)
    : store_(store), clock_(std::move(clock)), validate_(std::move(validate)) {}

absl::StatusOr<CampaignRecord> CampaignStore::Write(const std::optional<CampaignRecord>& current,
                                                    CampaignRecord next, std::string_view action,
                                                    std::string_view operator_name) {
  const int64_t now = clock_->NowMillis();
  next.version = current ? current->version + 1 : 1;
  next.updated_ms = now;
  next.updated_by = Str(operator_name);

  storage::CheckAndMutate write;
  write.row = next.id;
  write.family = Str(kCampaignFamily);
  write.qualifier = Str(internal::kVersionColumn);
  if (current) write.value = storage::EncodeCounter(current->version);  // else: must be absent
  storage::Put put;
  put.row = next.id;
  put.values = {
      Cell(kCampaignFamily, internal::kJsonColumn, next.json),
      Cell(kCampaignFamily, internal::kVersionColumn, storage::EncodeCounter(next.version)),
      Cell(kCampaignFamily, internal::kStateColumn, CampaignStateName(next.state)),
      Cell(kCampaignFamily, internal::kUpdatedAtColumn, storage::EncodeCounter(now)),
      Cell(kCampaignFamily, internal::kUpdatedByColumn, next.updated_by)};
  put.durability = storage::Durability::kSyncWal;
  write.puts.push_back(std::move(put));
  absl::StatusOr<bool> written = store_.CheckAndMutate(storage::kCampaignsTable, write);
  if (!written.ok()) return written.status();
  if (!*written) {
    if (!current) {
      return absl::AlreadyExistsError(
          absl::StrCat("campaign id ", next.id, " is taken (ids are never reused)"));
    }
    absl::StatusOr<std::optional<CampaignRecord>> now_stored = Get(next.id);
    const int64_t version = now_stored.ok() && *now_stored ? (*now_stored)->version : 0;
    return absl::AbortedError(absl::StrCat("campaign ", next.id,
                                           " changed meanwhile: it is at version ", version,
                                           ", not ", current->version));
  }

  // After the row, so a worker that reads the entry finds the change.
  storage::Increment counter;
  counter.row = Str(internal::kChangeCounterRow);
  counter.columns.push_back(
      storage::IncrementColumn{Str(kCampaignFamily), Str(internal::kChangeCounterColumn), 1});
  counter.durability = storage::Durability::kSyncWal;
  absl::StatusOr<storage::RowResult> sequence = store_.Increment(storage::kCampaignsTable, counter);
  if (!sequence.ok()) return sequence.status();
  const std::optional<int64_t> seq =
      sequence->Counter(kCampaignFamily, internal::kChangeCounterColumn);
  if (!seq) return absl::InternalError("the change counter answered no value");
  storage::Put change;
  change.row = internal::ChangeRow(static_cast<uint64_t>(*seq));
  change.values = {
      Cell(internal::kChangeFamily, internal::kChangeIdColumn, next.id),
      Cell(internal::kChangeFamily, internal::kChangeAtColumn, storage::EncodeCounter(now))};
  change.durability = storage::Durability::kSyncWal;
  if (absl::Status s = store_.Put(storage::kCampaignChangesTable, change); !s.ok()) return s;

  storage::Put audit;
  audit.row = internal::AuditRow(next.id, now, next.version);
  audit.values = {
      Cell(internal::kAuditFamily, internal::kAuditOperatorColumn, next.updated_by),
      Cell(internal::kAuditFamily, internal::kAuditActionColumn, Str(action)),
      Cell(internal::kAuditFamily, internal::kAuditVersionColumn,
           storage::EncodeCounter(next.version)),
      Cell(internal::kAuditFamily, internal::kAuditBeforeColumn, current ? current->json : ""),
      Cell(internal::kAuditFamily, internal::kAuditAfterColumn, next.json)};
  audit.durability = storage::Durability::kSyncWal;
  if (absl::Status s = store_.Put(storage::kCampaignAuditTable, audit); !s.ok()) return s;
  return next;
}

absl::StatusOr<CampaignRecord> CampaignStore::Create(std::string_view json,
                                                     std::string_view operator_name) {
  absl::StatusOr<Json> object = ParseObject(json);
  if (!object.ok()) return object.status();
  absl::StatusOr<config::CampaignConfig> campaign = validate_(object->dump());
  if (!campaign.ok()) return campaign.status();
  CampaignRecord record;
  record.id = campaign->id;
  record.json = Stored(*std::move(object));
  record.state = campaign->enabled ? CampaignState::kActive : CampaignState::kPaused;
  return Write(std::nullopt, std::move(record), "create", operator_name);
}

absl::StatusOr<CampaignRecord> CampaignStore::Current(std::string_view id,
                                                      int64_t expected_version) {
  absl::StatusOr<std::optional<CampaignRecord>> current = Get(id);
  if (!current.ok()) return current.status();
  if (!*current) return absl::NotFoundError(absl::StrCat("no campaign ", Str(id)));
  if ((*current)->version != expected_version) {
    return absl::AbortedError(absl::StrCat("campaign ", Str(id), " is at version ",
                                           (*current)->version, ", not ", expected_version));
  }
  return **current;
}

absl::StatusOr<CampaignRecord> CampaignStore::Update(std::string_view id, std::string_view json,
                                                     int64_t expected_version,
                                                     std::string_view operator_name) {
  absl::StatusOr<CampaignRecord> current = Current(id, expected_version);
  if (!current.ok()) return current.status();
  if (current->state == CampaignState::kArchived) {
    return absl::FailedPreconditionError(absl::StrCat("campaign ", Str(id), " is archived"));
  }
  absl::StatusOr<Json> object = ParseObject(json);
  if (!object.ok()) return object.status();
  absl::StatusOr<config::CampaignConfig> campaign = validate_(object->dump());
  if (!campaign.ok()) return campaign.status();
  if (campaign->id != id) {
    return absl::InvalidArgumentError(
        absl::StrCat("id: must stay ", Str(id), " (a campaign id never changes)"));
  }
  CampaignRecord next = *current;
  next.json = Stored(*std::move(object));
  return Write(*current, std::move(next), "update", operator_name);
}

absl::StatusOr<CampaignRecord> CampaignStore::Patch(std::string_view id,
                                                    std::string_view merge_patch,
                                                    int64_t expected_version,
                                                    std::string_view operator_name) {
  absl::StatusOr<CampaignRecord> current = Current(id, expected_version);
  if (!current.ok()) return current.status();
  Json patch = Json::parse(merge_patch, nullptr, /*allow_exceptions=*/false);
  if (patch.is_discarded()) return absl::InvalidArgumentError("malformed JSON");
  absl::StatusOr<Json> object = ParseObject(current->json);
  if (!object.ok()) return object.status();
  object->merge_patch(patch);
  absl::StatusOr<CampaignRecord> updated =
      Update(id, object->dump(), expected_version, operator_name);
  return updated;
}

absl::StatusOr<CampaignRecord> CampaignStore::SetState(std::string_view id, CampaignState state,
                                                       int64_t expected_version,
                                                       std::string_view operator_name) {
  absl::StatusOr<CampaignRecord> current = Current(id, expected_version);
  if (!current.ok()) return current.status();
  if (current->state == CampaignState::kArchived) {
    return absl::FailedPreconditionError(
        absl::StrCat("campaign ", Str(id), " is archived; archiving is final"));
  }
  CampaignRecord next = *current;
  next.state = state;
  const char* action = state == CampaignState::kActive   ? "resume"
                       : state == CampaignState::kPaused ? "pause"
                                                         : "archive";
  return Write(*current, std::move(next), action, operator_name);
}

absl::StatusOr<std::optional<CampaignRecord>> CampaignStore::Get(std::string_view id) {
  storage::Get get;
  get.row = Str(id);
  absl::StatusOr<storage::RowResult> row = store_.Get(storage::kCampaignsTable, get);
  if (!row.ok()) return row.status();
  return RecordOf(*row);
}

absl::StatusOr<std::vector<CampaignRecord>> CampaignStore::List(const CampaignFilter& filter,
                                                                int limit) {
  std::vector<CampaignRecord> out;
  storage::Scan scan;
  scan.caching = 1000;
  auto scanner = store_.OpenScanner(storage::kCampaignsTable, scan);
  if (!scanner.ok()) return scanner.status();
  while (static_cast<int>(out.size()) < limit) {
    absl::StatusOr<std::vector<storage::RowResult>> batch = (*scanner)->Next(1000);
    if (!batch.ok()) return batch.status();
    if (batch->empty()) break;
    for (const storage::RowResult& row : *batch) {
      std::optional<CampaignRecord> record = RecordOf(row);
      if (!record) continue;
      if (filter.state && record->state != *filter.state) continue;
      if (!filter.advertiser.empty()) {
        const Json json = Json::parse(record->json, nullptr, /*allow_exceptions=*/false);
        const Json domains =
            json.is_object() ? json.value("advertiser_domains", Json::array()) : Json::array();
        if (std::find(domains.begin(), domains.end(), filter.advertiser) == domains.end()) {
          continue;
        }
      }
      out.push_back(*std::move(record));
      if (static_cast<int>(out.size()) >= limit) break;
    }
  }
  return out;
}

absl::StatusOr<std::vector<AuditEntry>> CampaignStore::History(std::string_view id, int limit) {
  storage::Scan scan;
  scan.prefix = internal::AuditPrefix(id);
  scan.limit = limit;
  scan.caching = std::min(limit, 1000);
  absl::StatusOr<std::vector<storage::RowResult>> rows =
      store_.Scan(storage::kCampaignAuditTable, scan);
  if (!rows.ok()) return rows.status();
  std::vector<AuditEntry> out;
  for (const storage::RowResult& row : *rows) {
    std::optional<int64_t> at = internal::AuditTime(row.row);
    if (!at) continue;
    const std::string_view f = internal::kAuditFamily;
    AuditEntry entry;
    entry.campaign_id = Str(id);
    entry.at_ms = *at;
    entry.operator_name = Str(row.Value(f, internal::kAuditOperatorColumn).value_or(""));
    entry.action = Str(row.Value(f, internal::kAuditActionColumn).value_or(""));
    entry.version = row.Counter(f, internal::kAuditVersionColumn).value_or(0);
    entry.before = Str(row.Value(f, internal::kAuditBeforeColumn).value_or(""));
    entry.after = Str(row.Value(f, internal::kAuditAfterColumn).value_or(""));
    out.push_back(std::move(entry));
  }
  return out;
}

absl::StatusOr<CampaignChanges> CampaignStore::ChangesSince(uint64_t sequence, int limit) {
  storage::Scan scan;
  scan.start_row = internal::ChangeRow(sequence + 1);
  scan.limit = limit;
  scan.caching = std::min(limit, 1000);
  absl::StatusOr<std::vector<storage::RowResult>> rows =
      store_.Scan(storage::kCampaignChangesTable, scan);
  if (!rows.ok()) return rows.status();
  CampaignChanges changes;
  changes.last_sequence = sequence;
  const int64_t now = clock_->NowMillis();
  for (const storage::RowResult& row : *rows) {
    std::optional<uint64_t> seq = internal::SequenceOfChangeRow(row.row);
    if (!seq) continue;
    const int64_t at = row.Counter(internal::kChangeFamily, internal::kChangeAtColumn).value_or(0);
    // A hole before this entry may still be filled by a slower writer: wait
    // for it a while, so its change is not stepped over.
    if (*seq != changes.last_sequence + 1 && now - at < kGapPatienceMs) break;
    const std::string id =
        Str(row.Value(internal::kChangeFamily, internal::kChangeIdColumn).value_or(""));
    if (!id.empty() && std::find(changes.campaign_ids.begin(), changes.campaign_ids.end(), id) ==
                           changes.campaign_ids.end()) {
      changes.campaign_ids.push_back(id);
    }
    changes.last_sequence = *seq;
  }
  return changes;
}

absl::StatusOr<uint64_t> CampaignStore::LastSequence() {
  storage::Get get;
  get.row = Str(internal::kChangeCounterRow);
  absl::StatusOr<storage::RowResult> row = store_.Get(storage::kCampaignsTable, get);
  if (!row.ok()) return row.status();
  return static_cast<uint64_t>(
      row->Counter(kCampaignFamily, internal::kChangeCounterColumn).value_or(0));
}

absl::StatusOr<bool> CampaignStore::SeedIfEmpty(const std::vector<std::string>& campaign_jsons,
                                                std::string_view operator_name) {
  absl::StatusOr<std::vector<CampaignRecord>> existing = List({}, 1);
  if (!existing.ok()) return existing.status();
  if (!existing->empty()) return false;
  absl::StatusOr<uint64_t> last = LastSequence();
  if (!last.ok()) return last.status();
  if (*last != 0) return false;  // campaigns were written before: not a first start
  for (const std::string& json : campaign_jsons) {
    absl::StatusOr<Json> object = ParseObject(json);
    if (!object.ok()) return object.status();
    absl::StatusOr<config::CampaignConfig> campaign = validate_(object->dump());
    if (!campaign.ok()) return campaign.status();
    CampaignRecord record;
    record.id = campaign->id;
    record.json = object->dump();
    record.state = campaign->enabled ? CampaignState::kActive : CampaignState::kPaused;
    if (absl::StatusOr<CampaignRecord> r =
            Write(std::nullopt, std::move(record), "seed", operator_name);
        !r.ok()) {
      return r.status();
    }
  }
  return true;
}

}  // namespace rtb::bidder::campaigns

// Campaigns in the store: the source of truth for what the bidder may buy,
// changed while it runs (by the admin API, the console, `rtb-campaigns
// import`). Each campaign is one row holding its JSON object (the form of an
// entry of the config file's `campaigns[]`), a version, a state and who
// changed it last; every change is
//   - a CheckAndMutate on the version the caller read, so a concurrent stale
//     edit fails with Aborted naming the current version (the API's 409),
//     never a lost update;
//   - an audit record (operator, time, action, the JSON before and after);
//   - an entry of the change log, which workers read to rebuild their
//     campaign index within seconds without reading the whole table.
// A campaign id is never reused: archiving keeps the row, and creating an id
// that exists, in any state, is AlreadyExists.
//
// Validation is the config file's (same rules, same "<path>: <what is
// wrong>" messages, every problem at once), passed in as a Validator so this
// module does not need the bidder's configuration.
//
// Row layouts: bidder/campaigns/internal/keys.h. Tables: storage/schemas.h
// (campaigns, campaign_changes, campaign_audit).
//
// Thread-safety: every method may be called from any thread; the store
// serialises what must be (CheckAndMutate).
#ifndef RTB_BIDDER_CAMPAIGNS_CAMPAIGN_STORE_H_
#define RTB_BIDDER_CAMPAIGNS_CAMPAIGN_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "config/config.h"
#include "storage/clock.h"
#include "storage/store.h"

namespace rtb::bidder::campaigns {

enum class CampaignState { kActive, kPaused, kArchived };
const char* CampaignStateName(CampaignState state);
std::optional<CampaignState> ParseCampaignState(std::string_view name);

struct CampaignRecord {
  std::string id;
  std::string json;     // the campaign object, compact
  int64_t version = 0;  // 1 when created, +1 per change
  CampaignState state = CampaignState::kActive;
  int64_t updated_ms = 0;
  std::string updated_by;
};

struct AuditEntry {
  std::string campaign_id;
  int64_t at_ms = 0;
  std::string operator_name;
  std::string action;   // create, update, patch, pause, resume, archive, import, seed
  int64_t version = 0;  // the version the change made
  std::string before;   // JSON ("" for a create)
  std::string after;
};

struct CampaignFilter {
  std::optional<CampaignState> state;
  // An advertiser domain the campaign lists; "" for any.
  std::string advertiser;
};

// What changed since a point of the change log.
struct CampaignChanges {
  std::vector<std::string> campaign_ids;  // in change order, without repeats
  uint64_t last_sequence = 0;             // pass to the next ChangesSince
};

class CampaignStore {
 public:
  // Decodes and validates one campaign object; InvalidArgument listing every
  // problem as "<path>: <what is wrong>" (paths relative to the campaign).
  using Validator = std::function<absl::StatusOr<config::CampaignConfig>(std::string_view json)>;

  // `store` must hold the campaign tables and outlive this.
  CampaignStore(storage::Store& store, std::shared_ptr<storage::Clock> clock, Validator validate);

  // A new campaign from its JSON object. AlreadyExists when the id was ever
  // used. The state starts active unless the object says "enabled": false;
  // "enabled" is not kept in the object (the state is), and is ignored by
  // Update and Patch: pause and resume are SetState.
  absl::StatusOr<CampaignRecord> Create(std::string_view json, std::string_view operator_name);
  // Replaces the campaign's object (its id must stay). Aborted when
  // `expected_version` is not the current one; NotFound for an unknown id;
  // FailedPrecondition for an archived campaign.
  absl::StatusOr<CampaignRecord> Update(std::string_view id, std::string_view json,
                                        int64_t expected_version, std::string_view operator_name);
  // Applies a JSON merge patch (RFC 7386) to the object, then as Update.
  absl::StatusOr<CampaignRecord> Patch(std::string_view id, std::string_view merge_patch,
                                       int64_t expected_version, std::string_view operator_name);
  // Pause, resume or archive. Archiving is final.
  absl::StatusOr<CampaignRecord> SetState(std::string_view id, CampaignState state,
                                          int64_t expected_version, std::string_view operator_name);

  absl::StatusOr<std::optional<CampaignRecord>> Get(std::string_view id);
  // Every campaign matching `filter`, by id; at most `limit`.
  absl::StatusOr<std::vector<CampaignRecord>> List(const CampaignFilter& filter = {},
                                                   int limit = 100000);
  // The campaign's audit records, newest first; at most `limit`.
  absl::StatusOr<std::vector<AuditEntry>> History(std::string_view id, int limit = 100);

  // The change log after `sequence` (0: from the start); at most `limit`
  // entries read.
  absl::StatusOr<CampaignChanges> ChangesSince(uint64_t sequence, int limit = 10000);
  // The newest sequence of the change log (0 when there is none).
  absl::StatusOr<uint64_t> LastSequence();

  // When the store holds no campaign at all, creates `campaign_jsons` (the
  // config file's campaigns[], as JSON objects) and returns true; otherwise
  // changes nothing and returns false. Stops at the first that fails.
  absl::StatusOr<bool> SeedIfEmpty(const std::vector<std::string>& campaign_jsons,
                                   std::string_view operator_name);

 private:
  // Writes `next` over `current` (nullopt: create) with its audit record and
  // change-log entry.
  absl::StatusOr<CampaignRecord> Write(const std::optional<CampaignRecord>& current,
                                       CampaignRecord next, std::string_view action,
                                       std::string_view operator_name);
  absl::StatusOr<CampaignRecord> Current(std::string_view id, int64_t expected_version);

  storage::Store& store_;
  std::shared_ptr<storage::Clock> clock_;
  Validator validate_;
};

}  // namespace rtb::bidder::campaigns

#endif  // RTB_BIDDER_CAMPAIGNS_CAMPAIGN_STORE_H_

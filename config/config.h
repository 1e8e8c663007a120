// Typed configuration of the bidder: one struct per module section (each
// section's structs in a header of its own, included here), loaded from one
// JSON file and validated before anything starts.
//
// The JSON keys are the field names below, section by section:
//
//   { "server": {...}, "storage": {...}, "bid": {...}, "campaigns": [...],
//     "pacing": {...}, "telemetry": {...}, "events": {...}, "sessions": {...},
//     "metrics": {...}, "privacy": {...}, "pricing": {...} }
//
// Loading rules:
//   - A missing optional field takes the default written beside it here; a
//     missing section takes the defaults of all its fields.
//   - An unknown key at any level is an error naming the key (a misspelt
//     option must not be silently ignored), and so is a key given twice in
//     one object.
//   - A value of the wrong JSON type is an error naming its path; integers
//     must be JSON integers (1.0 is not accepted where a count is expected).
//   - Every value is range- and syntax-checked, and cross-field rules are
//     checked (see ValidateConfig). All errors found are reported together,
//     each as `<path>: <what is wrong>`, e.g.
//       campaigns[3].creatives[0].w: must be > 0
//   - Secrets (bid.device_key_secret, bid.beacon_secret) and password hashes
//     never appear in an error message, whatever is wrong with them.
//   - Relative file paths are relative to the process's working directory.
//
// Thread-safety: the structs are plain values; the functions are safe to call
// from any thread (they read the process environment for *_secret_env).
#ifndef RTB_CONFIG_CONFIG_H_
#define RTB_CONFIG_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "config/bid_config.h"
#include "config/campaign_config.h"
#include "config/operations_config.h"
#include "config/pacing_config.h"
#include "config/server_config.h"
#include "config/storage_config.h"

namespace rtb::config {

// The whole configuration, one member per section.
struct BidderConfig {
  ServerConfig server;
  StorageConfig storage;
  BidConfig bid;
  std::vector<CampaignConfig> campaigns;
  PacingConfig pacing;
  CampaignStoreConfig campaign_store;
  TelemetryConfig telemetry;
  EventsConfig events;
  BeaconLogConfig beacon_log;
  SessionsConfig sessions;
  MetricsConfig metrics;
  PrivacyConfig privacy;
  PricingConfig pricing;
};

// Parses and validates a configuration document. Reads the environment
// variables named by *_secret_env. InvalidArgument lists every problem found.
absl::StatusOr<BidderConfig> ParseConfig(std::string_view json);

// Reads `path` and parses it as ParseConfig does; errors are prefixed with the
// path. NotFound / PermissionDenied / InvalidArgument when it cannot be read.
absl::StatusOr<BidderConfig> LoadConfigFile(const std::string& path);

// The checks ParseConfig applies after decoding: ranges, syntax, uniqueness
// and cross-field rules, on a config built in code. Secrets must already be
// resolved (the *_secret fields filled).
absl::Status ValidateConfig(const BidderConfig& config);

// One campaign given as a JSON object (the form of an entry of campaigns[]),
// decoded and checked by the same rules as ParseConfig, in the context of
// `context` (its default currency and currency rates). Every problem at once,
// as "<path>: <what is wrong>" with paths relative to the campaign
// ("creatives[0].w: must be > 0"). Rules across campaigns (unique ids) are
// the caller's.
absl::StatusOr<CampaignConfig> ParseCampaign(std::string_view json, const BidderConfig& context);
absl::Status ValidateCampaign(const CampaignConfig& campaign, const BidderConfig& context);
// The campaign as a JSON object ParseCampaign reads back to an equal
// campaign: its identity, budget, pacing, bid, goal and targeting fields and
// its creatives' basic fields as they are now, defaults included ("dsa" only
// when set), over the object it was read from (source_json), whose other
// fields (a creative's attr, native assets, video protocols...) stay as read.
std::string CampaignToJson(const CampaignConfig& campaign);

// The JSON spelling of each enum value ("storage-server", "no-bid", ...).
const char* StorageBackendName(StorageBackend backend);
const char* ThriftTransportName(ThriftTransport transport);
const char* CoppaPolicyName(CoppaPolicy policy);
const char* PacingModeName(PacingMode mode);
const char* StoreOutagePolicyName(StoreOutagePolicy policy);
// Whether `campaign` may bid while its profile cannot be read (its
// store_outage_policy applied to its cap and segments); disabled campaigns
// never bid.
bool BidsWithoutProfile(const CampaignConfig& campaign);
const char* CreativeFormatName(CreativeFormat format);
const char* BillingNoticeName(BillingNotice notice);
const char* StartSlotName(StartSlot slot);
const char* RewardedPolicyName(RewardedPolicy policy);
const char* PacingProcessModeName(PacingProcessMode mode);
const char* CampaignGoalName(CampaignGoal goal);
// A schedule's start or end (RFC 3339 with an offset or Z) as Unix ms;
// nullopt when it is not one.
std::optional<int64_t> ScheduleInstantMillis(std::string_view rfc3339);
// A daypart's day, "mon" (0) to "sun" (6); nullopt for anything else.
std::optional<int> ScheduleDayIndex(std::string_view day);

}  // namespace rtb::config

#endif  // RTB_CONFIG_CONFIG_H_

// Every table of rtb-bidder, defined once. The same definitions create the
// tables in the embedded engine, in HBase (through the Thrift2 admin calls)
// and in the storage server, and the tests check them; a TTL changes here
// and nowhere else. Layouts and retention follow DESIGN.md and the seeds.
#ifndef RTB_STORAGE_SCHEMAS_H_
#define RTB_STORAGE_SCHEMAS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "storage/types.h"

namespace rtb::storage {

// Table names.
inline constexpr std::string_view kProfilesTable = "profiles";
inline constexpr std::string_view kImpressionsTable = "impressions";
inline constexpr std::string_view kDeviceImpressionsTable = "device_impressions";
inline constexpr std::string_view kBudgetTable = "budget";
inline constexpr std::string_view kSpendJournalTable = "spend_journal";
inline constexpr std::string_view kEventsTable = "events";
inline constexpr std::string_view kEventsByTypeTable = "events_by_type";
inline constexpr std::string_view kEventRollupsTable = "event_rollups";
inline constexpr std::string_view kErasuresTable = "erasures";
inline constexpr std::string_view kMetricsTable = "metrics";
inline constexpr std::string_view kMetricIdsTable = "metric_ids";
inline constexpr std::string_view kMetricSeriesTable = "metric_series";
inline constexpr std::string_view kMetricRollupsTable = "metric_rollups";
inline constexpr std::string_view kSessionsTable = "sessions";
inline constexpr std::string_view kUserSessionsTable = "user_sessions";
inline constexpr std::string_view kCampaignsTable = "campaigns";
inline constexpr std::string_view kCampaignChangesTable = "campaign_changes";
inline constexpr std::string_view kCampaignAuditTable = "campaign_audit";
inline constexpr std::string_view kPricingTable = "pricing";
inline constexpr std::string_view kLeasesTable = "leases";
inline constexpr std::string_view kFleetJobsTable = "fleet_jobs";

// Family names, by table: BidderTables() creates the families under these
// names and the modules that read and write the rows use the same constants
// (their row layouts may give them a local alias), so a family is named once.
// Column names live beside the row layout that uses them.
inline constexpr std::string_view kProfileSegmentFamily = "seg";      // profiles
inline constexpr std::string_view kProfileFrequencyCapFamily = "fc";  // profiles
inline constexpr std::string_view kImpressionFamily = "i";            // impressions
inline constexpr std::string_view kDeviceImpressionFamily = "x";      // device_impressions
inline constexpr std::string_view kBudgetSpendFamily = "spend";       // budget
inline constexpr std::string_view kSpendJournalEntryFamily = "e";     // spend_journal
inline constexpr std::string_view kSpendJournalCounterFamily = "n";   // spend_journal
inline constexpr std::string_view kEventsTimelineFamily = "d";        // events
inline constexpr std::string_view kEventsByTypeIndexFamily = "i";     // events_by_type
inline constexpr std::string_view kEventRollupsCountFamily = "c";     // event_rollups
inline constexpr std::string_view kErasuresFamily = "e";              // erasures
inline constexpr std::string_view kMetricsRawFamily = "d";            // metrics
inline constexpr std::string_view kMetricsPackedFamily = "p";         // metrics
inline constexpr std::string_view kMetricIdsFamily = "i";             // metric_ids
inline constexpr std::string_view kMetricSeriesFamily = "s";          // metric_series
inline constexpr std::string_view kMetricRollupsMinuteFamily = "m";   // metric_rollups
inline constexpr std::string_view kMetricRollupsHourFamily = "h";     // metric_rollups
inline constexpr std::string_view kSessionsFamily = "s";              // sessions
inline constexpr std::string_view kUserSessionsFamily = "s";          // user_sessions
inline constexpr std::string_view kCampaignsFamily = "c";             // campaigns
inline constexpr std::string_view kLeasesFamily = "l";                // leases
inline constexpr std::string_view kFleetJobsFamily = "j";             // fleet_jobs
inline constexpr std::string_view kCampaignChangesFamily = "x";       // campaign_changes
inline constexpr std::string_view kCampaignAuditFamily = "a";         // campaign_audit
inline constexpr std::string_view kPricingOutcomeFamily = "o";        // pricing
inline constexpr std::string_view kPricingEngagementFamily = "r";     // pricing
inline constexpr std::string_view kPricingModelFamily = "m";          // pricing
// The `impressions` column naming the spend journal entry of the claim
// (layout: bidder/events/impressions.h); pacing reads it to tell whether an
// entry's impression was claimed.
inline constexpr std::string_view kImpressionJournalColumn = "j";

// Retention that operators configure; everything else is fixed by design.
struct TableOptions {
  // How long impressions (and the device -> impression index) stay joinable
  // to clicks and conversions, seconds. Default 7 days.
  int64_t attribution_window_seconds = 7 * 24 * 3600;
  // Absolute session lifetime, seconds: the sessions family TTL acts as the
  // garbage collector. Default 8 hours.
  int64_t session_lifetime_seconds = 8 * 3600;
};

std::vector<TableSchema> BidderTables(const TableOptions& options = {});

}  // namespace rtb::storage

#endif  // RTB_STORAGE_SCHEMAS_H_

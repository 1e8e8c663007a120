#include "storage/schemas.h"

#include <string>
#include <utility>
#include <vector>

namespace rtb::storage {
namespace {

constexpr int64_t kDay = 24 * 3600;

// `count` - 1 split keys dividing the first key byte into equal ranges, for
// tables keyed by a uniform hash.
std::vector<std::string> HashSplits(int count) {
  std::vector<std::string> splits;
  for (int i = 1; i < count; ++i)
    splits.push_back(std::string(1, static_cast<char>(i * 256 / count)));
  return splits;
}

// Split keys on every value of a one-byte salt: 1 .. count-1.
std::vector<std::string> SaltSplits(int count) {
  std::vector<std::string> splits;
  for (int i = 1; i < count; ++i) splits.push_back(std::string(1, static_cast<char>(i)));
  return splits;
}

FamilyOptions Family(std::string_view name, int64_t ttl_seconds) {
  FamilyOptions f;
  f.name = std::string(name);
  f.ttl_seconds = ttl_seconds;
  return f;
}

TableSchema Table(std::string_view name, std::vector<FamilyOptions> families,
                  std::vector<std::string> split_keys = {}) {
  TableSchema t;
  t.name = std::string(name);
  t.families = std::move(families);
  t.split_keys = std::move(split_keys);
  return t;
}

// profiles: row = first 16 bytes of HMAC-SHA256(secret, device id).
// seg: segment id -> score byte, written by batch loads. fc: campaignId|yyyymmdd
// -> 8-byte counter, incremented by impression beacons with a cell TTL.
TableSchema ProfilesTable() {
  FamilyOptions seg = Family(kProfileSegmentFamily, 30 * kDay);
  seg.bloom = BloomType::kRow;
  FamilyOptions fc = Family(kProfileFrequencyCapFamily, 2 * kDay);
  fc.in_memory = true;
  TableSchema t = Table(kProfilesTable, {seg, fc}, HashSplits(16));
  t.region_replication = 2;
  return t;
}

// impressions: row = impression id; family i holds campaign, creative,
// device key, price and time for the attribution window.
TableSchema ImpressionsTable(const TableOptions& options) {
  return Table(kImpressionsTable, {Family(kImpressionFamily, options.attribution_window_seconds)},
               HashSplits(16));
}

// device_impressions: row = device key(16) + reverse ms(8) + impression id,
// so a privacy erasure finds a device's impressions with one prefix scan.
TableSchema DeviceImpressionsTable(const TableOptions& options) {
  return Table(kDeviceImpressionsTable,
               {Family(kDeviceImpressionFamily, options.attribution_window_seconds)},
               HashSplits(16));
}

// budget: row = campaignId|NN (NN = worker id mod 16); family spend,
// qualifier = day in the campaign's time zone, value = micro-currency counter.
TableSchema BudgetTable() { return Table(kBudgetTable, {Family(kBudgetSpendFamily, 400 * kDay)}); }

// spend_journal: row = worker id(2) + sequence(8) per recorded impression not yet
// flushed to `budget` (family e: campaign, day, amount, impression id; 7-day TTL as
// a backstop, the flusher deletes them); row = worker id(2) holds n:seq, the highest
// sequence the worker reserved (no TTL: sequences are never reused).
// Layout: pacing/internal/spend_journal_layout.h.
TableSchema SpendJournalTable() {
  return Table(kSpendJournalTable, {Family(kSpendJournalEntryFamily, 7 * kDay),
                                    Family(kSpendJournalCounterFamily, kForever)});
}

// events (timeline): salt(2) + user(16) + reverse ms(8) + event id(16); d holds
// type, ts (event time), body, summary and the replay marker. TTL 90 days counted
// from ingest: cell timestamps are the server's. Layout: bidder/events/internal/keys.h.
TableSchema EventsTable() {
  return Table(kEventsTable, {Family(kEventsTimelineFamily, 90 * kDay)}, HashSplits(16));
}

// events_by_type (index): bucket(1, event id hash mod 16) + type(4) + reverse ms(8) +
// user(16) + event id(16); i:s holds the summary. TTL 30 days.
TableSchema EventsByTypeTable() {
  return Table(kEventsByTypeTable, {Family(kEventsByTypeIndexFamily, 30 * kDay)}, SaltSplits(16));
}

// event_rollups: salt(2) + user(16) + day (yyyymmdd, UTC); c holds one counter per
// event type, qualifier = type name. TTL 2 years.
TableSchema EventRollupsTable() {
  return Table(kEventRollupsTable, {Family(kEventRollupsCountFamily, 730 * kDay)}, HashSplits(16));
}

// erasures: row = 's' + device key: the erasure request and its steps (kept for
// good, so replayed beacons for an erased device are skipped at ingest); row =
// 'p' + device key while the erasure still has steps to finish.
TableSchema ErasuresTable() { return Table(kErasuresTable, {Family(kErasuresFamily, kForever)}); }

// metrics: salt(1) + metric id(4) + series id(8) + bucket start(4).
// d: raw points, qualifier = 2-byte offset, two days, FIFO-compacted.
// p: one packed block per closed bucket.
TableSchema MetricsTable() {
  FamilyOptions d = Family(kMetricsRawFamily, 2 * kDay);
  d.compression = Compression::kSnappy;
  d.fifo_compaction = true;
  d.configuration = {
      {"hbase.hstore.defaultengine.compactionpolicy.class",
       "org.apache.hadoop.hbase.regionserver.compactions.FIFOCompactionPolicy"},
      {"hbase.hstore.blockingStoreFiles", "1000"},
  };
  FamilyOptions p = Family(kMetricsPackedFamily, kForever);
  p.compression = Compression::kNone;
  p.bloom = BloomType::kRow;
  return Table(kMetricsTable, {d, p}, SaltSplits(16));
}

// metric_ids: the telemetry registry. Row "c" holds the id counter (advanced with
// CheckAndMutate), "n" + metric name -> 4-byte id, "r" + id -> name, "k"/"v" + tag
// key/value -> "" for suggestions, "packer" -> the packer's last run.
// Layout: bidder/telemetry/internal/keys.h.
TableSchema MetricIdsTable() {
  return Table(kMetricIdsTable, {Family(kMetricIdsFamily, kForever)});
}

// metric_series: the series index. "s" + metric id(4) + series id(8) -> sorted tags;
// "t" + metric id(4) + tag key + 0 + tag value + 0 + series id(8) -> ""; row "c" holds
// the series counters (total and per metric id) the cardinality limits read.
TableSchema MetricSeriesTable() {
  return Table(kMetricSeriesTable, {Family(kMetricSeriesFamily, kForever)});
}

// metric_rollups: salt(1) + metric id(4) + series id(8) + day start(4), as metrics.
// qualifier = 2-byte hour of the day. h: the hour's rollup, count(8) + sum, min,
// max (8 each); m: the hour's 1-minute rollups in one cell (minute(2) + rollup each).
TableSchema MetricRollupsTable() {
  FamilyOptions m = Family(kMetricRollupsMinuteFamily, 400 * kDay);
  m.compression = Compression::kSnappy;
  FamilyOptions h = Family(kMetricRollupsHourFamily, kForever);
  h.compression = Compression::kSnappy;
  return Table(kMetricRollupsTable, {m, h}, SaltSplits(16));
}

// sessions: row = SHA-256(token); s holds one state cell and a ver cell.
TableSchema SessionsTable(const TableOptions& options) {
  FamilyOptions s = Family(kSessionsFamily, options.session_lifetime_seconds);
  s.bloom = BloomType::kRow;
  s.compression = Compression::kSnappy;
  return Table(kSessionsTable, {s}, HashSplits(16));
}

// user_sessions: salt(2) + user + reverse creation time; qualifier = session key.
TableSchema UserSessionsTable(const TableOptions& options) {
  return Table(kUserSessionsTable, {Family(kUserSessionsFamily, options.session_lifetime_seconds)},
               HashSplits(16));
}

// Campaigns, changed while the bidder runs (bidder/campaigns/internal/keys.h):
// one row per campaign (its JSON, version, state); the change log the
// workers follow (a week is far longer than any worker lags); the audit
// history, kept for good.
TableSchema CampaignsTable() {
  return Table(kCampaignsTable, {Family(kCampaignsFamily, kForever)});
}
TableSchema CampaignChangesTable() {
  return Table(kCampaignChangesTable, {Family(kCampaignChangesFamily, 7 * kDay)});
}
TableSchema CampaignAuditTable() {
  return Table(kCampaignAuditTable, {Family(kCampaignAuditFamily, kForever)});
}

// pricing: what bid shading and goal values learn from. Auction outcomes
// salt(1) + hour(4) + bucket(8), family o (8 days: the longest fit window
// and a day); campaign engagement campaignId|NN, family r (62 days); the
// published model "|model...", family m (2 days). Layout:
// pricing/internal/pricing_rows.h.
TableSchema PricingTable() {
  return Table(kPricingTable,
               {Family(kPricingOutcomeFamily, 8 * kDay),
                Family(kPricingEngagementFamily, 62 * kDay), Family(kPricingModelFamily, 2 * kDay)},
               SaltSplits(16));
}

// leases: row = a name one live process holds at a time (a worker id, a
// fleet job); l:h = the holder's token and description, with a cell TTL the
// holder renews. Layout: leases/lease.h.
TableSchema LeasesTable() { return Table(kLeasesTable, {Family(kLeasesFamily, kForever)}); }

// Where a job that runs in one process of the fleet at a time keeps its
// place, so that the next leader goes on from it: one row per job.
TableSchema FleetJobsTable() {
  return Table(kFleetJobsTable, {Family(kFleetJobsFamily, kForever)});
}

}  // namespace

std::vector<TableSchema> BidderTables(const TableOptions& options) {
  return {
      // The bid path: profiles and frequency caps, impressions for attribution.
      ProfilesTable(),
      ImpressionsTable(options),
      DeviceImpressionsTable(options),
      // Pacing.
      BudgetTable(),
      SpendJournalTable(),
      // Events and privacy erasures.
      EventsTable(),
      EventsByTypeTable(),
      EventRollupsTable(),
      ErasuresTable(),
      // Telemetry.
      MetricsTable(),
      MetricIdsTable(),
      MetricSeriesTable(),
      MetricRollupsTable(),
      // Operator sessions.
      SessionsTable(options),
      UserSessionsTable(options),
      // Campaigns and pricing.
      CampaignsTable(),
      CampaignChangesTable(),
      CampaignAuditTable(),
      PricingTable(),
      // The fleet: leased worker ids and jobs.
      LeasesTable(),
      FleetJobsTable(),
  };
}

}  // namespace rtb::storage

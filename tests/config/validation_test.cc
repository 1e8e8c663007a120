// The range, syntax, uniqueness and cross-field rules, one behaviour per
// test, each checked through ParseConfig and the path it reports.
#include <sodium.h>

#include <string>

#include "config/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/config/sample_config.h"

namespace rtb::config {
namespace {

using testing::BannerCreative;
using testing::Campaign;
using testing::ConfigWithCampaigns;
using ::testing::HasSubstr;
using testing::kBeaconSecret;
using testing::kDeviceKeySecret;
using testing::MinimalConfig;
using ::testing::Not;
using testing::ParseError;
using json = nlohmann::json;

// --- server ----------------------------------------------------------------

TEST(ServerValidationTest, ListenAddressMustBeAnIpLiteral) {
  json doc = MinimalConfig();
  doc["server"]["listen_address"] = "localhost";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.listen_address: must be an IPv4 or IPv6 address literal"));
  doc["server"]["listen_address"] = "::1";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(ServerValidationTest, PortOutOfRangeIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["port"] = -1;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.port: must be in [0, 65535], got -1"));
  doc["server"]["port"] = 0;
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(ServerValidationTest, ZeroIoThreadsIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["io_threads"] = 0;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.io_threads: must be > 0"));
}

TEST(ServerValidationTest, InflatedBodyLimitBelowBodyLimitIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["max_body_bytes"] = 100000;
  doc["server"]["max_inflated_body_bytes"] = 50000;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.max_inflated_body_bytes: must be in [100000, 67108864]"));
}

TEST(ServerValidationTest, TinyHeaderLimitIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["max_header_bytes"] = 100;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.max_header_bytes: must be in [1024, 1048576]"));
}

TEST(ServerValidationTest, FirstByteTimeoutMustBePositiveAndUnderAMinute) {
  json doc = MinimalConfig();
  doc["server"]["first_byte_timeout_ms"] = 0;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.first_byte_timeout_ms: must be > 0"));
  doc["server"]["first_byte_timeout_ms"] = 60001;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.first_byte_timeout_ms: must be in [1, 60000]"));
  doc["server"]["first_byte_timeout_ms"] = 100;
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(ServerValidationTest, IntakeNiceIsZeroToNineteenAndTheIntakeMayBeTurnedOff) {
  json doc = MinimalConfig();
  doc["server"]["intake_nice"] = -1;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.intake_nice: must be in [0, 19], got -1"));
  doc["server"]["intake_nice"] = 20;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.intake_nice: must be in [0, 19], got 20"));
  doc["server"]["intake_nice"] = 19;
  doc["server"]["intake_thread"] = "no";
  EXPECT_THAT(ParseError(doc), HasSubstr("server.intake_thread"));
  doc["server"]["intake_thread"] = false;
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(ServerValidationTest, MemoryTrimIntervalIsZeroToAnHour) {
  json doc = MinimalConfig();
  doc["server"]["memory_trim_interval_ms"] = -1;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.memory_trim_interval_ms: must be in [0, 3600000], got -1"));
  doc["server"]["memory_trim_interval_ms"] = 3600001;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.memory_trim_interval_ms: must be in [0, 3600000]"));
  doc["server"]["memory_trim_interval_ms"] = 0;
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(ServerValidationTest, PerPeerConnectionCapMustBePositive) {
  json doc = MinimalConfig();
  doc["server"]["max_connections_per_peer"] = 0;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.max_connections_per_peer: must be > 0"));
  // Above max_connections it is allowed: the global cap decides.
  doc["server"]["max_connections_per_peer"] = 20000;
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(ServerValidationTest, DuplicateExchangeNameIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "x"}, {"bid_path", "/a"}},
                                {{"name", "x"}, {"bid_path", "/b"}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.exchanges[1].name: duplicate of server.exchanges[0].name"));
}

TEST(ServerValidationTest, ExchangeNameMustBeLowerCaseIdentifier) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "Big Exchange"}, {"bid_path", "/a"}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.exchanges[0].name: must be 1-32 characters of [a-z0-9_-]"));
}

TEST(ServerValidationTest, DuplicateBidPathIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "a"}, {"bid_path", "/bid"}},
                                {{"name", "b"}, {"bid_path", "/bid"}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.exchanges[1].bid_path: same path as server.exchanges[0]"));
}

TEST(ServerValidationTest, BidPathCollidingWithServerEndpointsIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "a"}, {"bid_path", "/metrics"}}};
  EXPECT_THAT(ParseError(doc), HasSubstr("server.exchanges[0].bid_path: must not be /metrics"));
  doc["server"]["exchanges"] = {{{"name", "a"}, {"bid_path", "/healthz"}}};
  EXPECT_THAT(ParseError(doc), HasSubstr("server.exchanges[0].bid_path: must not be /healthz"));
}

TEST(ServerValidationTest, RelativeBidPathIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "a"}, {"bid_path", "bid?x=1"}}};
  EXPECT_THAT(ParseError(doc), HasSubstr("server.exchanges[0].bid_path: must be an absolute path"));
}

TEST(ServerValidationTest, NetworkAllowanceMustBeBelowTmax) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {
      {{"name", "a"}, {"default_tmax_ms", 50}, {"network_allowance_ms", 50}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.exchanges[0].network_allowance_ms: must be in [0, 49], got 50"));
}

TEST(ServerValidationTest, AuctionBudgetMustLeaveTimeForTheProfileLookup) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {
      {{"name", "a"}, {"default_tmax_ms", 10}, {"network_allowance_ms", 5}}};
  doc["bid"]["auction_budget_us"] = 5000;
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.auction_budget_us: must be below the 5000 us that "
                                         "server.exchanges[0] leaves"));
  doc["bid"]["auction_budget_us"] = 4999;
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(ServerValidationTest, UnknownOpenRtbVersionIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "a"}, {"openrtb_version", "3.0"}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.exchanges[0].openrtb_version: must be \"2.5\" or \"2.6\""));
}

// --- storage ---------------------------------------------------------------

TEST(StorageValidationTest, HBaseBackendRequiresEndpoints) {
  json doc = MinimalConfig();
  doc["storage"]["backend"] = "hbase";
  EXPECT_THAT(ParseError(doc), HasSubstr("storage.hbase.endpoints: at least one host:port is "
                                         "required for backend hbase"));
}

TEST(StorageValidationTest, StorageServerBackendIsReachedThroughHBaseEndpoints) {
  json doc = MinimalConfig();
  doc["storage"] = {{"backend", "storage-server"},
                    {"hbase", {{"endpoints", {"127.0.0.1:9191"}}, {"transport", "framed"}}}};
  absl::StatusOr<BidderConfig> config = testing::Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->storage.backend, StorageBackend::kStorageServer);
  EXPECT_EQ(config->storage.hbase.transport, ThriftTransport::kFramed);
  EXPECT_EQ(config->storage.hbase.endpoints[0], "127.0.0.1:9191");
}

TEST(StorageValidationTest, MalformedEndpointIsRejected) {
  json doc = MinimalConfig();
  doc["storage"] = {{"backend", "hbase"},
                    {"hbase", {{"endpoints", {"127.0.0.1:9090", "hbase-1", "[::1]:70000"}}}}};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("storage.hbase.endpoints[1]: must be host:port"));
  EXPECT_THAT(error, HasSubstr("storage.hbase.endpoints[2]: must be host:port"));
  EXPECT_THAT(error, Not(HasSubstr("endpoints[0]")));
}

TEST(StorageValidationTest, DuplicateEndpointIsRejected) {
  json doc = MinimalConfig();
  doc["storage"] = {{"backend", "hbase"},
                    {"hbase", {{"endpoints", {"127.0.0.1:9090", "127.0.0.1:9090"}}}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("storage.hbase.endpoints[1]: duplicate of storage.hbase.endpoints[0]"));
}

TEST(StorageValidationTest, HedgeDelayMustBeBelowCallTimeout) {
  json doc = MinimalConfig();
  doc["storage"] = {
      {"backend", "hbase"},
      {"hbase",
       {{"endpoints", {"127.0.0.1:9090"}}, {"call_timeout_ms", 50}, {"hedge_delay_ms", 50}}}};
  EXPECT_THAT(ParseError(doc), HasSubstr("storage.hbase.hedge_delay_ms: must be in [0, 49]"));
}

TEST(StorageValidationTest, InMemoryFractionOutOfRangeIsRejected) {
  json doc = MinimalConfig();
  doc["storage"]["embedded"]["in_memory_cache_fraction"] = 1.5;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("storage.embedded.in_memory_cache_fraction: must be in [0, 0.9]"));
}

TEST(StorageValidationTest, MemtableBudgetMustFitInTheBlockCachesShare) {
  json doc = MinimalConfig();
  doc["storage"]["embedded"]["block_cache_mib"] = 64;
  doc["storage"]["embedded"]["in_memory_cache_fraction"] = 0.25;
  doc["storage"]["embedded"]["memtable_budget_mib"] = 48;
  EXPECT_EQ(ParseError(doc), "OK");
  doc["storage"]["embedded"]["memtable_budget_mib"] = 49;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("storage.embedded.memtable_budget_mib: must be in [-1, 48], got 49"));
  doc["storage"]["embedded"]["memtable_budget_mib"] = -2;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("storage.embedded.memtable_budget_mib: must be in [-1, 48]"));
}

TEST(StorageValidationTest, RowCacheSizeMayBeZeroButNotNegative) {
  json doc = MinimalConfig();
  doc["storage"]["embedded"]["row_cache_mib"] = 0;
  EXPECT_EQ(ParseError(doc), "OK");
  doc["storage"]["embedded"]["row_cache_mib"] = -1;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("storage.embedded.row_cache_mib: must be in [0, 1048576], got -1"));
}

TEST(StorageValidationTest, EmptyEmbeddedPathIsRejected) {
  json doc = MinimalConfig();
  doc["storage"]["embedded"]["path"] = "";
  EXPECT_THAT(ParseError(doc), HasSubstr("storage.embedded.path: must not be empty"));
}

TEST(StorageValidationTest, EmbeddedOptionsAreNotCheckedForHBaseBackend) {
  json doc = MinimalConfig();
  doc["storage"] = {{"backend", "hbase"},
                    {"embedded", {{"block_cache_mib", 0}}},
                    {"hbase", {{"endpoints", {"127.0.0.1:9090"}}}}};
  EXPECT_EQ(ParseError(doc), "OK");
}

// --- bid -------------------------------------------------------------------

TEST(BidValidationTest, CurrencyRateMustBePositive) {
  json doc = MinimalConfig();
  doc["bid"]["currency_rates"] = {{"EUR", 0}, {"GBP", -1.2}};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("bid.currency_rates.EUR: must be > 0"));
  EXPECT_THAT(error, HasSubstr("bid.currency_rates.GBP: must be > 0"));
}

TEST(BidValidationTest, CurrencyCodeMustBeIso4217) {
  json doc = MinimalConfig();
  doc["bid"]["currency_rates"] = {{"eur", 1.08}, {"EURO", 1.08}, {"ABC", 1.0}};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("bid.currency_rates.eur: must be an ISO 4217 currency code"));
  EXPECT_THAT(error, HasSubstr("bid.currency_rates.EURO: must be an ISO 4217 currency code"));
  EXPECT_THAT(error, HasSubstr("bid.currency_rates.ABC: must be an ISO 4217 currency code"));
}

TEST(BidValidationTest, UsdRateOtherThanOneIsRejected) {
  json doc = MinimalConfig();
  doc["bid"]["currency_rates"] = {{"USD", 1.1}};
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.currency_rates.USD: must be 1"));
}

TEST(BidValidationTest, DefaultCurrencyNeedsARate) {
  json doc = MinimalConfig();
  doc["bid"]["default_currency"] = "EUR";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("bid.default_currency: EUR has no rate in bid.currency_rates"));
}

TEST(BidValidationTest, BeaconBaseUrlMustBeHttpWithoutQueryOrTrailingSlash) {
  json doc = MinimalConfig();
  doc["bid"]["beacon_base_url"] = "ftp://beacons.example.com";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("bid.beacon_base_url: must start with http:// or https://"));
  doc["bid"]["beacon_base_url"] = "https://beacons.example.com/";
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.beacon_base_url: must not end with '/'"));
  doc["bid"]["beacon_base_url"] = "https://beacons.example.com/b?x=1";
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.beacon_base_url: must not have a query"));
  doc["bid"]["beacon_base_url"] = "http://127.0.0.1:8080/rtb";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(ExchangeValidationTest, BeaconBasesPerExchange) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "a"}, {"beacon_base_url", "ftp://b.example.com"}}};
  EXPECT_THAT(ParseError(doc), HasSubstr("server.exchanges[0].beacon_base_url: must start with "
                                         "http:// or https://"));
  doc["server"]["exchanges"] = {
      {{"name", "a"}, {"secure_beacon_base_url", "http://beacons.example.com"}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.exchanges[0].secure_beacon_base_url: must start with https://"));
  doc["server"]["exchanges"] = {
      {{"name", "a"}, {"secure_beacon_base_url", "https://beacons.example.com/"}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("server.exchanges[0].secure_beacon_base_url: must not end with '/'"));
  doc["server"]["exchanges"] = {{{"name", "a"},
                                 {"beacon_base_url", "http://beacons.example.com"},
                                 {"secure_beacon_base_url", "https://beacons.example.com/rtb"},
                                 {"gzip_responses", true},
                                 {"strict_openrtb_2_5", true}}};
  absl::StatusOr<BidderConfig> config = ParseConfig(doc.dump());
  ASSERT_TRUE(config.ok()) << config.status();
  const ExchangeConfig& exchange = config->server.exchanges[0];
  EXPECT_EQ(exchange.beacon_base_url, "http://beacons.example.com");
  EXPECT_EQ(exchange.secure_beacon_base_url, "https://beacons.example.com/rtb");
  EXPECT_TRUE(exchange.gzip_responses);
  EXPECT_TRUE(exchange.strict_openrtb_2_5);
  doc["server"]["exchanges"][0]["gzip_responses"] = "yes";
  EXPECT_THAT(ParseError(doc), HasSubstr("server.exchanges[0].gzip_responses"));
}

TEST(BidValidationTest, AttributionWindowOutOfRangeIsRejected) {
  json doc = MinimalConfig();
  doc["bid"]["attribution_window_s"] = 10;
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.attribution_window_s: must be in [60, 31536000]"));
}

TEST(BidValidationTest, CoppaPolicyIsDecoded) {
  json doc = MinimalConfig();
  doc["bid"]["coppa_policy"] = "contextual";
  absl::StatusOr<BidderConfig> config = testing::Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->bid.coppa_policy, CoppaPolicy::kContextual);
  doc["bid"]["coppa_policy"] = "ignore";
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.coppa_policy: must be one of no-bid, contextual"));
}

// --- campaigns -------------------------------------------------------------

TEST(CampaignValidationTest, DuplicateCampaignIdIsRejected) {
  json doc = ConfigWithCampaigns(3);
  doc["campaigns"][2]["id"] = "camp-0";
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[2].id: duplicate of campaigns[0].id"));
}

TEST(CampaignValidationTest, CampaignIdThatWouldBreakRowKeysIsRejected) {
  json doc = ConfigWithCampaigns(3);
  doc["campaigns"][0]["id"] = "a|b";
  doc["campaigns"][1]["id"] = std::string(33, 'a');
  doc["campaigns"][2]["id"] = "";
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].id: must be 1-32 characters of [A-Za-z0-9_-]"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].id: must be 1-32 characters"));
  EXPECT_THAT(error, HasSubstr("campaigns[2].id: must be 1-32 characters"));
}

TEST(CampaignValidationTest, CampaignIdOfThirtyTwoCharactersIsAccepted) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["id"] = std::string(30, 'A') + "_-";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CampaignValidationTest, CampaignWithoutCreativesIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"] = json::array();
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives: must list at least one"));
}

TEST(CampaignValidationTest, CampaignWithoutAdvertiserDomainIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0].erase("advertiser_domains");
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].advertiser_domains: must list at least one domain"));
}

TEST(CampaignValidationTest, AdvertiserDomainMustBeLowerCaseHostName) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["advertiser_domains"] = {"Example.com", "https://x.com", "nodot"};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].advertiser_domains[0]: must be a lower-case domain"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].advertiser_domains[1]: must be a lower-case domain"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].advertiser_domains[2]: must be a lower-case domain"));
}

TEST(CampaignValidationTest, MissingOrZeroDailyBudgetIsRejected) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][0].erase("daily_budget_micros");
  doc["campaigns"][1]["daily_budget_micros"] = 0;
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].daily_budget_micros: must be > 0"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].daily_budget_micros: must be > 0"));
}

TEST(CampaignValidationTest, LifetimeBudgetIsOptionalAndPositiveWhenSet) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][0]["lifetime_budget_micros"] = -1;
  doc["campaigns"][1]["lifetime_budget_micros"] = 5000000000;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].lifetime_budget_micros: must be > 0"));
  doc["campaigns"][0].erase("lifetime_budget_micros");
  absl::StatusOr<BidderConfig> config = testing::Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->campaigns[0].lifetime_budget_micros, 0);
  EXPECT_EQ(config->campaigns[1].lifetime_budget_micros, 5000000000);
  EXPECT_EQ(ParseCampaign(CampaignToJson(config->campaigns[1]), *config)->lifetime_budget_micros,
            5000000000);
}

TEST(CampaignValidationTest, CampaignCurrencyWithoutRateIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["currency"] = "JPY";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].currency: JPY has no rate in bid.currency_rates"));
}

TEST(CampaignValidationTest, UnknownTimeZoneIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["time_zone"] = "Mars/Olympus_Mons";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].time_zone: unknown time zone \"Mars/Olympus_Mons\""));
}

TEST(CampaignValidationTest, TimeZoneThatIsAFilePathIsRejected) {
  json doc = ConfigWithCampaigns(3);
  doc["campaigns"][0]["time_zone"] = "../../../etc/passwd";
  doc["campaigns"][1]["time_zone"] = "/usr/share/zoneinfo/UTC";
  doc["campaigns"][2]["time_zone"] = "EST5EDT,M3.2.0,M11.1.0";
  std::string error = ParseError(doc);
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT(error, HasSubstr("campaigns[" + std::to_string(i) +
                                 "].time_zone: must be an IANA time zone name"));
  }
}

TEST(CampaignValidationTest, IanaTimeZonesAreAccepted) {
  json doc = ConfigWithCampaigns(4);
  doc["campaigns"][0]["time_zone"] = "America/New_York";
  doc["campaigns"][1]["time_zone"] = "Asia/Kolkata";
  doc["campaigns"][2]["time_zone"] = "Etc/GMT+5";
  doc["campaigns"][3]["time_zone"] = "UTC";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CampaignValidationTest, MaxBidCpmMustBePositiveAndSane) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][0]["max_bid_cpm"] = -1;
  doc["campaigns"][1]["max_bid_cpm"] = 5000;
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].max_bid_cpm: must be > 0"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].max_bid_cpm: must be at most 1000"));
}

TEST(CampaignValidationTest, NegativeFrequencyCapIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["frequency_cap_per_day"] = -1;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].frequency_cap_per_day: must be in [0, "));
}

TEST(CampaignValidationTest, CountryMustBeIsoAlpha3) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["countries"] = {"USA", "US", "usa", "XXX"};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, Not(HasSubstr("countries[0]")));
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.countries[1]: must be an ISO 3166-1 "
                               "alpha-3 country code such as USA; got \"US\""));
  EXPECT_THAT(error, HasSubstr("targeting.countries[2]"));
  EXPECT_THAT(error, HasSubstr("targeting.countries[3]"));
}

TEST(CampaignValidationTest, DeviceTypeOutsideOpenRtbListIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["device_types"] = {1, 8, 9, 0};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.device_types[2]: must be an OpenRTB "
                               "device type in [1, 8], got 9"));
  EXPECT_THAT(error, HasSubstr("targeting.device_types[3]"));
  EXPECT_THAT(error, Not(HasSubstr("device_types[1]")));
}

TEST(CampaignValidationTest, DomainBothAllowedAndDeniedIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["domains_allow"] = {"news.example.com", "a.example.com"};
  doc["campaigns"][0]["targeting"]["domains_deny"] = {"a.example.com"};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].targeting.domains_deny[0]: is also in domains_allow"));
}

TEST(CampaignValidationTest, ContentCategoryMustBeIabCode) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["content_categories"] = {"IAB3-1", "sports"};
  doc["campaigns"][0]["iab_categories"] = {"IAB-1"};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.content_categories[1]: must be an IAB "
                               "Content 1.0 category code"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].iab_categories[0]: must be an IAB Content 1.0"));
}

TEST(CampaignValidationTest, SegmentAndDealIdsMustBePrintableTokens) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"]["required_segments"] = {"has space"};
  doc["campaigns"][0]["targeting"]["deal_ids"] = {""};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.required_segments[0]: must be 1-64"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].targeting.deal_ids[0]: must be 1-64"));
}

// --- creatives -------------------------------------------------------------

TEST(CreativeValidationTest, CreativeWidthMustBePositive) {
  json doc = ConfigWithCampaigns(4);
  doc["campaigns"][3]["creatives"][0]["w"] = 0;
  EXPECT_EQ(ParseError(doc), "campaigns[3].creatives[0].w: must be > 0");
}

TEST(CreativeValidationTest, BannerWithoutSizeIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0].erase("h");
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives[0].h: must be > 0"));
}

TEST(CreativeValidationTest, DuplicateCreativeIdWithinCampaignIsRejected) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][1]["creatives"].push_back(BannerCreative("c1"));
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[1].creatives[1].id: duplicate of campaigns[1].creatives[0].id"));
}

TEST(CreativeValidationTest, SameCreativeIdInTwoCampaignsIsAccepted) {
  EXPECT_EQ(ParseError(ConfigWithCampaigns(2)), "OK");
}

TEST(CreativeValidationTest, LandingUrlMustBeHttps) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0]["landing_url"] = "http://www.example.com/";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].creatives[0].landing_url: must start with https://"));
}

TEST(CreativeValidationTest, LandingUrlThatCouldMisleadIsRejected) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["landing_url"] = "https://www.example.com@evil.example/";
  EXPECT_THAT(ParseError(doc), HasSubstr("landing_url: must not contain user information"));
  creative["landing_url"] = "https://www.example.com/a b";
  EXPECT_THAT(ParseError(doc), HasSubstr("landing_url: must be printable ASCII without spaces"));
  creative["landing_url"] = "https:///path";
  EXPECT_THAT(ParseError(doc), HasSubstr("landing_url: has no host"));
  creative["landing_url"] = "https://www.example.com:99999/";
  EXPECT_THAT(ParseError(doc), HasSubstr("landing_url: has an invalid port"));
  creative["landing_url"] = "https://www.example.com/landing?utm_source=rtb#top";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CreativeValidationTest, VideoCreativeNeedsMimesAndDuration) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "video";
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].creatives[0].mimes: required for video"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].creatives[0].duration_s: must be > 0"));
  creative["mimes"] = {"video/mp4"};
  creative["duration_s"] = 30;
  // The HTML markup names no VAST version.
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives[0].protocol: required"));
  creative["adm"] = R"(<VAST version="3.0"><Ad><InLine></InLine></Ad></VAST>)";
  EXPECT_EQ(ParseError(doc), "OK");
  creative["mimes"] = {"mp4"};
  EXPECT_THAT(ParseError(doc), HasSubstr("creatives[0].mimes[0]: must be a MIME type"));
}

TEST(CreativeValidationTest, AudioCreativeMustNotHaveASize) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "audio";
  creative["mimes"] = {"audio/mpeg"};
  creative["duration_s"] = 30;
  creative["adm"] = R"(<DAAST version="1.0"><Ad><InLine></InLine></Ad></DAAST>)";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].creatives[0].w: must be 0 (or absent) for audio"));
  creative.erase("w");
  creative.erase("h");
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CreativeValidationTest, BannerMustNotHaveMimesOrDuration) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0]["duration_s"] = 15;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].creatives[0].duration_s: must be 0 (or absent) for banner"));
}

TEST(CreativeValidationTest, NativeCreativeSizeIsOptional) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "native";
  creative.erase("w");
  creative.erase("h");
  creative.erase("adm");
  creative["native"] = {{"title", "A title"}};
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CreativeValidationTest, NativeCreativeIsBuiltFromItsAssetsNotMarkup) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "native";
  creative.erase("w");
  creative.erase("h");
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("creatives[0].adm: must be empty for native"));
  EXPECT_THAT(error, HasSubstr("creatives[0].native: needs a title, an image, a data or a video"));
  creative.erase("adm");
  creative["native"] = {
      {"title", "Title"},
      {"images", {{{"type", 2}, {"url", "http://cdn.example.com/i.png"}, {"w", 0}, {"h", 10}}}},
      {"data", {{{"type", 2}, {"value", "x"}}, {{"type", 2}, {"value", ""}}}},
      {"click_trackers", {"http://t.example.com/c"}}};
  error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("native.images[0].type: must be a native image asset type"));
  EXPECT_THAT(error, HasSubstr("native.images[0].url: "));
  EXPECT_THAT(error, HasSubstr("native.images[0].w: must be > 0"));
  EXPECT_THAT(error, HasSubstr("native.data[1].type: duplicate of "));
  EXPECT_THAT(error, HasSubstr("native.data[1].value: must be 1-1000 bytes"));
  EXPECT_THAT(error, HasSubstr("native.click_trackers[0]: "));
  creative["native"] = {
      {"title", "Title"},
      {"images",
       {{{"type", 3}, {"url", "https://cdn.example.com/i.png"}, {"w", 1200}, {"h", 627}}}},
      {"data", {{{"type", 2}, {"value", "Description"}}}},
      {"video_vast", R"(<VAST version="4.1"><Ad></Ad></VAST>)"},
      {"video_duration_s", 15},
      {"video_mimes", {"video/mp4"}}};
  ASSERT_EQ(ParseError(doc), "OK");
  EXPECT_EQ(testing::Parse(doc)->campaigns[0].creatives[0].native.video_protocol, 11);
  // Native assets on a banner are a mistake, not ignored.
  json banner = ConfigWithCampaigns(1);
  banner["campaigns"][0]["creatives"][0]["native"] = {{"title", "x"}};
  EXPECT_THAT(ParseError(banner), HasSubstr("creatives[0].native: must be absent for banner"));
}

TEST(CreativeValidationTest, MediaProtocolComesFromTheMarkupOrTheConfig) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "video";
  creative["mimes"] = {"video/mp4"};
  creative["duration_s"] = 15;
  const std::pair<const char*, int> cases[] = {
      {R"(<VAST version="2.0"><Ad><InLine/></Ad></VAST>)", 2},
      {R"(<?xml version="1.0"?><VAST xmlns:x="y" version='4.0'><Ad><InLine/></Ad></VAST>)", 7},
      {R"(<VAST version="4.2"><Ad><Wrapper/></Ad></VAST>)", 14},
      {R"(<VAST version="3"><Ad><Wrapper/></Ad></VAST>)", 6},
  };
  for (const auto& [markup, protocol] : cases) {
    creative["adm"] = markup;
    absl::StatusOr<BidderConfig> parsed = testing::Parse(doc);
    ASSERT_TRUE(parsed.ok()) << markup << ": " << parsed.status();
    EXPECT_EQ(parsed->campaigns[0].creatives[0].protocol, protocol) << markup;
    EXPECT_EQ(parsed->campaigns[0].creatives[0].linearity, 1);
  }
  creative["adm"] = R"(<VAST version="9.9"></VAST>)";
  EXPECT_THAT(ParseError(doc), HasSubstr("creatives[0].protocol: required"));
  creative["protocol"] = 3;
  EXPECT_EQ(ParseError(doc), "OK");
  creative["protocol"] = 17;
  EXPECT_THAT(ParseError(doc), HasSubstr("creatives[0].protocol: must be in [1, 16], got 17"));
  // Banners carry no protocol.
  json banner = ConfigWithCampaigns(1);
  banner["campaigns"][0]["creatives"][0]["protocol"] = 3;
  EXPECT_THAT(ParseError(banner), HasSubstr("creatives[0].protocol: must be absent for banner"));
}

TEST(CreativeValidationTest, VideoPlacementFieldsAreChecked) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["format"] = "video";
  creative["mimes"] = {"video/mp4"};
  creative["duration_s"] = 15;
  creative["adm"] = R"(<VAST version="3.0"></VAST>)";
  creative["start_slots"] = {"pre", "sometime"};
  EXPECT_THAT(ParseError(doc), HasSubstr("creatives[0].start_slots[1]: must be one of pre, mid, "
                                         "post; got \"sometime\""));
  creative["start_slots"] = {"pre"};
  creative["linearity"] = 3;
  creative["placements"] = {1, 5, 1};
  creative["bitrate_kbps"] = -1;
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("creatives[0].linearity: must be 1 (linear) or 2 (non-linear)"));
  EXPECT_THAT(error, HasSubstr("creatives[0].placements[1]: must be an OpenRTB 2.6 plcmt value"));
  EXPECT_THAT(error, HasSubstr("creatives[0].placements[2]: duplicate of "));
  EXPECT_THAT(error, HasSubstr("creatives[0].bitrate_kbps: must be in [0, 100000], got -1"));
  creative["linearity"] = 2;
  creative["placements"] = {1, 2};
  creative["start_slots"] = {"pre", "mid"};
  creative["bitrate_kbps"] = 1200;
  creative["skippable"] = false;
  ASSERT_EQ(ParseError(doc), "OK");
  const CreativeConfig parsed = testing::Parse(doc)->campaigns[0].creatives[0];
  EXPECT_EQ(parsed.start_slots, (std::vector<StartSlot>{StartSlot::kPre, StartSlot::kMid}));
  EXPECT_FALSE(parsed.skippable);
  // On a banner these say nothing and are refused.
  json banner = ConfigWithCampaigns(1);
  banner["campaigns"][0]["creatives"][0]["placements"] = {1};
  banner["campaigns"][0]["creatives"][0]["skippable"] = false;
  error = ParseError(banner);
  EXPECT_THAT(error, HasSubstr("creatives[0].placements: must be absent for banner"));
  EXPECT_THAT(error, HasSubstr("creatives[0].skippable: applies to video only"));
}

TEST(CreativeValidationTest, AttributesApisLanguageAdidAndIurlAreChecked) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative["attr"] = {3, 19};
  creative["api"] = {0};
  creative["language"] = "DE";
  creative["adid"] = "has space";
  creative["iurl"] = "http://cdn.example.com/a.png";
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("creatives[0].attr[1]: must be an AdCOM creative attribute in "
                               "[1, 18], got 19"));
  EXPECT_THAT(error, HasSubstr("creatives[0].api[0]: must be an AdCOM API framework in [1, 9]"));
  EXPECT_THAT(error, HasSubstr("creatives[0].language: must be an ISO 639-1 code"));
  EXPECT_THAT(error, HasSubstr("creatives[0].adid: must be at most 64 printable"));
  EXPECT_THAT(error, HasSubstr("creatives[0].iurl: "));
  creative["attr"] = {3, 18};
  creative["api"] = {5, 7};
  creative["language"] = "de";
  creative["adid"] = "ad-77";
  creative["iurl"] = "https://cdn.example.com/a.png";
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CampaignValidationTest, CategoriesFollowTheCampaignTaxonomy) {
  json doc = ConfigWithCampaigns(1);
  json& campaign = doc["campaigns"][0];
  campaign["iab_categories"] = {"IAB3", "IAB99"};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].iab_categories[1]: must be an IAB "
                                         "Content 1.0 category code such as IAB3-1"));
  campaign["cattax"] = 7;
  campaign["iab_categories"] = {"483", "IAB3"};
  campaign["creatives"][0]["iab_categories"] = {"v9i3On"};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].iab_categories[1]: must be an id of "
                                         "taxonomy 7"));
  campaign["iab_categories"] = {"483"};
  EXPECT_EQ(ParseError(doc), "OK");
  campaign["cattax"] = 8;
  campaign["iab_categories"] = {"1533"};
  campaign["creatives"][0]["iab_categories"] = {"1530"};
  EXPECT_EQ(ParseError(doc), "OK");
  // A vendor taxonomy: any token; one the bidder has no tables for: refused.
  campaign["cattax"] = 501;
  campaign["iab_categories"] = {"travel/hotels"};
  campaign["creatives"][0]["iab_categories"] = {"x"};
  EXPECT_EQ(ParseError(doc), "OK");
  // Ad Product 1.0 and Content 3.1 ids (Thriller is new in 3.1).
  campaign["cattax"] = 3;
  campaign["iab_categories"] = {"850", "IAB20-18"};
  campaign["creatives"][0]["iab_categories"] = {"833"};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].iab_categories[1]: must be an id of "
                                         "taxonomy 3"));
  campaign["iab_categories"] = {"850"};
  EXPECT_EQ(ParseError(doc), "OK");
  campaign["cattax"] = 9;
  campaign["iab_categories"] = {"700"};
  campaign["creatives"][0]["iab_categories"] = {"SPSHQ5"};
  EXPECT_EQ(ParseError(doc), "OK");
  campaign["cattax"] = 7;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].iab_categories[0]: must be an id of "
                                         "taxonomy 7"));
  // Audience 1.1 is not a category taxonomy the tables hold.
  campaign["cattax"] = 4;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].cattax: must be a taxonomy the bidder has tables for "
                        "(1, 2, 3, 5, 6, 7, 8, 9) or a vendor taxonomy (500 and above); got 4"));
}

TEST(CampaignValidationTest, RewardedPolicyIsDecoded) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["targeting"] = {{"rewarded", "only"}};
  ASSERT_EQ(ParseError(doc), "OK");
  EXPECT_EQ(testing::Parse(doc)->campaigns[0].targeting.rewarded, RewardedPolicy::kOnly);
  doc["campaigns"][0]["targeting"]["rewarded"] = "sometimes";
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].targeting.rewarded"));
}

TEST(ServerValidationTest, BillingNoticeAndPriceEncryptionAreChecked) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "adx"}, {"billing_notice", "nurl"}}};
  ASSERT_EQ(ParseError(doc), "OK");
  EXPECT_EQ(testing::Parse(doc)->server.exchanges[0].billing_notice, BillingNotice::kNurl);
  EXPECT_EQ(testing::Parse(MinimalConfig())->server.exchanges[0].billing_notice,
            BillingNotice::kBurl);
  doc["server"]["exchanges"][0]["billing_notice"] = "click";
  EXPECT_THAT(ParseError(doc), HasSubstr("server.exchanges[0].billing_notice"));
  doc["server"]["exchanges"][0]["billing_notice"] = "pixel";
  // Google's sample keys (web-safe base64 of 32 bytes).
  doc["server"]["exchanges"][0]["price_encryption"] = {
      {"encryption_key", "skU7Ax_NL5pPAFyKdkfZjZz2-VhIN8bjj1rVFOaJ_5o="},
      {"integrity_key", "arO23ykdNqUQ5LEoQ0FVmPkBd7xB5CO89PDZlSjpFxo="}};
  ASSERT_EQ(ParseError(doc), "OK");
  EXPECT_TRUE(testing::Parse(doc)->server.exchanges[0].price_encryption.enabled());
  doc["server"]["exchanges"][0]["price_encryption"] = {{"encryption_key", "short"}};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("server.exchanges[0].price_encryption: needs both"));
  doc["server"]["exchanges"][0]["price_encryption"]["integrity_key"] = "not base64!";
  error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("price_encryption.encryption_key: must be base64"));
  EXPECT_THAT(error, HasSubstr("price_encryption.integrity_key: must be base64"));
  // Keys are secrets: never in a message.
  EXPECT_THAT(error, Not(HasSubstr("short")));
  EXPECT_THAT(error, Not(HasSubstr("not base64")));
}

TEST(CreativeValidationTest, MarkupIsRequiredEvenForNurlDelivery) {
  json doc = ConfigWithCampaigns(1);
  json& creative = doc["campaigns"][0]["creatives"][0];
  creative.erase("adm");
  creative["nurl_delivery"] = true;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives[0].adm: required: the win "
                                         "notice returns this markup"));
}

TEST(CreativeValidationTest, OversizedMarkupIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0]["adm"] = std::string(70000, 'x');
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].creatives[0].adm: must be at most 65536 bytes"));
}

// --- pacing, telemetry, metrics ---------------------------------------------

TEST(CampaignValidationTest, CpcAndCpaGoalsNeedTheirTarget) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][0]["goal"] = {{"type", "cpc"}};
  doc["campaigns"][1]["goal"] = {{"type", "cpa"}, {"target_cpa", -1}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].goal.target_cpc: must be in (0, 1000]"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].goal.target_cpa: must be in (0, 100000]"));
}

TEST(CampaignValidationTest, GoalTargetOfAnotherGoalTypeIsRejected) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["goal"] = {{"target_cpc", 0.5}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].goal.target_cpc: must be 0 unless type is cpc"));
}

TEST(CampaignValidationTest, GoalPriorsMustBeRates) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["goal"] = {{"prior_ctr", 0}, {"prior_cvr", 1.5}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].goal.prior_ctr: must be in (0, 1]"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].goal.prior_cvr: must be in (0, 1]"));
}

// --- pricing ---------------------------------------------------------------

TEST(PricingValidationTest, ModelMaxAgeMustExceedFitInterval) {
  json doc = MinimalConfig();
  doc["pricing"] = {{"fit_interval_s", 600}, {"model_max_age_s", 600}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("pricing.model_max_age_s: must be greater than fit_interval_s (600)"));
}

TEST(PricingValidationTest, ExplorationAndWinRateLossOutOfRangeAreRejected) {
  json doc = MinimalConfig();
  doc["pricing"] = {{"exploration_rate", 0.9},
                    {"exploration_width", 0},
                    {"max_win_rate_loss", -0.1},
                    {"min_samples", 1}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("pricing.exploration_rate: must be in [0, 0.5]"));
  EXPECT_THAT(error, HasSubstr("pricing.exploration_width: must be in [0.01, 0.5]"));
  EXPECT_THAT(error, HasSubstr("pricing.max_win_rate_loss: must be in [0, 1]"));
  EXPECT_THAT(error, HasSubstr("pricing.min_samples: must be in [10, 10000000], got 1"));
}

TEST(PricingValidationTest, DeviceHistoryDaysRangeFromNoneToAYear) {
  json doc = MinimalConfig();
  doc["pricing"] = {{"device_history_days", 366}};
  EXPECT_THAT(ParseError(doc), HasSubstr("pricing.device_history_days: must be in [0, 365]"));
  doc["pricing"] = {{"device_history_days", -1}};
  EXPECT_THAT(ParseError(doc), HasSubstr("pricing.device_history_days: must be in [0, 365]"));
  doc["pricing"] = {{"device_history_days", 0}};
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(PacingValidationTest, StateMaxAgeMustExceedControllerInterval) {
  json doc = MinimalConfig();
  doc["pacing"] = {{"controller_interval_ms", 2000}, {"state_max_age_ms", 2000}};
  EXPECT_THAT(ParseError(doc), HasSubstr("pacing.state_max_age_ms: must be greater than "
                                         "controller_interval_ms (2000)"));
}

TEST(PacingValidationTest, PacerModeNeedsASharedStore) {
  json doc = MinimalConfig();
  doc["pacing"]["mode"] = "pacer";
  EXPECT_THAT(ParseError(doc), HasSubstr("pacing.mode: pacer needs a store shared"));
  doc["storage"] = {{"backend", "storage-server"}, {"hbase", {{"endpoints", {"127.0.0.1:9191"}}}}};
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(PacingValidationTest, SlidingWindowMustCoverAFlushInterval) {
  json doc = MinimalConfig();
  doc["pacing"] = {{"flush_interval_ms", 10000}, {"sliding_window_s", 5}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("pacing.sliding_window_s: must cover at least one flush_interval_ms"));
}

TEST(PacingValidationTest, NegativeWorkerIdIsRejected) {
  json doc = MinimalConfig();
  doc["pacing"]["worker_id"] = -3;
  EXPECT_THAT(ParseError(doc), HasSubstr("pacing.worker_id: must be in [0, 65535], got -3"));
}

TEST(TelemetryValidationTest, PerMetricLimitAboveTotalLimitIsRejected) {
  json doc = MinimalConfig();
  doc["telemetry"] = {{"max_series", 100}, {"max_series_per_metric", 200}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("telemetry.max_series_per_metric: must be in [1, 100], got 200"));
}

TEST(TelemetryValidationTest, ZeroWriteIntervalIsRejected) {
  json doc = MinimalConfig();
  doc["telemetry"]["write_interval_s"] = 0;
  EXPECT_THAT(ParseError(doc), HasSubstr("telemetry.write_interval_s: must be > 0"));
}

TEST(MetricsValidationTest, MetricsPathMustBeAbsolute) {
  json doc = MinimalConfig();
  doc["metrics"]["path"] = "metrics";
  EXPECT_THAT(ParseError(doc), HasSubstr("metrics.path: must be an absolute path"));
}

// --- sessions --------------------------------------------------------------

constexpr const char* kWellFormedHash =
    "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$"
    "SGFzaGhhc2hIYXNoaGFzaEhhc2hoYXNoSGFzaGhhc2g";

TEST(SessionsValidationTest, InsecureCookieIsRejectedOnNonLoopbackAddress) {
  json doc = MinimalConfig();
  doc["server"]["listen_address"] = "0.0.0.0";
  doc["sessions"]["cookie_secure"] = false;
  EXPECT_THAT(ParseError(doc), HasSubstr("sessions.cookie_secure: may be false only when "
                                         "server.listen_address is a loopback address"));
}

TEST(SessionsValidationTest, InsecureCookieIsAllowedOnLoopback) {
  json doc = MinimalConfig();
  doc["sessions"]["cookie_secure"] = false;
  for (const char* address : {"127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"}) {
    doc["server"]["listen_address"] = address;
    EXPECT_EQ(ParseError(doc), "OK") << address;
  }
}

TEST(SessionsValidationTest, TrustedProxiesMustBeAddresses) {
  json doc = MinimalConfig();
  doc["sessions"]["trusted_proxies"] = {"10.0.0.5", "fd00::1"};
  EXPECT_EQ(ParseError(doc), "OK");
  doc["sessions"]["trusted_proxies"] = {"10.0.0.5", "proxy.internal", "10.0.0.0/8"};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("sessions.trusted_proxies[1]: must be an IPv4 or IPv6 address"));
  EXPECT_THAT(error, HasSubstr("sessions.trusted_proxies[2]: must be an IPv4 or IPv6 address"));
  EXPECT_THAT(error, Not(HasSubstr("trusted_proxies[0]")));
}

TEST(SessionsValidationTest, DuplicateOperatorIsRejected) {
  json doc = MinimalConfig();
  doc["sessions"]["operators"] = {{{"user", "ops"}, {"password_hash", kWellFormedHash}},
                                  {{"user", "ops"}, {"password_hash", kWellFormedHash}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("sessions.operators[1].user: duplicate of sessions.operators[0].user"));
}

TEST(SessionsValidationTest, MalformedPasswordHashIsRejectedWithoutPrintingIt) {
  json doc = MinimalConfig();
  const std::vector<std::string> bad = {
      "plain-text-password-HASHMARKER",
      "$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$HASHMARKERHASHMARKERHASHMARKER",
      "$argon2id$v=16$m=65536,t=2,p=1$c29tZXNhbHQ$HASHMARKERHASHMARKERHASHMARKER",
      "$argon2id$v=19$m=65536,t=0,p=1$c29tZXNhbHQ$HASHMARKERHASHMARKERHASHMARKER",
      "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$HASHMARKER",
      "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$HASHMARKER=HASHMARKERHASHMARKER"};
  for (const std::string& hash : bad) {
    doc["sessions"]["operators"] = {{{"user", "ops"}, {"password_hash", hash}}};
    std::string error = ParseError(doc);
    EXPECT_THAT(error, HasSubstr("sessions.operators[0].password_hash: must be an argon2id hash"))
        << hash;
    EXPECT_THAT(error, Not(HasSubstr("HASHMARKER")));
  }
}

TEST(SessionsValidationTest, LibsodiumPasswordHashIsAccepted) {
  ASSERT_GE(sodium_init(), 0);
  char hash[crypto_pwhash_STRBYTES];
  const std::string password = "correct horse battery staple";
  ASSERT_EQ(crypto_pwhash_str(hash, password.data(), password.size(), crypto_pwhash_OPSLIMIT_MIN,
                              crypto_pwhash_MEMLIMIT_MIN),
            0);
  json doc = MinimalConfig();
  doc["sessions"]["operators"] = {{{"user", "ops@example.com"}, {"password_hash", hash}}};
  absl::StatusOr<BidderConfig> config = testing::Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->sessions.operators[0].password_hash, hash);
}

TEST(SessionsValidationTest, IdleTimeoutAboveLifetimeIsRejected) {
  json doc = MinimalConfig();
  doc["sessions"]["absolute_lifetime_s"] = 3600;
  doc["sessions"]["idle_timeout_s"] = 7200;
  EXPECT_THAT(ParseError(doc), HasSubstr("sessions.idle_timeout_s: must be in [1, 3600]"));
}

TEST(SessionsValidationTest, TouchDebounceMustBeBelowIdleTimeout) {
  json doc = MinimalConfig();
  doc["sessions"]["idle_timeout_s"] = 60;
  doc["sessions"]["touch_debounce_s"] = 60;
  EXPECT_THAT(ParseError(doc), HasSubstr("sessions.touch_debounce_s: must be in [0, 59]"));
}

TEST(SessionsValidationTest, LockoutInitialAboveMaxIsRejected) {
  json doc = MinimalConfig();
  doc["sessions"]["login_rate_limit"] = {{"lockout_initial_s", 600}, {"lockout_max_s", 300}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("sessions.login_rate_limit.lockout_initial_s: must be in [1, 300]"));
}

// --- ValidateConfig on a config built in code --------------------------------

TEST(ValidateConfigTest, DefaultsWithSecretsAreValid) {
  BidderConfig config;
  config.bid.device_key_secret = kDeviceKeySecret;
  config.bid.beacon_secret = kBeaconSecret;
  EXPECT_TRUE(ValidateConfig(config).ok()) << ValidateConfig(config);
}

TEST(ValidateConfigTest, DefaultsWithoutSecretsAreInvalid) {
  absl::Status status = ValidateConfig(BidderConfig{});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("bid.device_key_secret: required"));
}

// --- privacy ---------------------------------------------------------------

TEST(PrivacyValidationTest, GvlVendorIdOutOfRangeIsRejected) {
  json doc = MinimalConfig();
  doc["privacy"]["gvl_vendor_id"] = 65536;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("privacy.gvl_vendor_id: must be in [0, 65535], got 65536"));
  doc["privacy"]["gvl_vendor_id"] = -1;
  EXPECT_THAT(ParseError(doc), HasSubstr("privacy.gvl_vendor_id: must be in [0, 65535], got -1"));
  doc["privacy"]["gvl_vendor_id"] = 65535;
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(PrivacyValidationTest, MinPolicyVersionOutOfRangeIsRejected) {
  json doc = MinimalConfig();
  doc["privacy"]["min_tcf_policy_version"] = 64;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("privacy.min_tcf_policy_version: must be in [0, 63], got 64"));
}

TEST(PrivacyValidationTest, PurposesMustBeTcfPurposeIdsEachOnce) {
  json doc = MinimalConfig();
  doc["privacy"]["segment_targeting"]["purposes"] = {3, 25, 3, 0};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("privacy.segment_targeting.purposes[1]: must be a TCF purpose id "
                               "in [1, 24], got 25"));
  EXPECT_THAT(error, HasSubstr("privacy.segment_targeting.purposes[2]: duplicate of "
                               "privacy.segment_targeting.purposes[0]"));
  EXPECT_THAT(error, HasSubstr("privacy.segment_targeting.purposes[3]: must be a TCF purpose id"));
  doc["privacy"]["segment_targeting"]["purposes"] = {24, 1};
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(PrivacyValidationTest, PurposeOneCannotRestOnLegitimateInterest) {
  json doc = MinimalConfig();
  doc["privacy"]["device_access"]["legitimate_interest"] = true;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("privacy.device_access.legitimate_interest: must be false when purposes "
                        "holds 1"));
  doc["privacy"]["device_access"]["purposes"] = {2};
  EXPECT_EQ(ParseError(doc), "OK");
  doc["privacy"]["measurement"] = {{"purposes", {1, 7}}, {"legitimate_interest", true}};
  EXPECT_THAT(ParseError(doc), HasSubstr("privacy.measurement.legitimate_interest: must be false"));
}

TEST(PrivacyValidationTest, SpecialFeaturesMustBeTcfIdsEachOnce) {
  json doc = MinimalConfig();
  doc["privacy"]["precise_geo_special_features"] = {1, 13};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("privacy.precise_geo_special_features[1]: must be a TCF special feature "
                        "id in [1, 12], got 13"));
  doc["privacy"]["precise_geo_special_features"] = {2, 2};
  EXPECT_THAT(ParseError(doc), HasSubstr("privacy.precise_geo_special_features[1]: duplicate"));
  doc["privacy"]["precise_geo_special_features"] = json::array();
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(PrivacyValidationTest, PrivacyConfigBuiltInCodeIsChecked) {
  BidderConfig config;
  config.bid.device_key_secret = kDeviceKeySecret;
  config.bid.beacon_secret = kBeaconSecret;
  ASSERT_TRUE(ValidateConfig(config).ok());
  config.privacy.basic_ads.purposes = {2, 99};
  EXPECT_THAT(std::string(ValidateConfig(config).message()),
              HasSubstr("privacy.basic_ads.purposes[1]: must be a TCF purpose id"));
}

TEST(CampaignValidationTest, DsaNeedsBehalfAndPaidOfAtMost100Bytes) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["dsa"] = json::object();
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.behalf: required: 1-100 bytes"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.paid: required: 1-100 bytes"));
  doc["campaigns"][0]["dsa"] = {{"behalf", std::string(101, 'b')}, {"paid", "line\nbreak"}};
  error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.behalf: required"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.paid: required"));
  doc["campaigns"][0]["dsa"] = {{"behalf", std::string(100, 'b')},
                                {"paid", "Zahlende GmbH & Co. KG"}};
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(CampaignValidationTest, DsaAdrenderAndTransparencyAreChecked) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["dsa"] = {{"behalf", "B"},
                                {"paid", "P"},
                                {"adrender", 2},
                                {"transparency",
                                 {{{"domain", "Not A Domain"}, {"dsaparams", {1, 4}}},
                                  {{"domain", "ok.example"}, {"dsaparams", {3, 3}}}}}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.adrender: must be in [0, 1], got 2"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.transparency[0].domain: must be a lower-case "
                               "domain name"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.transparency[0].dsaparams[1]: must be 1 "
                               "(profiling), 2 (basic advertising) or 3 (precise geolocation), "
                               "got 4"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].dsa.transparency[1].dsaparams[1]: duplicate of "
                               "campaigns[0].dsa.transparency[1].dsaparams[0]"));
}

TEST(ValidateConfigTest, CampaignBuiltInCodeIsChecked) {
  BidderConfig config;
  config.bid.device_key_secret = kDeviceKeySecret;
  config.bid.beacon_secret = kBeaconSecret;
  CampaignConfig campaign;
  campaign.id = "x";
  campaign.currency = "USD";
  campaign.advertiser_domains = {"example.com"};
  campaign.daily_budget_micros = 1;
  campaign.max_bid_cpm = 1;
  config.campaigns.push_back(campaign);
  EXPECT_THAT(std::string(ValidateConfig(config).message()),
              HasSubstr("campaigns[0].creatives: must list at least one creative"));
}

TEST(EnumNameTest, NamesAreTheJsonSpellings) {
  EXPECT_STREQ(StorageBackendName(StorageBackend::kStorageServer), "storage-server");
  EXPECT_STREQ(ThriftTransportName(ThriftTransport::kFramed), "framed");
  EXPECT_STREQ(CoppaPolicyName(CoppaPolicy::kNoBid), "no-bid");
  EXPECT_STREQ(PacingModeName(PacingMode::kAsap), "asap");
  EXPECT_STREQ(CreativeFormatName(CreativeFormat::kNative), "native");
  EXPECT_STREQ(PacingProcessModeName(PacingProcessMode::kPacer), "pacer");
}

TEST(CampaignValidationTest, ScheduleProblemsAreAllReportedWithTheirPaths) {
  json doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["schedule"] = {
      {"start", "2026-12-01 00:00"},
      {"end", "2026-11-01T00:00:00Z"},
      {"dayparts",
       {{{"days", {"mon", "funday", "mon"}}, {"from_hour", 9}, {"to_hour", 9}},
        {{"days", json::array()}, {"from_hour", 24}}}}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.start: must be an RFC 3339 instant"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[0].days[1]: must be mon, tue"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[0].days[2]: is listed twice"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[0].to_hour: must be in [10, 24]"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[1].days: must list at least one"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].schedule.dayparts[1].from_hour: must be in [0, 23]"));

  doc["campaigns"][0]["schedule"] = {{"start", "2026-12-01T00:00:00+01:00"},
                                     {"end", "2026-11-30T23:00:00Z"}};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].schedule.end: must be after start"));
  doc["campaigns"][0]["schedule"]["end"] = "2026-12-31T23:00:00Z";
  doc["campaigns"][0]["schedule"]["dayparts"] = {
      {{"days", {"sat", "sun"}}, {"from_hour", 0}, {"to_hour", 24}}};
  absl::StatusOr<BidderConfig> config = testing::Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->campaigns[0].schedule.dayparts[0].days,
            (std::vector<std::string>{"sat", "sun"}));
  EXPECT_EQ(ScheduleInstantMillis("2026-12-01T00:00:00+01:00"), int64_t{1796079600000});
  EXPECT_EQ(ScheduleDayIndex("sun"), 6);
  EXPECT_EQ(ScheduleDayIndex("Sun"), std::nullopt);
}

}  // namespace
}  // namespace rtb::config

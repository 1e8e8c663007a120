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

TEST(BeaconLogValidationTest, KafkaNeedsBrokersTopicAndGroup) {
  json doc = MinimalConfig();
  doc["beacon_log"] = {{"backend", "kafka"}, {"kafka", {{"topic", ""}, {"partitions", 0}}}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("beacon_log.kafka.brokers: required for the kafka backend"));
  EXPECT_THAT(error, HasSubstr("beacon_log.kafka.topic: must not be empty"));
  EXPECT_THAT(error, HasSubstr("beacon_log.kafka.partitions: must be > 0"));
  doc["beacon_log"]["kafka"] = {{"brokers", "127.0.0.1:9092"}};
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(BeaconLogValidationTest, EmbeddedLogHoldsAtLeastASegment) {
  json doc = MinimalConfig();
  doc["beacon_log"]["embedded"] = {{"segment_mib", 64}, {"max_mib", 32}};
  EXPECT_THAT(ParseError(doc), HasSubstr("beacon_log.embedded.max_mib: must be in [64, 1048576]"));
  doc["beacon_log"]["embedded"] = {{"sync", "sometimes"}};
  EXPECT_THAT(ParseError(doc), HasSubstr("beacon_log.embedded.sync"));
  doc["beacon_log"]["embedded"] = {{"group_wait_us", 100001}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("beacon_log.embedded.group_wait_us: must be in [0, 100000]"));
}

TEST(BeaconLogValidationTest, StreamBatchesLanesAndBackOffAreBounded) {
  json doc = MinimalConfig();
  doc["beacon_log"]["stream"] = {
      {"batch_records", 0}, {"apply_threads", 65}, {"retry_max_ms", 10}, {"nice", 20}};
  const std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("beacon_log.stream.batch_records: must be > 0"));
  EXPECT_THAT(error, HasSubstr("beacon_log.stream.apply_threads: must be in [1, 64], got 65"));
  EXPECT_THAT(error, HasSubstr("beacon_log.stream.retry_max_ms: must be in [50, 600000], got 10"));
  EXPECT_THAT(error, HasSubstr("beacon_log.stream.nice: must be in [0, 19], got 20"));
  doc["beacon_log"]["stream"] = {{"apply_threads", 1}, {"in_process", false}};
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

TEST(EventsValidationTest, HotKeysAreReadAndChecked) {
  json doc = MinimalConfig();
  doc["events"] = {{"hot_keys", {{"window_ms", 30000}, {"max_events_per_window", 500}}}};
  absl::StatusOr<BidderConfig> config = ParseConfig(doc.dump());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->events.hot_keys.window_ms, 30000);
  EXPECT_EQ(config->events.hot_keys.max_events_per_window, 500);
  EXPECT_EQ(config->events.hot_keys.tracked_keys, 64);
  doc["events"]["hot_keys"]["window_ms"] = 0;
  EXPECT_THAT(ParseError(doc), HasSubstr("events.hot_keys.max_events_per_window: needs a counting "
                                         "window (window_ms > 0)"));
  doc["events"] = {{"hot_keys", {{"tracked_keys", 4}, {"reported_keys", 5}}}};
  EXPECT_THAT(ParseError(doc), HasSubstr("events.hot_keys.reported_keys: must be in [0, 4]"));
  doc["events"] = {{"hot_key", json::object()}};
  EXPECT_THAT(ParseError(doc), HasSubstr("events.hot_key"));
}

}  // namespace
}  // namespace rtb::config

// Loading behaviour of ParseConfig / LoadConfigFile: defaults, unknown keys,
// types, duplicate keys, malformed documents, secrets, and the example files.
#include "config/config.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/config/sample_config.h"

namespace rtb::config {
namespace {

using ::testing::AllOf;
using testing::BannerCreative;
using testing::Campaign;
using testing::ConfigWithCampaigns;
using ::testing::HasSubstr;
using testing::kBeaconSecret;
using testing::kDeviceKeySecret;
using testing::MinimalConfig;
using ::testing::Not;
using testing::Parse;
using testing::ParseError;
using json = nlohmann::json;

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = getenv(name);
    had_old_ = old != nullptr;
    if (had_old_) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_old_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_old_ = false;
  std::string old_;
};

TEST(ParseConfigTest, MinimalConfigGetsDocumentedDefaults) {
  absl::StatusOr<BidderConfig> config = Parse(MinimalConfig());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server.listen_address, "127.0.0.1");
  EXPECT_EQ(config->server.port, 8080);
  EXPECT_EQ(config->server.io_threads, HardwareThreads());
  EXPECT_EQ(config->server.max_header_bytes, 8192);
  EXPECT_EQ(config->server.max_body_bytes, 65536);
  EXPECT_EQ(config->server.first_byte_timeout_ms, 250);
  EXPECT_EQ(config->server.max_connections_per_peer, 1000);
  EXPECT_TRUE(config->server.intake_thread);
  EXPECT_EQ(config->server.intake_nice, 19);
  EXPECT_EQ(config->server.memory_trim_interval_ms, 10000);
  ASSERT_EQ(config->server.exchanges.size(), 1u);
  EXPECT_EQ(config->server.exchanges[0].name, "default");
  EXPECT_EQ(config->server.exchanges[0].bid_path, "/openrtb2/bid");
  EXPECT_EQ(config->server.exchanges[0].default_tmax_ms, 100);
  EXPECT_EQ(config->storage.backend, StorageBackend::kEmbedded);
  EXPECT_EQ(config->storage.embedded.path, "./data");
  EXPECT_EQ(config->storage.embedded.block_cache_mib, 256);
  EXPECT_EQ(config->storage.embedded.row_cache_mib, 64);
  EXPECT_EQ(config->storage.hbase.transport, ThriftTransport::kBuffered);
  EXPECT_EQ(config->bid.device_key_secret, kDeviceKeySecret);
  EXPECT_EQ(config->bid.device_key_secret_env, "");
  EXPECT_EQ(config->bid.beacon_secret, kBeaconSecret);
  EXPECT_TRUE(config->bid.skip_lookup_on_lmt);
  EXPECT_EQ(config->bid.coppa_policy, CoppaPolicy::kNoBid);
  EXPECT_EQ(config->bid.default_currency, "USD");
  EXPECT_EQ(config->bid.currency_rates, (std::map<std::string, double>{{"USD", 1.0}}));
  EXPECT_EQ(config->bid.attribution_window_s, 7 * 24 * 3600);
  EXPECT_TRUE(config->campaigns.empty());
  EXPECT_EQ(config->pacing.flush_interval_ms, 5000);
  EXPECT_EQ(config->pacing.mode, PacingProcessMode::kSidecar);
  EXPECT_EQ(config->telemetry.write_interval_s, 10);
  EXPECT_EQ(config->sessions.absolute_lifetime_s, 8 * 3600);
  EXPECT_EQ(config->sessions.idle_timeout_s, 30 * 60);
  EXPECT_EQ(config->sessions.touch_debounce_s, 60);
  EXPECT_TRUE(config->sessions.cookie_secure);
  EXPECT_EQ(config->metrics.path, "/metrics");
}

TEST(ParseConfigTest, CampaignFieldsAreDecoded) {
  json doc = ConfigWithCampaigns(1);
  doc["bid"]["currency_rates"] = {{"EUR", 1.08}};
  json& campaign = doc["campaigns"][0];
  campaign["currency"] = "EUR";
  campaign["pacing_mode"] = "asap";
  campaign["time_zone"] = "Europe/Berlin";
  campaign["frequency_cap_per_day"] = 3;
  campaign["targeting"] = {{"countries", {"DEU", "AUT"}}, {"device_types", {2, 3}}};
  json video = {{"id", "v1"},
                {"format", "video"},
                {"w", 640},
                {"h", 360},
                {"mimes", {"video/mp4"}},
                {"duration_s", 15},
                {"adm", R"(<VAST version="4.1"/>)"},
                {"nurl_delivery", true},
                {"landing_url", "https://a.example.com/"}};
  campaign["creatives"].push_back(video);
  absl::StatusOr<BidderConfig> config = Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  const CampaignConfig& c = config->campaigns[0];
  EXPECT_EQ(c.id, "camp-0");
  EXPECT_EQ(c.currency, "EUR");
  EXPECT_EQ(c.pacing_mode, PacingMode::kAsap);
  EXPECT_EQ(c.time_zone, "Europe/Berlin");
  EXPECT_EQ(c.frequency_cap_per_day, 3);
  EXPECT_EQ(c.daily_budget_micros, 100000000);
  EXPECT_DOUBLE_EQ(c.max_bid_cpm, 2.0);
  EXPECT_EQ(c.targeting.countries, (std::vector<std::string>{"DEU", "AUT"}));
  EXPECT_EQ(c.targeting.device_types, (std::vector<int>{2, 3}));
  ASSERT_EQ(c.creatives.size(), 2u);
  EXPECT_EQ(c.creatives[1].format, CreativeFormat::kVideo);
  EXPECT_EQ(c.creatives[1].duration_s, 15);
  EXPECT_TRUE(c.creatives[1].nurl_delivery);
  EXPECT_EQ(c.creatives[1].protocol, 11);  // VAST 4.1, from the markup
  EXPECT_EQ(c.creatives[1].linearity, 1);
  EXPECT_TRUE(c.creatives[1].skippable);
  EXPECT_FALSE(c.creatives[0].nurl_delivery);
  EXPECT_EQ(c.creatives[0].protocol, 0);
  EXPECT_EQ(c.creatives[0].linearity, 0);
  EXPECT_EQ(c.cattax, 1);
  EXPECT_EQ(c.targeting.rewarded, RewardedPolicy::kAny);
}

TEST(ParseConfigTest, CampaignDsaIsDecodedAndAbsentByDefault) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][1]["dsa"] = {
      {"behalf", "Northwind Travel GmbH"},
      {"paid", "Northwind Holding"},
      {"adrender", 1},
      {"transparency", {{{"domain", "dsp.example"}, {"dsaparams", {1, 2}}}}}};
  absl::StatusOr<BidderConfig> config = Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->campaigns[0].dsa.has_value());
  ASSERT_TRUE(config->campaigns[1].dsa.has_value());
  const CampaignDsaConfig& dsa = *config->campaigns[1].dsa;
  EXPECT_EQ(dsa.behalf, "Northwind Travel GmbH");
  EXPECT_EQ(dsa.paid, "Northwind Holding");
  EXPECT_EQ(dsa.adrender, 1);
  ASSERT_EQ(dsa.transparency.size(), 1u);
  EXPECT_EQ(dsa.transparency[0].domain, "dsp.example");
  EXPECT_EQ(dsa.transparency[0].dsaparams, (std::vector<int>{1, 2}));

  doc["campaigns"][1]["dsa"] = {{"behalf", "B"}, {"paid", "P"}, {"rendering", 1}};
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[1].dsa.rendering: unknown key"));
}

TEST(ParseConfigTest, GoalAndPricingAreDecodedWithTheirDefaults) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][1]["goal"] = {{"type", "cpa"}, {"target_cpa", 40}, {"prior_cvr", 0.05}};
  doc["pricing"] = {{"min_samples", 500}, {"exploration_rate", 0.02}};
  absl::StatusOr<BidderConfig> config = Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->campaigns[0].goal.type, CampaignGoal::kCpm);
  EXPECT_DOUBLE_EQ(config->campaigns[0].goal.prior_ctr, 0.001);
  EXPECT_EQ(config->campaigns[1].goal.type, CampaignGoal::kCpa);
  EXPECT_DOUBLE_EQ(config->campaigns[1].goal.target_cpa, 40);
  EXPECT_DOUBLE_EQ(config->campaigns[1].goal.prior_cvr, 0.05);
  EXPECT_EQ(config->pricing.min_samples, 500);
  EXPECT_DOUBLE_EQ(config->pricing.exploration_rate, 0.02);
  EXPECT_TRUE(config->pricing.shading_enabled);
  EXPECT_EQ(config->pricing.fit_interval_s, 300);
  EXPECT_EQ(config->pricing.model_max_age_s, 3600);
  EXPECT_DOUBLE_EQ(config->pricing.max_win_rate_loss, 0.05);
  EXPECT_STREQ(CampaignGoalName(CampaignGoal::kCpc), "cpc");
}

TEST(ParseConfigTest, CampaignCurrencyDefaultsToBidDefaultCurrency) {
  json doc = ConfigWithCampaigns(1);
  doc["bid"]["default_currency"] = "GBP";
  doc["bid"]["currency_rates"] = {{"GBP", 1.27}};
  absl::StatusOr<BidderConfig> config = Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->campaigns[0].currency, "GBP");
}

TEST(ParseConfigTest, UsdRateIsAddedWhenMissing) {
  json doc = MinimalConfig();
  doc["bid"]["currency_rates"] = {{"EUR", 1.08}};
  absl::StatusOr<BidderConfig> config = Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->bid.currency_rates,
            (std::map<std::string, double>{{"EUR", 1.08}, {"USD", 1.0}}));
}

TEST(ParseConfigTest, ExchangeBidPathDefaultsToPathNamedAfterExchange) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = {{{"name", "alpha"}}, {{"name", "beta"}, {"bid_path", "/b"}}};
  absl::StatusOr<BidderConfig> config = Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->server.exchanges.size(), 2u);
  EXPECT_EQ(config->server.exchanges[0].bid_path, "/openrtb2/bid/alpha");
  EXPECT_EQ(config->server.exchanges[1].bid_path, "/b");
}

TEST(ParseConfigTest, EmptyExchangeListIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["exchanges"] = json::array();
  EXPECT_THAT(ParseError(doc), HasSubstr("server.exchanges: must list at least one exchange"));
}

TEST(ParseConfigTest, UnknownTopLevelKeyIsRejectedWithPath) {
  json doc = MinimalConfig();
  doc["campaign"] = json::array();
  EXPECT_THAT(ParseError(doc), HasSubstr("campaign: unknown key (did you mean \"campaigns\"?)"));
}

TEST(ParseConfigTest, UnknownKeyIsRejectedWithPath) {
  json doc = ConfigWithCampaigns(2);
  doc["campaigns"][1]["targeting"] = {{"countrys", {"USA"}}};
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[1].targeting.countrys: unknown key (did you mean "
                        "\"countries\"?)"));
}

TEST(ParseConfigTest, UnknownKeyFarFromAnyListsKnownKeys) {
  json doc = MinimalConfig();
  doc["metrics"] = {{"enabled", true}};
  EXPECT_THAT(ParseError(doc), HasSubstr("metrics.enabled: unknown key (known keys: path)"));
}

TEST(ParseConfigTest, UnknownKeyInEveryNestedSectionIsRejected) {
  for (const char* section : {"server", "storage", "bid", "pacing", "telemetry", "sessions"}) {
    json doc = MinimalConfig();
    doc[section]["bogus_option"] = 1;
    EXPECT_THAT(ParseError(doc), HasSubstr(std::string(section) + ".bogus_option: unknown key"))
        << section;
  }
  json doc = MinimalConfig();
  doc["storage"]["hbase"] = {{"endpoint", {"127.0.0.1:9090"}}};
  EXPECT_THAT(ParseError(doc), HasSubstr("storage.hbase.endpoint: unknown key"));
  doc = MinimalConfig();
  doc["sessions"]["login_rate_limit"] = {{"window", 10}};
  EXPECT_THAT(ParseError(doc), HasSubstr("sessions.login_rate_limit.window: unknown key"));
  doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["creatives"][0]["width"] = 300;
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns[0].creatives[0].width: unknown key"));
}

TEST(ParseConfigTest, DuplicateKeyIsRejectedWithPath) {
  std::string doc = R"({"bid": {"device_key_secret": ")" + kDeviceKeySecret +
                    R"(", "beacon_secret": ")" + kBeaconSecret +
                    R"("}, "campaigns": [{"id": "a"}, {"id": "b", "id": "c"}]})";
  absl::StatusOr<BidderConfig> config = ParseConfig(doc);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()),
              HasSubstr("campaigns[1].id: key given more than once"));
}

TEST(ParseConfigTest, WrongTypeNamesThePath) {
  json doc = ConfigWithCampaigns(2);
  doc["server"]["port"] = "8080";
  doc["campaigns"][1]["creatives"][0]["w"] = "300";
  doc["campaigns"][0]["targeting"] = {{"device_types", {1, "2"}}};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("server.port: must be an integer, got string"));
  EXPECT_THAT(error, HasSubstr("campaigns[1].creatives[0].w: must be an integer, got string"));
  EXPECT_THAT(error,
              HasSubstr("campaigns[0].targeting.device_types[1]: must be an integer, got string"));
}

TEST(ParseConfigTest, SectionOfWrongTypeIsRejected) {
  json doc = MinimalConfig();
  doc["server"] = json::array();
  EXPECT_THAT(ParseError(doc), HasSubstr("server: must be an object, got array"));
  doc = MinimalConfig();
  doc["campaigns"] = json::object();
  EXPECT_THAT(ParseError(doc), HasSubstr("campaigns: must be an array of objects, got object"));
}

TEST(ParseConfigTest, NullIsNotTakenAsAbsent) {
  json doc = MinimalConfig();
  doc["server"]["listen_address"] = nullptr;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.listen_address: must be a string, got null"));
}

TEST(ParseConfigTest, FractionalNumberIsRejectedForIntegerField) {
  json doc = MinimalConfig();
  doc["server"]["port"] = 8080.5;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.port: must be an integer (written without a "
                                         "decimal point or exponent)"));
  doc["server"]["port"] = 8080.0;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.port: must be an integer"));
}

TEST(ParseConfigTest, NumberBeyondDoubleRangeIsRejected) {
  absl::StatusOr<BidderConfig> config = ParseConfig(R"({"server": {"port": 1e400}})");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()),
              HasSubstr("invalid JSON at byte 25: number overflow"));
}

TEST(ParseConfigTest, IntegerBeyondFieldWidthIsRejected) {
  json doc = MinimalConfig();
  doc["server"]["max_connections"] = 4294967296LL;
  EXPECT_THAT(ParseError(doc), HasSubstr("server.max_connections: must be at most 2147483647"));
  doc = ConfigWithCampaigns(1);
  doc["campaigns"][0]["daily_budget_micros"] = 18446744073709551615ULL;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("campaigns[0].daily_budget_micros: must be at most 9223372036854775807"));
}

TEST(ParseConfigTest, BadEnumValueListsTheChoices) {
  json doc = MinimalConfig();
  doc["storage"]["backend"] = "hbse";
  EXPECT_THAT(ParseError(doc), HasSubstr("storage.backend: must be one of embedded, hbase, "
                                         "storage-server; got \"hbse\""));
}

TEST(ParseConfigTest, MalformedJsonReportsLineAndColumn) {
  absl::StatusOr<BidderConfig> config = ParseConfig("{\n  \"server\": {\"port\": 80,}\n}");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(config.status().message()),
              AllOf(HasSubstr("invalid JSON at line 2, column"), HasSubstr("syntax error")));
}

TEST(ParseConfigTest, CommentsAreNotJson) {
  absl::StatusOr<BidderConfig> config = ParseConfig("{ // note\n}");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("invalid JSON at line 1"));
}

TEST(ParseConfigTest, EmptyDocumentIsRejected) {
  absl::StatusOr<BidderConfig> config = ParseConfig("");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("invalid JSON"));
}

TEST(ParseConfigTest, TopLevelMustBeAnObject) {
  absl::StatusOr<BidderConfig> config = ParseConfig("[1, 2]");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()),
              HasSubstr("the configuration must be a JSON object, got array"));
}

TEST(ParseConfigTest, AllProblemsAreReportedTogether) {
  json doc = ConfigWithCampaigns(1);
  doc["server"]["port"] = 70000;
  doc["campaigns"][0]["max_bid_cpm"] = 0;
  doc["pacing"]["flush_interval_ms"] = 1;
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("server.port: must be in [0, 65535], got 70000"));
  EXPECT_THAT(error, HasSubstr("campaigns[0].max_bid_cpm: must be > 0"));
  EXPECT_THAT(error, HasSubstr("pacing.flush_interval_ms: must be in [100, 600000], got 1"));
}

TEST(ParseConfigTest, ManyProblemsAreCappedWithACount) {
  json doc = MinimalConfig();
  for (int i = 0; i < 60; ++i) doc["server"]["unknown_" + std::to_string(i)] = i;
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("; and 20 more"));
}

// --- secrets ---------------------------------------------------------------

TEST(SecretTest, SecretsAreReadFromNamedEnvironmentVariables) {
  ScopedEnv device("RTB_CONFIG_TEST_DEVICE_KEY", kDeviceKeySecret);
  ScopedEnv beacon("RTB_CONFIG_TEST_BEACON", kBeaconSecret);
  json doc = {{"bid",
               {{"device_key_secret_env", "RTB_CONFIG_TEST_DEVICE_KEY"},
                {"beacon_secret_env", "RTB_CONFIG_TEST_BEACON"}}}};
  absl::StatusOr<BidderConfig> config = Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->bid.device_key_secret, kDeviceKeySecret);
  EXPECT_EQ(config->bid.device_key_secret_env, "RTB_CONFIG_TEST_DEVICE_KEY");
  EXPECT_EQ(config->bid.beacon_secret, kBeaconSecret);
  EXPECT_EQ(config->bid.beacon_secret_env, "RTB_CONFIG_TEST_BEACON");
}

TEST(SecretTest, UnsetSecretEnvironmentVariableIsRejected) {
  unsetenv("RTB_CONFIG_TEST_UNSET");
  json doc = MinimalConfig();
  doc["bid"].erase("device_key_secret");
  doc["bid"]["device_key_secret_env"] = "RTB_CONFIG_TEST_UNSET";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("bid.device_key_secret_env: environment variable RTB_CONFIG_TEST_UNSET "
                        "is not set or empty"));
}

TEST(SecretTest, MalformedEnvironmentVariableNameIsRejected) {
  json doc = MinimalConfig();
  doc["bid"].erase("beacon_secret");
  doc["bid"]["beacon_secret_env"] = "1BAD-NAME";
  EXPECT_THAT(ParseError(doc),
              HasSubstr("bid.beacon_secret_env: must be an environment variable name"));
}

TEST(SecretTest, InlineAndEnvironmentSecretTogetherAreRejected) {
  ScopedEnv device("RTB_CONFIG_TEST_DEVICE_KEY", kDeviceKeySecret);
  json doc = MinimalConfig();
  doc["bid"]["device_key_secret_env"] = "RTB_CONFIG_TEST_DEVICE_KEY";
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.device_key_secret: give either device_key_secret or "
                                         "device_key_secret_env, not both"));
}

TEST(SecretTest, MissingSecretsAreRejected) {
  std::string error = ParseError(json::object());
  EXPECT_THAT(error, HasSubstr("bid.device_key_secret: required"));
  EXPECT_THAT(error, HasSubstr("bid.beacon_secret: required"));
}

TEST(SecretTest, ShortSecretIsRejected) {
  json doc = MinimalConfig();
  doc["bid"]["device_key_secret"] = std::string(31, 'k');
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.device_key_secret: must be at least 32 bytes"));
  doc["bid"]["device_key_secret"] = std::string(32, 'k');
  EXPECT_EQ(ParseError(doc), "OK");
}

TEST(SecretTest, ShortSecretFromEnvironmentNamesTheVariable) {
  ScopedEnv beacon("RTB_CONFIG_TEST_BEACON", "too-short");
  json doc = MinimalConfig();
  doc["bid"].erase("beacon_secret");
  doc["bid"]["beacon_secret_env"] = "RTB_CONFIG_TEST_BEACON";
  EXPECT_THAT(ParseError(doc), HasSubstr("bid.beacon_secret_env: environment variable "
                                         "RTB_CONFIG_TEST_BEACON must hold at least 32 bytes"));
}

TEST(SecretTest, BeaconSecretMustDifferFromDeviceKeySecret) {
  json doc = MinimalConfig();
  doc["bid"]["beacon_secret"] = kDeviceKeySecret;
  EXPECT_THAT(ParseError(doc),
              HasSubstr("bid.beacon_secret: must differ from the device key secret"));
}

TEST(SecretTest, SecretIsNeverPrintedInErrors) {
  const std::string kShort = "SHORT-SECRET-MARKER";
  const std::string kLong = "LONG-SECRET-MARKER-0123456789abcdefghij";
  std::vector<std::string> errors;

  json doc = MinimalConfig();
  doc["bid"]["device_key_secret"] = kShort;
  errors.push_back(ParseError(doc));

  {
    ScopedEnv env("RTB_CONFIG_TEST_DEVICE_KEY", kShort);
    doc = MinimalConfig();
    doc["bid"].erase("device_key_secret");
    doc["bid"]["device_key_secret_env"] = "RTB_CONFIG_TEST_DEVICE_KEY";
    errors.push_back(ParseError(doc));
  }

  doc = MinimalConfig();
  doc["bid"]["beacon_secret"] = kLong;
  doc["bid"]["device_key_secret"] = kLong;
  errors.push_back(ParseError(doc));

  doc = MinimalConfig();
  doc["bid"]["device_key_secret"] = json::array({kLong});
  errors.push_back(ParseError(doc));

  // A syntax error right inside the secret: the parser's own message quotes
  // the text it read last.
  errors.push_back(
      std::string(ParseConfig(R"({"bid": {"device_key_secret": ")" + kLong + "\n" + R"("}})")
                      .status()
                      .message()));
  errors.push_back(
      std::string(ParseConfig(R"({"bid": {"device_key_secret": ")" + kLong).status().message()));
  errors.push_back(std::string(
      ParseConfig(R"({"bid": {"device_key_secret": ")" + kLong + R"(\q"}})").status().message()));

  for (const std::string& error : errors) {
    EXPECT_NE(error, "OK");
    EXPECT_THAT(error, Not(HasSubstr("SECRET-MARKER"))) << error;
  }
}

// --- files -----------------------------------------------------------------

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("rtb-config-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(ConfigFileTest, MissingFileIsNotFoundAndNamesThePath) {
  std::string path = (dir_ / "absent.json").string();
  absl::StatusOr<BidderConfig> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(config.status().message()), HasSubstr(path));
}

TEST_F(ConfigFileTest, ErrorsArePrefixedWithThePath) {
  json doc = MinimalConfig();
  doc["server"]["prot"] = 1;
  std::string path = Write("bad.json", doc.dump());
  absl::StatusOr<BidderConfig> config = LoadConfigFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(config.status().message()),
              HasSubstr("config file " + path + ": server.prot: unknown key"));
}

TEST_F(ConfigFileTest, ValidFileLoads) {
  std::string path = Write("good.json", ConfigWithCampaigns(3).dump(2));
  absl::StatusOr<BidderConfig> config = LoadConfigFile(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->campaigns.size(), 3u);
}

// --- privacy -----------------------------------------------------------------

TEST(ParseConfigTest, PrivacySectionDefaultsFollowTheTcfPolicies) {
  absl::StatusOr<BidderConfig> config = Parse(MinimalConfig());
  ASSERT_TRUE(config.ok()) << config.status();
  const PrivacyConfig& privacy = config->privacy;
  EXPECT_EQ(privacy.gvl_vendor_id, 0);
  EXPECT_TRUE(privacy.gdpr_applies_by_geo);
  EXPECT_EQ(privacy.min_tcf_policy_version, 4);
  EXPECT_EQ(privacy.device_access.purposes, (std::vector<int>{1}));
  EXPECT_FALSE(privacy.device_access.legitimate_interest);
  EXPECT_EQ(privacy.basic_ads.purposes, (std::vector<int>{2}));
  EXPECT_TRUE(privacy.basic_ads.legitimate_interest);
  EXPECT_EQ(privacy.segment_targeting.purposes, (std::vector<int>{3, 4}));
  EXPECT_FALSE(privacy.segment_targeting.legitimate_interest);
  EXPECT_EQ(privacy.measurement.purposes, (std::vector<int>{7, 9}));
  EXPECT_TRUE(privacy.measurement.legitimate_interest);
  EXPECT_EQ(privacy.precise_geo_special_features, (std::vector<int>{1}));
  EXPECT_TRUE(privacy.us_opt_out_counts_frequency_caps);
}

TEST(ParseConfigTest, PrivacySectionIsDecoded) {
  json doc = MinimalConfig();
  doc["privacy"] = {{"gvl_vendor_id", 755},
                    {"gdpr_applies_by_geo", false},
                    {"min_tcf_policy_version", 2},
                    {"device_access", {{"purposes", {1, 10}}}},
                    {"basic_ads", {{"purposes", json::array()}, {"legitimate_interest", false}}},
                    {"segment_targeting", {{"purposes", {3, 4, 5}}, {"legitimate_interest", true}}},
                    {"measurement", {{"purposes", {8}}}},
                    {"precise_geo_special_features", {1, 2}},
                    {"us_opt_out_counts_frequency_caps", false}};
  absl::StatusOr<BidderConfig> config = Parse(doc);
  ASSERT_TRUE(config.ok()) << config.status();
  const PrivacyConfig& privacy = config->privacy;
  EXPECT_EQ(privacy.gvl_vendor_id, 755);
  EXPECT_FALSE(privacy.gdpr_applies_by_geo);
  EXPECT_EQ(privacy.min_tcf_policy_version, 2);
  EXPECT_EQ(privacy.device_access.purposes, (std::vector<int>{1, 10}));
  EXPECT_FALSE(privacy.device_access.legitimate_interest);
  EXPECT_TRUE(privacy.basic_ads.purposes.empty());
  EXPECT_FALSE(privacy.basic_ads.legitimate_interest);
  EXPECT_EQ(privacy.segment_targeting.purposes, (std::vector<int>{3, 4, 5}));
  EXPECT_TRUE(privacy.segment_targeting.legitimate_interest);
  // A use given without legitimate_interest keeps that field's default.
  EXPECT_EQ(privacy.measurement.purposes, (std::vector<int>{8}));
  EXPECT_TRUE(privacy.measurement.legitimate_interest);
  EXPECT_EQ(privacy.precise_geo_special_features, (std::vector<int>{1, 2}));
  EXPECT_FALSE(privacy.us_opt_out_counts_frequency_caps);
}

TEST(ParseConfigTest, PrivacyUnknownKeysAndWrongTypesNameTheirPath) {
  json doc = MinimalConfig();
  doc["privacy"] = {{"gvl_vendor", 1}, {"basic_ads", {{"purpose", {2}}}}};
  std::string error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("privacy.gvl_vendor: unknown key"));
  EXPECT_THAT(error, HasSubstr("privacy.basic_ads.purpose: unknown key"));
  doc["privacy"] = {{"device_access", {{"purposes", {"1"}}}}, {"gdpr_applies_by_geo", 1}};
  error = ParseError(doc);
  EXPECT_THAT(error, HasSubstr("privacy.device_access.purposes[0]"));
  EXPECT_THAT(error, HasSubstr("privacy.gdpr_applies_by_geo"));
}

// --- the example files -----------------------------------------------------

class ExampleConfigTest : public ::testing::Test {
 protected:
  // The examples name their secrets by environment variable, as a deployment
  // should; the run script exports random ones when unset.
  ScopedEnv device_{"RTB_DEVICE_KEY_SECRET", kDeviceKeySecret};
  ScopedEnv beacon_{"RTB_BEACON_SECRET", kBeaconSecret};

  static std::string Example(const std::string& name) {
    return std::string(RTB_CONFIG_DIR) + "/" + name;
  }
};

TEST_F(ExampleConfigTest, EmbeddedExampleLoads) {
  absl::StatusOr<BidderConfig> config = LoadConfigFile(Example("bidder.example.json"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->storage.backend, StorageBackend::kEmbedded);
  EXPECT_EQ(config->bid.device_key_secret_env, "RTB_DEVICE_KEY_SECRET");
  EXPECT_EQ(config->bid.beacon_secret_env, "RTB_BEACON_SECRET");
  EXPECT_GE(config->campaigns.size(), 3u);
  EXPECT_EQ(config->privacy.segment_targeting.purposes, (std::vector<int>{3, 4}));
  EXPECT_TRUE(config->privacy.gdpr_applies_by_geo);
  // The corpus's TC string (tests/fixtures/openrtb) consents to this vendor.
  EXPECT_EQ(config->privacy.gvl_vendor_id, 1111);
  const auto with_dsa = std::count_if(config->campaigns.begin(), config->campaigns.end(),
                                      [](const CampaignConfig& c) { return c.dsa.has_value(); });
  EXPECT_GE(with_dsa, 1);
  EXPECT_LT(static_cast<size_t>(with_dsa), config->campaigns.size());
}

TEST_F(ExampleConfigTest, HBaseExampleLoads) {
  absl::StatusOr<BidderConfig> config = LoadConfigFile(Example("bidder.hbase.example.json"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->storage.backend, StorageBackend::kHBase);
  EXPECT_EQ(config->storage.hbase.endpoints, (std::vector<std::string>{"127.0.0.1:9090"}));
}

TEST_F(ExampleConfigTest, ExamplesDifferOnlyInStorage) {
  std::ifstream embedded_file(Example("bidder.example.json"));
  std::ifstream hbase_file(Example("bidder.hbase.example.json"));
  json embedded = json::parse(embedded_file);
  json hbase = json::parse(hbase_file);
  embedded.erase("storage");
  hbase.erase("storage");
  EXPECT_EQ(embedded, hbase) << "keep the two examples in step outside `storage`";
}

TEST_F(ExampleConfigTest, ExampleWithoutSecretEnvironmentNamesTheVariable) {
  unsetenv("RTB_DEVICE_KEY_SECRET");
  absl::StatusOr<BidderConfig> config = LoadConfigFile(Example("bidder.example.json"));
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()),
              HasSubstr("environment variable RTB_DEVICE_KEY_SECRET is not set or empty"));
}

TEST_F(ExampleConfigTest, OneCampaignParsesByTheConfigRulesWithPathsOfItsOwn) {
  absl::StatusOr<BidderConfig> config = LoadConfigFile(Example("bidder.example.json"));
  ASSERT_TRUE(config.ok()) << config.status();
  std::ifstream file(Example("bidder.example.json"));
  json example = json::parse(file);
  // Every example campaign, on its own, parses to what the whole file gave.
  for (size_t i = 0; i < config->campaigns.size(); ++i) {
    absl::StatusOr<CampaignConfig> campaign =
        ParseCampaign(example["campaigns"][i].dump(), *config);
    ASSERT_TRUE(campaign.ok()) << campaign.status();
    EXPECT_EQ(campaign->id, config->campaigns[i].id);
    EXPECT_EQ(campaign->creatives.size(), config->campaigns[i].creatives.size());
    EXPECT_EQ(campaign->currency, config->campaigns[i].currency);
  }
  json bad = example["campaigns"][0];
  bad["max_bid_cpm"] = 0;
  bad["creatives"][1]["w"] = -3;
  bad["budget"] = 1;
  bad["currency"] = "CHF";
  absl::StatusOr<CampaignConfig> refused = ParseCampaign(bad.dump(), *config);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  // Decoding problems come first: the unknown key stops validation.
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("budget"));
  bad.erase("budget");
  refused = ParseCampaign(bad.dump(), *config);
  ASSERT_FALSE(refused.ok());
  const std::string message(refused.status().message());
  EXPECT_THAT(message, HasSubstr("max_bid_cpm: must be > 0"));
  EXPECT_THAT(message, HasSubstr("creatives[1].w"));
  EXPECT_THAT(message, HasSubstr("currency: CHF has no rate in bid.currency_rates"));
  EXPECT_THAT(message, Not(HasSubstr("campaigns[")));
  EXPECT_FALSE(ParseCampaign("[]", *config).ok());
  EXPECT_FALSE(ParseCampaign("{", *config).ok());
}

// Seeding the campaigns table writes CampaignToJson: a field the code-built
// encoder does not list (a creative's attr, the goal) must still survive.
TEST(CampaignToJsonTest, ACampaignReadFromJsonKeepsEveryField) {
  nlohmann::json document = ConfigWithCampaigns(1);
  nlohmann::json campaign = Campaign("read-1");
  campaign["goal"] = {{"type", "cpc"}, {"target_cpc", 0.4}};
  campaign["creatives"][0]["attr"] = {1, 3};
  document["campaigns"] = {campaign};
  absl::StatusOr<BidderConfig> config = testing::Parse(document);
  ASSERT_TRUE(config.ok()) << config.status();
  config->campaigns[0].max_bid_cpm = 7.5;  // changed after reading: written as it is now
  const std::string json = CampaignToJson(config->campaigns[0]);
  EXPECT_EQ(nlohmann::json::parse(json)["creatives"][0]["attr"], nlohmann::json({1, 3}));
  absl::StatusOr<CampaignConfig> back = ParseCampaign(json, *config);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->goal.type, CampaignGoal::kCpc);
  EXPECT_EQ(back->creatives[0].attr, (std::vector<int>{1, 3}));
  EXPECT_DOUBLE_EQ(back->max_bid_cpm, 7.5);

  CampaignConfig built = config->campaigns[0];
  built.source_json.clear();
  absl::StatusOr<CampaignConfig> rebuilt = ParseCampaign(CampaignToJson(built), *config);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(rebuilt->goal.type, CampaignGoal::kCpc);
  EXPECT_DOUBLE_EQ(rebuilt->goal.target_cpc, 0.4);
}

TEST(CampaignToJsonTest, ParseCampaignReadsBackTheSameCampaign) {
  nlohmann::json document = ConfigWithCampaigns(1);
  nlohmann::json campaign = Campaign("full-1");
  campaign["enabled"] = false;
  campaign["targeting"] = {{"countries", {"USA", "CAN"}},
                           {"device_types", {1, 2}},
                           {"deal_ids", {"d-1"}},
                           {"domains_deny", {"blocked.example"}}};
  campaign["frequency_cap_per_day"] = 3;
  campaign["time_zone"] = "Europe/Berlin";
  campaign["pacing_mode"] = "asap";
  campaign["dsa"] = {{"behalf", "Advertiser"},
                     {"paid", "Advertiser"},
                     {"adrender", 1},
                     {"transparency", {{{"domain", "dsp.example"}, {"dsaparams", {1, 2}}}}}};
  document["campaigns"] = {campaign};
  absl::StatusOr<BidderConfig> config = testing::Parse(document);
  ASSERT_TRUE(config.ok()) << config.status();
  const std::string json = CampaignToJson(config->campaigns[0]);
  absl::StatusOr<CampaignConfig> back = ParseCampaign(json, *config);
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << json;
  EXPECT_EQ(CampaignToJson(*back), json);
  EXPECT_FALSE(back->enabled);
  ASSERT_TRUE(back->dsa.has_value());
  EXPECT_EQ(back->dsa->transparency[0].dsaparams, (std::vector<int>{1, 2}));
  EXPECT_EQ(back->targeting.countries, (std::vector<std::string>{"USA", "CAN"}));
}

TEST(CampaignStoreConfigTest, FollowingMustStayWithinTwoSeconds) {
  nlohmann::json document = ConfigWithCampaigns(2);
  EXPECT_EQ(testing::ParseError(document), "OK");
  document["campaign_store"] = {{"follow_interval_ms", 5000}};
  EXPECT_THAT(testing::ParseError(document), HasSubstr("campaign_store.follow_interval_ms"));
  document["campaign_store"] = {{"max_campaigns", 1}};
  EXPECT_THAT(testing::ParseError(document), HasSubstr("campaign_store.max_campaigns"));
  document["campaign_store"] = {{"unreadable_after_s", 5}, {"max_campaigns", 2}};
  absl::StatusOr<BidderConfig> config = testing::Parse(document);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->campaign_store.unreadable_after_s, 5);
  EXPECT_EQ(config->campaign_store.follow_interval_ms, 500);
}

}  // namespace
}  // namespace rtb::config

// Small valid configuration documents for config tests, built as JSON so each
// test changes one field and checks what ParseConfig says about it.
#ifndef RTB_TESTS_CONFIG_SAMPLE_CONFIG_H_
#define RTB_TESTS_CONFIG_SAMPLE_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "config/config.h"
#include "nlohmann/json.hpp"

namespace rtb::config::testing {

// Test keys, 32 bytes and more; not secrets of any deployment.
inline const std::string kDeviceKeySecret = "device-key-secret-for-tests-0123456789";
inline const std::string kBeaconSecret = "beacon-secret-for-tests-abcdefghijklmn";

// The smallest valid document: only the two required secrets.
inline nlohmann::json MinimalConfig() {
  return {{"bid", {{"device_key_secret", kDeviceKeySecret}, {"beacon_secret", kBeaconSecret}}}};
}

inline nlohmann::json BannerCreative(const std::string& id = "c1") {
  return {{"id", id},
          {"format", "banner"},
          {"w", 300},
          {"h", 250},
          {"adm", "<a href=\"${CLICK_URL}\"><img src=\"https://cdn.example.com/a.png\"></a>"},
          {"landing_url", "https://www.example.com/landing"}};
}

inline nlohmann::json Campaign(const std::string& id = "camp-1") {
  return {{"id", id},
          {"advertiser_domains", {"example.com"}},
          {"daily_budget_micros", 100000000},
          {"max_bid_cpm", 2.0},
          {"creatives", {BannerCreative()}}};
}

// MinimalConfig with `n` campaigns camp-0 .. camp-(n-1).
inline nlohmann::json ConfigWithCampaigns(int n) {
  nlohmann::json config = MinimalConfig();
  config["campaigns"] = nlohmann::json::array();
  for (int i = 0; i < n; ++i) config["campaigns"].push_back(Campaign("camp-" + std::to_string(i)));
  return config;
}

inline absl::StatusOr<BidderConfig> Parse(const nlohmann::json& config) {
  return ParseConfig(config.dump());
}

// The error message of parsing `config`, or "OK" when it parsed.
inline std::string ParseError(const nlohmann::json& config) {
  absl::StatusOr<BidderConfig> parsed = Parse(config);
  return parsed.ok() ? std::string("OK") : std::string(parsed.status().message());
}

}  // namespace rtb::config::testing

#endif  // RTB_TESTS_CONFIG_SAMPLE_CONFIG_H_

// Shared pieces of the bid-decision tests: the example configuration (its
// campaigns are what the IAB sample requests are answered from), a fixed wall
// clock, profile rows, and a temporary embedded store with the bidder's
// tables.
#ifndef RTB_TESTS_BIDDER_DECISION_FIXTURES_H_
#define RTB_TESTS_BIDDER_DECISION_FIXTURES_H_

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "bidder/openrtb/openrtb.h"
#include "config/config.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/store.h"
#include "storage/types.h"

namespace rtb::bidder::testing {

// Test keys of 32 bytes and more; not the secrets of any deployment.
inline const std::string kDeviceKeySecret = "device-key-secret-for-tests-0123456789";
inline const std::string kBeaconSecret = "beacon-secret-for-tests-abcdefghijklmn";

// 2026-10-04T12:00:00Z: midday in UTC, still the 4th in New York and Los
// Angeles, already evening in Berlin.
inline constexpr int64_t kNoonUtcMillis = 1791115200000;

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// config/bidder.example.json with the test secrets in its environment
// variables.
inline config::BidderConfig ExampleConfig() {
  setenv("RTB_DEVICE_KEY_SECRET", kDeviceKeySecret.c_str(), 1);
  setenv("RTB_BEACON_SECRET", kBeaconSecret.c_str(), 1);
  absl::StatusOr<config::BidderConfig> config =
      config::LoadConfigFile(std::string(RTB_CONFIG_DIR) + "/bidder.example.json");
  if (!config.ok()) {
    ADD_FAILURE() << config.status();
    return config::BidderConfig{};
  }
  return *std::move(config);
}

// A JSON file of tests/fixtures/openrtb, e.g. "expected.json".
inline nlohmann::json FixtureJson(const std::string& file) {
  const std::string text = ReadFile(std::string(RTB_OPENRTB_FIXTURES_DIR) + "/../" + file);
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(json.is_discarded()) << "tests/fixtures/openrtb/" << file << " is not JSON";
  return json.is_discarded() ? nlohmann::json::object() : json;
}

// The example configuration with the permissive campaigns
// (tests/fixtures/openrtb/permissive_campaigns.json: a creative for every
// kind of impression of the corpus) instead of its own.
inline config::BidderConfig PermissiveConfig() {
  config::BidderConfig example = ExampleConfig();  // sets the secrets' variables
  nlohmann::json doc =
      nlohmann::json::parse(ReadFile(std::string(RTB_CONFIG_DIR) + "/bidder.example.json"));
  doc["campaigns"] = FixtureJson("permissive_campaigns.json");
  absl::StatusOr<config::BidderConfig> config = config::ParseConfig(doc.dump());
  if (!config.ok()) {
    ADD_FAILURE() << config.status();
    return example;
  }
  return *std::move(config);
}

// A request of the repository's corpus (tests/fixtures/openrtb/requests),
// e.g. "site-banner-mrec.json".
inline std::string FixtureRequest(const std::string& name) {
  std::string json = ReadFile(std::string(RTB_OPENRTB_FIXTURES_DIR) + "/" + name);
  EXPECT_FALSE(json.empty()) << "missing fixture request " << name;
  return json;
}

inline std::vector<std::string> FixtureRequestNames() {
  std::vector<std::string> names;
  const std::filesystem::path root(RTB_OPENRTB_FIXTURES_DIR);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      names.push_back(std::filesystem::relative(entry.path(), root).string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline openrtb::BidRequest MustParse(std::string_view json) {
  absl::StatusOr<openrtb::BidRequest> request = openrtb::ParseBidRequest(json);
  if (!request.ok()) {
    ADD_FAILURE() << request.status();
    return openrtb::BidRequest{};
  }
  return *std::move(request);
}

// "campaignId|yyyymmdd" written out by hand, independent of the code under test.
inline std::string Qualifier(const std::string& campaign, int y, int m, int d) {
  char day[16];
  std::snprintf(day, sizeof(day), "%04d%02d%02d", y, m, d);
  return campaign + "|" + day;
}

// A profiles row as the Store returns it: cells sorted by family, qualifier.
struct ProfileRow {
  std::vector<std::string> segments;
  std::vector<std::pair<std::string, int64_t>> counters;  // qualifier, count

  storage::RowResult Build() const {
    storage::RowResult row;
    row.row = "key";
    std::vector<storage::Cell> fc;
    for (const auto& [q, n] : counters) fc.emplace_back("fc", q, 1, storage::EncodeCounter(n));
    std::vector<storage::Cell> seg;
    for (const std::string& s : segments) seg.emplace_back("seg", s, 1, std::string(1, '\x64'));
    auto by_qualifier = [](const storage::Cell& a, const storage::Cell& b) {
      return a.qualifier < b.qualifier;
    };
    std::sort(fc.begin(), fc.end(), by_qualifier);
    std::sort(seg.begin(), seg.end(), by_qualifier);
    fc.insert(fc.end(), seg.begin(), seg.end());  // "fc" < "seg"
    row.cells = std::move(fc);
    return row;
  }
};

// A fresh embedded store with every bidder table, removed afterwards.
class TempStore {
 public:
  TempStore() {
    static std::atomic<int> sequence{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("rtb-decision-" + std::to_string(::getpid()) + "-" + std::to_string(sequence++)))
                .string();
    std::filesystem::remove_all(path_);
    storage::EmbeddedStoreOptions options;
    options.path = path_;
    options.block_cache_bytes = 8 << 20;
    absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenEmbeddedStore(options);
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return;
    store_ = *std::move(store);
    absl::Status applied = storage::ApplySchemas(*store_, storage::BidderTables());
    EXPECT_TRUE(applied.ok()) << applied;
  }
  ~TempStore() {
    store_.reset();
    std::filesystem::remove_all(path_);
  }
  storage::Store& store() { return *store_; }

  // Writes segments and today's counters for the device key `row`.
  void PutProfile(std::string_view row, const ProfileRow& profile) {
    storage::Put put;
    put.row = std::string(row);
    for (const std::string& s : profile.segments) {
      put.values.push_back({"seg", s, std::string(1, '\x64'), std::nullopt});
    }
    for (const auto& [q, n] : profile.counters) {
      put.values.push_back({"fc", q, storage::EncodeCounter(n), std::nullopt});
    }
    absl::Status s = store_->Put(storage::kProfilesTable, put);
    EXPECT_TRUE(s.ok()) << s;
  }

 private:
  std::string path_;
  std::unique_ptr<storage::Store> store_;
};

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_DECISION_FIXTURES_H_

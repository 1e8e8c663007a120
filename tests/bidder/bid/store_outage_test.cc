// The bid decision while storage is down: a whole bidder on a storage-server
// process (the storage-server backend), a device whose frequency cap of the
// capped campaign is reached, and the storage-server stopped. Each campaign's
// store_outage_policy then decides: `no_bid` and `contextual_only` do not bid
// the capped device again, `as_today` does (its cap reads as 0 on the empty
// profile). /readyz agrees with the policy, and the choices are counted.
// Then self-telemetry over the same kind of store: points the stopped store
// cannot take wait in the bounded backlog and are written once it is back.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bidder/app.h"
#include "bidder/bid/device_key.h"
#include "bidder/telemetry/self_telemetry.h"
#include "bidder/telemetry/telemetry.h"
#include "gtest/gtest.h"
#include "metrics/sharded.h"
#include "nlohmann/json.hpp"
#include "prometheus/counter.h"
#include "prometheus/registry.h"
#include "storage/hbase_store.h"
#include "storage/schemas.h"
#include "tests/bidder/decision_fixtures.h"
#include "tests/bidder/http_test_client.h"
#include "tests/storage/server/server_process.h"

namespace rtb::bidder {
namespace {

using storage::testing::StorageServerProcess;
using testing::ExampleConfig;
using testing::PostRequest;
using testing::TestConnection;
using testing::TestResponse;

constexpr std::string_view kIfa = "6d92078a-8246-4ba4-ae5b-76104861e7dc";
constexpr char kCapped[] = "northwind-travel-display";  // 12 a day, America/New_York

// A 300x250 banner: northwind (capped) is the campaign that bids on it
// contextually; litware needs a segment.
std::string Mrec() {
  return absl::StrCat(R"({"id":"req-1","imp":[{"id":"1","banner":{"w":300,"h":250}}],)",
                      R"("site":{"domain":"news.example"},"device":{"ifa":")", std::string(kIfa),
                      R"("}})");
}

std::filesystem::path TempDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    absl::StrCat("rtb-store-outage-", name, "-", ::getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

std::unique_ptr<storage::Store> ClientOf(const StorageServerProcess& server) {
  storage::HBaseStoreOptions options;
  options.endpoints = {server.endpoint()};
  options.connect_timeout_ms = 200;
  options.call_timeout_ms = 1000;
  absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenHBaseStore(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

// The metric line `name` (with its labels, as exposed) of the exposition, or
// -1 when absent.
double MetricValue(const std::string& exposition, const std::string& name) {
  const size_t at = exposition.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stod(exposition.substr(at + name.size() + 2));
}

class StoreOutageTest : public ::testing::TestWithParam<config::StoreOutagePolicy> {
 protected:
  void SetUp() override {
    dir_ = TempDir(config::StoreOutagePolicyName(GetParam()));
    server_ = std::make_unique<StorageServerProcess>(dir_ / "server");
    ASSERT_TRUE(server_->Start({"--apply-schemas"})) << server_->Stderr();

    config::BidderConfig config = ExampleConfig();
    config.server.port = 0;
    config.server.io_threads = 2;
    config.storage.backend = config::StorageBackend::kStorageServer;
    config.storage.hbase.endpoints = {server_->endpoint()};
    config.storage.hbase.connect_timeout_ms = 200;
    config.storage.hbase.call_timeout_ms = 1000;
    config.beacon_log.embedded.path = (dir_ / "beacon-log").string();
    for (config::CampaignConfig& campaign : config.campaigns) {
      campaign.store_outage_policy = GetParam();
    }
    device_key_ = std::string(DeviceKeyHasher(config.bid.device_key_secret).Hash(kIfa).bytes());
    absl::StatusOr<std::unique_ptr<BidderApp>> app = BidderApp::Create(std::move(config));
    ASSERT_TRUE(app.ok()) << app.status();
    app_ = *std::move(app);
    ASSERT_TRUE(app_->Start().ok());
  }

  void TearDown() override {
    if (app_ != nullptr) app_->Shutdown();
    app_.reset();
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  // The capped campaign's counter at its cap for the device, on the days
  // around now in the campaign's zone (so a test running over midnight
  // still finds it).
  void CapTheDevice() {
    std::unique_ptr<storage::Store> client = ClientOf(*server_);
    ASSERT_NE(client, nullptr);
    absl::TimeZone zone;
    ASSERT_TRUE(absl::LoadTimeZone("America/New_York", &zone));
    const absl::CivilDay today = absl::ToCivilDay(absl::Now(), zone);
    storage::Put put;
    put.row = device_key_;
    for (absl::CivilDay day : {today - 1, today, today + 1}) {
      put.values.push_back(
          {"fc", testing::Qualifier(kCapped, static_cast<int>(day.year()), day.month(), day.day()),
           storage::EncodeCounter(12), std::nullopt});
    }
    ASSERT_TRUE(client->Put(storage::kProfilesTable, put).ok());
  }

  TestResponse Send(const std::string& request) {
    TestConnection connection(app_->port());
    std::optional<TestResponse> response = connection.RoundTrip(request);
    EXPECT_TRUE(response.has_value());
    return response.value_or(TestResponse{});
  }
  TestResponse Bid() {
    return Send(PostRequest(app_->config().server.exchanges[0].bid_path, Mrec()));
  }
  std::string Metrics() { return Send(testing::GetRequest(app_->config().metrics.path)).body; }

  std::filesystem::path dir_;
  std::unique_ptr<StorageServerProcess> server_;
  std::unique_ptr<BidderApp> app_;
  std::string device_key_;
};

TEST_P(StoreOutageTest, TheCampaignsPolicyDecidesWhetherACappedDeviceIsBidWhileTheStoreIsDown) {
  const config::StoreOutagePolicy policy = GetParam();
  CapTheDevice();
  // Store up: the cap holds whatever the policy.
  TestResponse answer = Bid();
  EXPECT_EQ(answer.status, 204u) << answer.body;
  EXPECT_EQ(Send(testing::GetRequest("/readyz")).body, "ready\n");

  ASSERT_EQ(server_->Stop(SIGKILL), std::nullopt) << "killed, not exited";
  // The readiness check notices within its interval (1 s); bounded wait.
  TestResponse ready;
  for (int i = 0; i < 100; ++i) {
    ready = Send(testing::GetRequest("/readyz"));
    if (ready.body != "ready\n") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(ready.body, "ready\n");
  const int bidding_without_profiles = [&] {
    int n = 0;
    for (const config::CampaignConfig& campaign : app_->config().campaigns) {
      n += config::BidsWithoutProfile(campaign) ? 1 : 0;
    }
    return n;
  }();
  if (bidding_without_profiles > 0) {
    // Still bidding: reported ready (degraded), so a load balancer keeps it.
    EXPECT_EQ(ready.status, 200u) << ready.body;
    EXPECT_NE(ready.body.find("degraded"), std::string::npos) << ready.body;
  } else {
    EXPECT_EQ(ready.status, 503u) << ready.body;
  }

  // Every request is still answered, before its deadline, lookup failing.
  int bids_of_capped = 0;
  for (int i = 0; i < 5; ++i) {
    answer = Bid();
    ASSERT_TRUE(answer.status == 200u || answer.status == 204u) << answer.status;
    if (answer.status == 200u) {
      const nlohmann::json body = nlohmann::json::parse(answer.body);
      EXPECT_EQ(body["seatbid"][0]["bid"][0]["cid"], kCapped);
      ++bids_of_capped;
    }
  }
  const std::string metrics = Metrics();
  const std::string series =
      absl::StrCat("bidder_store_outage_decisions_total{campaign=\"", kCapped, "\",decision=\"",
                   policy == config::StoreOutagePolicy::kAsToday ? "allowed" : "withheld",
                   "\",policy=\"", config::StoreOutagePolicyName(policy), "\"}");
  if (policy == config::StoreOutagePolicy::kAsToday) {
    // As before the policy existed: the cap reads as 0 and the device is bid.
    EXPECT_EQ(bids_of_capped, 5);
  } else {
    EXPECT_EQ(bids_of_capped, 0);
    EXPECT_EQ(MetricValue(metrics, "bidder_bid_requests_total{exchange=\"" +
                                       app_->config().server.exchanges[0].name +
                                       "\",outcome=\"nobid_store_outage\"}"),
              5)
        << metrics;
  }
  EXPECT_EQ(MetricValue(metrics, series), 5) << series << "\n" << metrics;
}

INSTANTIATE_TEST_SUITE_P(Policies, StoreOutageTest,
                         ::testing::Values(config::StoreOutagePolicy::kNoBid,
                                           config::StoreOutagePolicy::kContextualOnly,
                                           config::StoreOutagePolicy::kAsToday),
                         [](const auto& info) {
                           return std::string(config::StoreOutagePolicyName(info.param));
                         });

TEST(SelfTelemetryBacklogTest, PointsTheStoppedStoreCannotTakeAreWrittenWhenItIsBack) {
  const std::filesystem::path dir = TempDir("telemetry");
  auto server = std::make_unique<StorageServerProcess>(dir / "server");
  ASSERT_TRUE(server->Start({"--apply-schemas"})) << server->Stderr();
  const int port = server->port();
  std::unique_ptr<storage::Store> store = ClientOf(*server);
  ASSERT_NE(store, nullptr);

  constexpr int64_t kStartS = 1791115200;
  auto clock = std::make_shared<storage::ManualClock>(kStartS * 1000);
  prometheus::Registry registry;
  telemetry::TelemetryOptions options;
  options.clock = clock;
  options.registry = &registry;
  absl::StatusOr<std::unique_ptr<telemetry::Telemetry>> telemetry =
      telemetry::Telemetry::Create(*store, options);
  ASSERT_TRUE(telemetry.ok()) << telemetry.status();
  prometheus::Registry source;
  prometheus::Counter& bids =
      prometheus::BuildCounter().Name("bidder_bids_total").Help("b").Register(source).Add({});
  telemetry::SelfTelemetryOptions self_options;
  self_options.max_backlog_points = 3;
  self_options.max_backlog_age_s = 600;
  telemetry::SelfTelemetry self(**telemetry, source, self_options);
  auto dropped = [&](const std::string& reason) {
    for (const prometheus::MetricFamily& family : metrics::Collect(source)) {
      if (family.name != "bidder_telemetry_points_dropped_total") continue;
      for (const prometheus::ClientMetric& m : family.metric) {
        if (m.label[0].value == reason) return m.counter.value;
      }
    }
    return -1.0;
  };

  bids.Increment();
  EXPECT_EQ(self.SampleOnce().success, 1);

  ASSERT_EQ(server->Stop(SIGKILL), std::nullopt);
  for (int i = 0; i < 4; ++i) {
    clock->Advance(10000);
    bids.Increment();
    const telemetry::WriteSummary summary = self.SampleOnce();
    EXPECT_EQ(summary.success, 0);
    EXPECT_EQ(summary.failed, i + 1) << "the backlog and the new point";
  }
  // Four points could not be written; the backlog keeps the newest three.
  EXPECT_EQ(self.backlog_size(), 3u);
  EXPECT_EQ(dropped("overflow"), 1);

  // The store back (same port, same data): the backlog goes first.
  server = std::make_unique<StorageServerProcess>(dir / "server");
  ASSERT_TRUE(server->Start({"--port", std::to_string(port)})) << server->Stderr();
  bool written = false;
  for (int i = 0; i < 50 && !written; ++i) {
    clock->Advance(1000);
    const telemetry::WriteSummary summary = self.SampleOnce();
    written = summary.success > 0;
    if (written) {
      EXPECT_EQ(summary.success, 4) << "three from the backlog and the new one";
    }
    if (!written) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(written);
  EXPECT_EQ(self.backlog_size(), 0u);

  telemetry::TimeSeriesQuery query;
  query.metric = "bidder_bids_total";
  query.start_s = kStartS - 60;
  query.end_s = kStartS + 600;
  absl::StatusOr<telemetry::QueryResult> result = (*telemetry)->Query(query);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->groups.size(), 1u);
  // The three points the backlog kept are stored, with their own timestamps
  // and values. (The first point may be gone: telemetry writes with ASYNC_WAL
  // and the server was killed right after it.)
  std::map<int64_t, double> stored;
  for (const auto& point : result->groups[0].points) stored[point.timestamp] = point.value;
  for (int64_t offset : {20, 30, 40}) {
    ASSERT_TRUE(stored.contains(kStartS + offset)) << offset;
    EXPECT_EQ(stored[kStartS + offset], 1 + offset / 10);
  }

  // A backlog older than its age bound is given up, and counted.
  ASSERT_EQ(server->Stop(SIGKILL), std::nullopt);
  clock->Advance(10000);
  self.SampleOnce();
  ASSERT_EQ(self.backlog_size(), 1u);
  clock->Advance(601 * 1000);
  self.SampleOnce();
  EXPECT_EQ(dropped("expired"), 1);
  EXPECT_EQ(self.backlog_size(), 1u) << "only the newest sample's point waits";

  self.Stop();
  telemetry->reset();
  store.reset();
  server.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rtb::bidder

// Two rtb-bidder processes sharing one storage-server: a campaign created,
// paused or re-budgeted through one bidder's admin API reaches the other's
// bid path through the campaigns table's change log, with no restart. The
// two-bidder test also runs on real HBase (label hbase; RTB_HBASE_THRIFT
// names the Thrift2 gateway).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "storage/schemas.h"
#include "tests/bidder/http_test_client.h"
#include "tests/bidder/sessions/test_password_hash.h"
#include "tests/config/sample_config.h"
#include "tests/storage/child_process.h"
#include "tests/storage/server/server_process.h"
#include "tests/storage/test_hbase.h"

namespace rtb::bidder {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using testing::GetRequest;
using testing::PostRequest;
using testing::TestConnection;
using testing::TestResponse;

constexpr char kUser[] = "ops@example.test";
constexpr char kPassword[] = "correct horse battery staple";
// What the issue promises: a change bids (or stops) on every worker within
// this long.
constexpr auto kFollowBound = std::chrono::seconds(2);

// One rtb-bidder child process on an ephemeral loopback port.
class BidderProcess {
 public:
  explicit BidderProcess(fs::path dir)
      : dir_(std::move(dir)), child_(dir_ / "stdout.txt", dir_ / "stderr.txt") {
    fs::create_directories(dir_);
  }

  // Starts with `config` and waits (at most 30 s) until it listens.
  bool Start(nlohmann::json config) {
    // Each bidder its own beacon log (one writer per directory).
    config["beacon_log"]["embedded"]["path"] = (dir_ / "beacon-log").string();
    const fs::path config_path = dir_ / "bidder.json";
    std::ofstream(config_path) << config.dump(2);
    const fs::path port_file = dir_ / "port";
    if (!child_.Start({RTB_BIDDER_BINARY, "--config", config_path.string(), "--port-file",
                       port_file.string()})) {
      return false;
    }
    port_ = static_cast<uint16_t>(child_.AwaitPortFile(port_file, std::chrono::seconds(30)));
    return port_ != 0;
  }

  uint16_t port() const { return port_; }
  std::string Stderr() const { return storage::testing::ReadWholeFile(dir_ / "stderr.txt"); }

 private:
  fs::path dir_;
  storage::testing::ChildProcess child_;
  uint16_t port_ = 0;
};

nlohmann::json BidderConfig(const std::string& storage_endpoint, int worker_id,
                            const std::string& password_hash,
                            const std::string& backend = "storage-server") {
  nlohmann::json config = config::testing::MinimalConfig();
  config["server"] = {{"listen_address", "127.0.0.1"}, {"port", 0}};
  config["storage"] = {{"backend", backend}, {"hbase", {{"endpoints", {storage_endpoint}}}}};
  config["campaigns"] = nlohmann::json::array();
  config["pacing"] = {{"worker_id", worker_id}};
  config["telemetry"] = {{"enabled", false}};
  config["sessions"] = {{"operators", {{{"user", kUser}, {"password_hash", password_hash}}}},
                        {"cookie_secure", false}};
  return config;
}

// An operator session on one bidder: requests carry its cookie and CSRF
// token.
class Operator {
 public:
  explicit Operator(uint16_t port) : port_(port) {}

  bool LogIn() {
    TestConnection connection(port_);
    std::optional<TestResponse> response = connection.RoundTrip(
        PostRequest("/api/login", nlohmann::json{{"user", kUser}, {"password", kPassword}}.dump()));
    if (!response.has_value() || response->status != 200) return false;
    const std::string set_cookie = response->Header("set-cookie");
    headers_ = absl::StrCat(
        "Cookie: ", set_cookie.substr(0, set_cookie.find(';')), "\r\n",
        "X-CSRF-Token: ", nlohmann::json::parse(response->body)["csrf_token"].get<std::string>(),
        "\r\n");
    return true;
  }

  std::optional<TestResponse> Post(const std::string& target, const std::string& body) {
    TestConnection connection(port_);
    return connection.RoundTrip(PostRequest(target, body, headers_));
  }
  std::optional<TestResponse> Get(const std::string& target) {
    TestConnection connection(port_);
    return connection.RoundTrip(GetRequest(target, headers_));
  }
  // PUT, PATCH or DELETE with a JSON body.
  std::optional<TestResponse> Send(const std::string& method, const std::string& target,
                                   const std::string& body) {
    std::string request = PostRequest(target, body, headers_);
    request.replace(0, 4, method);
    TestConnection connection(port_);
    return connection.RoundTrip(request);
  }

 private:
  uint16_t port_;
  std::string headers_;
};

// A storage-server and one bidder on it (its config with `changes` merged
// in), with an operator logged in.
struct OneBidder {
  explicit OneBidder(std::string_view name)
      : dir(fs::path(::testing::TempDir()) / absl::StrCat(std::string(name), "-", ::getpid(), "-",
                                                          Clock::now().time_since_epoch().count())),
        server(dir / "server"),
        bidder(dir / "a") {}

  bool Start(const nlohmann::json& changes) {
    if (!server.Start({})) return false;
    nlohmann::json config =
        BidderConfig(server.endpoint(), 1, bidder::sessions::testing::TestPasswordHash(kPassword));
    config.merge_patch(changes);
    if (!bidder.Start(config)) return false;
    ops.emplace(bidder.port());
    return ops->LogIn();
  }

  fs::path dir;
  storage::testing::StorageServerProcess server;
  BidderProcess bidder;
  std::optional<Operator> ops;
};

// The first bid `port` answers `request` with, null for a no-bid.
nlohmann::json Bid(uint16_t port, const std::string& request) {
  TestConnection connection(port);
  std::optional<TestResponse> response =
      connection.RoundTrip(PostRequest("/openrtb2/bid", request, "x-openrtb-version: 2.6\r\n"));
  if (!response.has_value() || response->status != 200) return nullptr;
  nlohmann::json body = nlohmann::json::parse(response->body, nullptr, false);
  if (body.is_discarded()) return nullptr;
  return body["seatbid"][0]["bid"][0];
}

// The campaign id of the bid `port` answers `request` with, "" for a no-bid.
std::string BidCampaign(uint16_t port, const std::string& request) {
  const nlohmann::json bid = Bid(port, request);
  return bid.is_object() ? bid.value("cid", "") : "";
}

// The value of the series `series` (name and labels, as exposed) on
// `port`'s /metrics; -1 when absent.
double MetricValue(uint16_t port, const std::string& series) {
  TestConnection connection(port);
  std::optional<TestResponse> metrics = connection.RoundTrip(GetRequest("/metrics"));
  if (!metrics.has_value()) return -1;
  const size_t at = metrics->body.find(series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(metrics->body.substr(at + series.size() + 1));
}

// How long until `port` answers `request` as `wanted` says, polling every
// 20 ms; nullopt when it did not within `bound`.
template <typename Predicate>
std::optional<std::chrono::milliseconds> TimeUntil(uint16_t port, const std::string& request,
                                                   Clock::time_point since,
                                                   std::chrono::milliseconds bound,
                                                   Predicate wanted) {
  while (Clock::now() - since <= bound) {
    if (wanted(BidCampaign(port, request))) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

enum class Backend { kStorageServer, kHBase };

class LiveCampaignsFleetTest : public ::testing::TestWithParam<Backend> {
 protected:
  // The shared store: a storage-server of the test's own, or the HBase
  // cluster with the campaign tables dropped (earlier tests' campaigns out).
  std::string SharedStore(const fs::path& dir) {
    if (GetParam() == Backend::kStorageServer) {
      server_ = std::make_unique<storage::testing::StorageServerProcess>(dir / "server");
      EXPECT_TRUE(server_->Start({})) << server_->Stderr();
      return server_->endpoint();
    }
    const std::string cluster = rtb::testing::TestHBaseEndpointOrReportItMissing();
    if (cluster.empty()) return "";
    auto store = rtb::testing::OpenTestHBase();
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return "";
    for (std::string_view table : {storage::kCampaignsTable, storage::kCampaignChangesTable,
                                   storage::kCampaignAuditTable, storage::kLeasesTable}) {
      absl::StatusOr<bool> exists = (*store)->TableExists(table);
      EXPECT_TRUE(exists.ok()) << exists.status();
      if (exists.ok() && *exists) {
        EXPECT_TRUE((*store)->DeleteTable(table).ok()) << table;
      }
    }
    return cluster;
  }
  std::string BackendName() const {
    return GetParam() == Backend::kHBase ? "hbase" : "storage-server";
  }

  std::unique_ptr<storage::testing::StorageServerProcess> server_;
};

TEST_P(LiveCampaignsFleetTest, AChangeThroughOneBidderReachesTheOtherWithinTwoSeconds) {
  const fs::path dir =
      fs::path(::testing::TempDir()) /
      absl::StrCat("live-campaigns-", ::getpid(), "-", Clock::now().time_since_epoch().count());
  const std::string endpoint = SharedStore(dir);
  if (HasFailure()) return;
  if (endpoint.empty()) GTEST_SKIP() << "RTB_HBASE_THRIFT is not set";
  const std::string hash = bidder::sessions::testing::TestPasswordHash(kPassword);

  BidderProcess a(dir / "a");
  ASSERT_TRUE(a.Start(BidderConfig(endpoint, 1, hash, BackendName()))) << a.Stderr();
  BidderProcess b(dir / "b");
  ASSERT_TRUE(b.Start(BidderConfig(endpoint, 2, hash, BackendName()))) << b.Stderr();

  const std::string request =
      storage::testing::ReadWholeFile(fs::path(RTB_OPENRTB_FIXTURES_DIR) / "site-banner-mrec.json");
  ASSERT_FALSE(request.empty());
  EXPECT_EQ(BidCampaign(b.port(), request), "") << "no campaign exists yet";

  Operator ops(a.port());
  ASSERT_TRUE(ops.LogIn()) << a.Stderr();

  // Created on A: B bids with it within 2 s.
  nlohmann::json campaign = config::testing::Campaign("live-1");
  campaign["max_bid_cpm"] = 3.0;
  std::optional<TestResponse> created = ops.Post("/api/campaigns", campaign.dump());
  ASSERT_TRUE(created.has_value());
  ASSERT_EQ(created->status, 201u) << created->body;
  const Clock::time_point created_at = Clock::now();
  EXPECT_EQ(nlohmann::json::parse(created->body)["version"], 1);
  std::optional<std::chrono::milliseconds> bids_after =
      TimeUntil(b.port(), request, created_at, kFollowBound,
                [](const std::string& cid) { return cid == "live-1"; });
  ASSERT_TRUE(bids_after.has_value()) << "B did not bid with the new campaign within 2 s\n"
                                      << b.Stderr();
  std::printf("created on A, bid on B after %lld ms\n",
              static_cast<long long>(bids_after->count()));

  // B's beacons know the new campaign: its billing notice is a win with
  // spend, not an unknown campaign.
  const nlohmann::json bid = Bid(b.port(), request);
  ASSERT_TRUE(bid.is_object());
  std::string burl = bid.value("burl", "");
  ASSERT_FALSE(burl.empty()) << bid.dump();
  // The exchange fills the macros (the ids are signed, the price is not).
  burl = absl::StrReplaceAll(
      burl, {{"${AUCTION_ID}", nlohmann::json::parse(request)["id"].get<std::string>()},
             {"${AUCTION_IMP_ID}", bid["impid"].get<std::string>()},
             {"${AUCTION_BID_ID}", bid["id"].get<std::string>()},
             {"${AUCTION_PRICE}", "1.5"},
             {"${AUCTION_CURRENCY}", "USD"}});
  const size_t path_at = burl.find('/', burl.find("://") + 3);
  ASSERT_NE(path_at, std::string::npos) << burl;
  TestConnection beacon(b.port());
  std::optional<TestResponse> billed = beacon.RoundTrip(GetRequest(burl.substr(path_at)));
  ASSERT_TRUE(billed.has_value());
  EXPECT_LT(billed->status, 300u) << billed->body;
  // Answered once logged; the stream worker applies it right after.
  double wins = 0;
  for (int i = 0; i < 200 && wins < 1; ++i) {
    wins = MetricValue(b.port(), "bidder_wins_total{campaign=\"live-1\",exchange=\"default\"}");
    if (wins < 1) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_EQ(wins, 1) << b.Stderr();

  // A stale edit is refused with the current version.
  std::optional<TestResponse> stale = ops.Post("/api/campaigns/live-1/pause?version=7", "");
  ASSERT_TRUE(stale.has_value());
  EXPECT_EQ(stale->status, 409u) << stale->body;
  EXPECT_EQ(nlohmann::json::parse(stale->body)["current_version"], 1);

  // Paused on A: B stops within 2 s, and stays stopped.
  std::optional<TestResponse> paused = ops.Post("/api/campaigns/live-1/pause?version=1", "");
  ASSERT_TRUE(paused.has_value());
  ASSERT_EQ(paused->status, 200u) << paused->body;
  const Clock::time_point paused_at = Clock::now();
  std::optional<std::chrono::milliseconds> stops_after =
      TimeUntil(b.port(), request, paused_at, kFollowBound,
                [](const std::string& cid) { return cid.empty(); });
  ASSERT_TRUE(stops_after.has_value()) << "B still bids 2 s after the pause\n" << b.Stderr();
  std::printf("paused on A, stopped on B after %lld ms\n",
              static_cast<long long>(stops_after->count()));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(BidCampaign(b.port(), request), "");
  EXPECT_EQ(BidCampaign(a.port(), request), "");

  // The audit history names the operator and both changes, newest first.
  std::optional<TestResponse> audit = ops.Get("/api/campaigns/live-1/audit");
  ASSERT_TRUE(audit.has_value());
  ASSERT_EQ(audit->status, 200u) << audit->body;
  const nlohmann::json entries = nlohmann::json::parse(audit->body)["audit"];
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0]["action"], "pause");
  EXPECT_EQ(entries[1]["action"], "create");
  EXPECT_EQ(entries[0]["operator"], kUser);

  // The list on B (which never saw an API call for it) filters by state.
  Operator ops_b(b.port());
  ASSERT_TRUE(ops_b.LogIn());
  std::optional<TestResponse> listed = ops_b.Get("/api/campaigns?state=paused");
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(listed->status, 200u) << listed->body;
  const nlohmann::json list = nlohmann::json::parse(listed->body)["campaigns"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], "live-1");
  EXPECT_EQ(list[0]["campaign_state"], "paused");
}

INSTANTIATE_TEST_SUITE_P(Backends, LiveCampaignsFleetTest,
                         ::testing::Values(Backend::kStorageServer, Backend::kHBase),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kHBase ? "HBase" : "StorageServer";
                         });

TEST(LiveCampaignsProcessTest, AnInvalidCampaignIsRefusedWithEveryProblem) {
  OneBidder one("live-campaigns-invalid");
  ASSERT_TRUE(one.Start(nlohmann::json::object())) << one.bidder.Stderr();
  Operator& ops = *one.ops;

  nlohmann::json campaign = config::testing::Campaign("bad-1");
  campaign["max_bid_cpm"] = -1;
  campaign["creatives"][0]["w"] = 0;
  std::optional<TestResponse> refused = ops.Post("/api/campaigns", campaign.dump());
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 422u) << refused->body;
  const nlohmann::json problems = nlohmann::json::parse(refused->body)["problems"];
  ASSERT_GE(problems.size(), 2u) << refused->body;
  std::string all;
  for (const nlohmann::json& p : problems) all += p.get<std::string>() + "\n";
  EXPECT_NE(all.find("max_bid_cpm: "), std::string::npos) << all;
  EXPECT_NE(all.find("creatives[0].w: "), std::string::npos) << all;

  std::optional<TestResponse> missing = ops.Get("/api/campaigns/bad-1");
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->status, 404u);
}

TEST(LiveCampaignsProcessTest, AWorkerThatCannotReadTheTableKeepsItsLastIndexAndCountsIt) {
  OneBidder one("live-campaigns-unreadable");
  ASSERT_TRUE(one.Start({{"campaign_store", {{"unreadable_after_s", 1}}}})) << one.bidder.Stderr();
  storage::testing::StorageServerProcess& server = one.server;
  BidderProcess& a = one.bidder;
  Operator& ops = *one.ops;
  const std::string request =
      storage::testing::ReadWholeFile(fs::path(RTB_OPENRTB_FIXTURES_DIR) / "site-banner-mrec.json");
  std::optional<TestResponse> created =
      ops.Post("/api/campaigns", config::testing::Campaign("live-2").dump());
  ASSERT_TRUE(created.has_value());
  ASSERT_EQ(created->status, 201u) << created->body;
  ASSERT_TRUE(TimeUntil(a.port(), request, Clock::now(), std::chrono::milliseconds(5000),
                        [](const std::string& cid) { return cid == "live-2"; })
                  .has_value())
      << a.Stderr();

  server.Kill();
  // Several follow periods without the table.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(BidCampaign(a.port(), request), "live-2");
  TestConnection connection(a.port());
  std::optional<TestResponse> metrics = connection.RoundTrip(GetRequest("/metrics"));
  ASSERT_TRUE(metrics.has_value());
  const std::string failed = "bidder_campaign_store_reads_total{outcome=\"error\"} ";
  const size_t at = metrics->body.find(failed);
  ASSERT_NE(at, std::string::npos) << metrics->body;
  EXPECT_GT(std::stod(metrics->body.substr(at + failed.size())), 0);
  TestConnection ready_connection(a.port());
  std::optional<TestResponse> ready = ready_connection.RoundTrip(GetRequest("/readyz"));
  ASSERT_TRUE(ready.has_value());
  EXPECT_EQ(ready->status, 503u);
}

TEST(LiveCampaignsProcessTest, PutAndPatchChangeTheBidWithVersionsAndValidation) {
  OneBidder one("live-campaigns-edits");
  ASSERT_TRUE(one.Start(nlohmann::json::object())) << one.bidder.Stderr();
  BidderProcess& a = one.bidder;
  Operator& ops = *one.ops;
  const std::string request =
      storage::testing::ReadWholeFile(fs::path(RTB_OPENRTB_FIXTURES_DIR) / "site-banner-mrec.json");
  nlohmann::json campaign = config::testing::Campaign("edit-1");
  std::optional<TestResponse> created = ops.Post("/api/campaigns", campaign.dump());
  ASSERT_TRUE(created.has_value());
  ASSERT_EQ(created->status, 201u) << created->body;
  // Bounded: the follower applies a change within a period (500 ms).
  auto price_becomes = [&](double price) {
    const auto give_up = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < give_up) {
      const nlohmann::json bid = Bid(a.port(), request);
      if (bid.is_object() && bid.value("cid", "") == "edit-1" && bid["price"] == price) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  };
  ASSERT_TRUE(price_becomes(2.0)) << a.Stderr();

  // PATCH: a merge patch on the version read; the bid follows.
  std::optional<TestResponse> patched =
      ops.Send("PATCH", "/api/campaigns/edit-1?version=1", R"({"max_bid_cpm": 1.25})");
  ASSERT_TRUE(patched.has_value());
  ASSERT_EQ(patched->status, 200u) << patched->body;
  EXPECT_EQ(nlohmann::json::parse(patched->body)["version"], 2);
  EXPECT_TRUE(price_becomes(1.25)) << a.Stderr();

  // The same version again is stale: 409 with the current one, nothing lost.
  std::optional<TestResponse> stale =
      ops.Send("PATCH", "/api/campaigns/edit-1?version=1", R"({"max_bid_cpm": 9})");
  ASSERT_TRUE(stale.has_value());
  EXPECT_EQ(stale->status, 409u) << stale->body;
  EXPECT_EQ(nlohmann::json::parse(stale->body)["current_version"], 2);

  // Every problem at once, with the config file's paths: 422, nothing stored.
  std::optional<TestResponse> invalid = ops.Send("PATCH", "/api/campaigns/edit-1?version=2",
                                                 R"({"max_bid_cpm": -1, "time_zone": "Mars"})");
  ASSERT_TRUE(invalid.has_value());
  ASSERT_EQ(invalid->status, 422u) << invalid->body;
  const nlohmann::json problems = nlohmann::json::parse(invalid->body)["problems"];
  ASSERT_EQ(problems.size(), 2u) << invalid->body;
  EXPECT_EQ(problems[0].get<std::string>().rfind("time_zone: ", 0), 0u) << invalid->body;
  EXPECT_EQ(problems[1], "max_bid_cpm: must be > 0") << invalid->body;

  // PUT: the whole object replaces the stored one.
  campaign["max_bid_cpm"] = 1.75;
  std::optional<TestResponse> replaced =
      ops.Send("PUT", "/api/campaigns/edit-1?version=2", campaign.dump());
  ASSERT_TRUE(replaced.has_value());
  ASSERT_EQ(replaced->status, 200u) << replaced->body;
  EXPECT_EQ(nlohmann::json::parse(replaced->body)["version"], 3);
  EXPECT_TRUE(price_becomes(1.75)) << a.Stderr();
  std::optional<TestResponse> unknown =
      ops.Send("PUT", "/api/campaigns/nobody?version=1", campaign.dump());
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->status, 404u) << unknown->body;

  // Both edits audited, newest first, with what they changed.
  std::optional<TestResponse> audit = ops.Get("/api/campaigns/edit-1/audit");
  ASSERT_TRUE(audit.has_value());
  const nlohmann::json entries = nlohmann::json::parse(audit->body)["audit"];
  ASSERT_EQ(entries.size(), 3u) << audit->body;
  EXPECT_EQ(entries[0]["action"], "update");
  EXPECT_EQ(entries[1]["action"], "update");
  EXPECT_EQ(entries[2]["action"], "create");
  EXPECT_EQ(entries[1]["before"]["max_bid_cpm"], 2.0) << audit->body;
  EXPECT_EQ(entries[1]["after"]["max_bid_cpm"], 1.25) << audit->body;
}

}  // namespace
}  // namespace rtb::bidder

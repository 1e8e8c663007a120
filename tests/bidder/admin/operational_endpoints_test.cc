// Tests of bidder/operational_endpoints and bidder/readiness (and the
// in-process BidderApp) with real embedded stores.
#include "bidder/admin/operational_endpoints.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "bidder/admin/readiness.h"
#include "bidder/app.h"
#include "bidder/http/http_server.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/store.h"
#include "tests/bidder/http_test_client.h"

namespace rtb::bidder {
namespace {

using testing::GetRequest;
using testing::TestConnection;
using testing::TestResponse;

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("rtb-bidder-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// An embedded store whose health the test controls: every call goes to the
// real store; CheckHealth fails when told to, or blocks until released, so
// readiness sees exactly the conditions a broken backend produces.
class HealthControlledStore : public storage::Store {
 public:
  explicit HealthControlledStore(std::unique_ptr<storage::Store> inner)
      : inner_(std::move(inner)) {}

  void SetUnhealthy(bool unhealthy) { unhealthy_ = unhealthy; }
  void SetHanging(bool hanging) {
    std::lock_guard<std::mutex> lock(mu_);
    hanging_ = hanging;
    released_.notify_all();
  }

  absl::Status CheckHealth() override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      released_.wait_for(lock, std::chrono::seconds(10), [this] { return !hanging_; });
    }
    if (unhealthy_) return absl::UnavailableError("disk gone (test)");
    return inner_->CheckHealth();
  }

  absl::Status CreateTable(const storage::TableSchema& schema) override {
    return inner_->CreateTable(schema);
  }
  absl::StatusOr<bool> TableExists(std::string_view table) override {
    return inner_->TableExists(table);
  }
  absl::Status DeleteTable(std::string_view table) override { return inner_->DeleteTable(table); }
  absl::StatusOr<storage::RowResult> Get(std::string_view table, const storage::Get& get) override {
    return inner_->Get(table, get);
  }
  absl::StatusOr<std::vector<storage::RowResult>> MultiGet(
      std::string_view table, std::span<const storage::Get> gets) override {
    return inner_->MultiGet(table, gets);
  }
  absl::Status Put(std::string_view table, const storage::Put& put) override {
    return inner_->Put(table, put);
  }
  absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) override {
    return inner_->PutBatch(table, puts);
  }
  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    return inner_->Delete(table, del);
  }
  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    return inner_->DeleteBatch(table, deletes);
  }
  absl::StatusOr<storage::RowResult> Increment(std::string_view table,
                                               const storage::Increment& increment) override {
    return inner_->Increment(table, increment);
  }
  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    return inner_->CheckAndMutate(table, cam);
  }
  absl::StatusOr<std::vector<storage::RowResult>> Scan(std::string_view table,
                                                       const storage::Scan& scan) override {
    return inner_->Scan(table, scan);
  }
  absl::StatusOr<std::unique_ptr<storage::Scanner>> OpenScanner(
      std::string_view table, const storage::Scan& scan) override {
    return inner_->OpenScanner(table, scan);
  }
  void AsyncGet(std::string_view table, storage::Get get, storage::Deadline deadline,
                boost::asio::any_io_executor executor, storage::GetCallback done) override {
    inner_->AsyncGet(table, std::move(get), deadline, std::move(executor), std::move(done));
  }
  void AsyncScan(std::string_view table, storage::Scan scan, storage::Deadline deadline,
                 boost::asio::any_io_executor executor, storage::ScanCallback done) override {
    inner_->AsyncScan(table, std::move(scan), deadline, std::move(executor), std::move(done));
  }
  absl::Status Flush(std::string_view table) override { return inner_->Flush(table); }
  absl::Status MajorCompact(std::string_view table) override { return inner_->MajorCompact(table); }

 private:
  std::unique_ptr<storage::Store> inner_;
  std::atomic<bool> unhealthy_{false};
  std::mutex mu_;
  std::condition_variable released_;
  bool hanging_ = false;
};

class OperationalEndpointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    storage::EmbeddedStoreOptions options;
    options.path = path_;
    options.block_cache_bytes = 8 << 20;
    options.memtable_budget_bytes = 2 << 20;
    options.row_cache_bytes = 0;
    auto inner = storage::OpenEmbeddedStore(options);
    ASSERT_TRUE(inner.ok()) << inner.status();
    store_ = std::make_unique<HealthControlledStore>(*std::move(inner));
  }

  void StartServer(StorageReadinessOptions readiness_options = {},
                   int campaigns_bidding_without_profiles = 0) {
    readiness_ = std::make_unique<StorageReadiness>(*store_, readiness_options);
    config::ServerConfig config;
    config.port = 0;
    config.io_threads = 1;
    auto server = HttpServer::Create(config, registry_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    AddOperationalEndpoints(*server_, *readiness_, registry_, "/metrics",
                            campaigns_bidding_without_profiles);
    ASSERT_TRUE(server_->Start().ok());
  }

  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::milliseconds(100));
    server_.reset();
    readiness_.reset();
    store_.reset();
    std::filesystem::remove_all(path_);
  }

  std::optional<TestResponse> Get(const std::string& path) {
    TestConnection conn(server_->port());
    return conn.RoundTrip(GetRequest(path));
  }

  // Polls /readyz (bounded) until it answers `status`.
  std::optional<TestResponse> AwaitReadyz(unsigned status) {
    std::optional<TestResponse> r;
    for (int i = 0; i < 300; ++i) {
      r = Get("/readyz");
      if (r && r->status == status) return r;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return r;
  }

  std::string path_;
  std::unique_ptr<HealthControlledStore> store_;
  prometheus::Registry registry_;
  std::unique_ptr<StorageReadiness> readiness_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(OperationalEndpointsTest, HealthzAnswersOk) {
  StartServer();
  auto r = Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
  EXPECT_EQ(r->body, "ok");
}

TEST_F(OperationalEndpointsTest, ReadyzIsReadyOnAHealthyEmbeddedStore) {
  StartServer();
  auto r = Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
  EXPECT_EQ(r->body, "ready\n");
}

TEST_F(OperationalEndpointsTest, ReadyzIs503WithTheReasonWhenTheStoreIsUnhealthy) {
  StartServer({.check_interval = std::chrono::milliseconds(10),
               .max_result_age = std::chrono::milliseconds(5000)});
  ASSERT_EQ(Get("/readyz")->status, 200u);
  store_->SetUnhealthy(true);
  auto r = AwaitReadyz(503);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503u);
  EXPECT_NE(r->body.find("disk gone (test)"), std::string::npos) << r->body;
  // Liveness is not readiness: the process still serves.
  EXPECT_EQ(Get("/healthz")->status, 200u);
  store_->SetUnhealthy(false);
  r = AwaitReadyz(200);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
}

TEST_F(OperationalEndpointsTest, ReadyzStaysReadyButDegradedWhileSomeCampaignBidsWithoutProfiles) {
  StartServer({.check_interval = std::chrono::milliseconds(10),
               .max_result_age = std::chrono::milliseconds(5000)},
              /*campaigns_bidding_without_profiles=*/2);
  ASSERT_EQ(Get("/readyz")->body, "ready\n");
  EXPECT_TRUE(readiness_->healthy());
  store_->SetUnhealthy(true);
  std::optional<TestResponse> r;
  for (int i = 0; i < 300 && readiness_->healthy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(readiness_->healthy());
  r = Get("/readyz");
  ASSERT_TRUE(r);
  // A bidder still bidding is not drained by a load balancer acting on 503.
  EXPECT_EQ(r->status, 200u);
  EXPECT_NE(r->body.find("degraded"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("disk gone (test)"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("2 campaigns bid without profiles"), std::string::npos) << r->body;
  store_->SetUnhealthy(false);
  for (int i = 0; i < 300 && !readiness_->healthy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(Get("/readyz")->body, "ready\n");
}

TEST_F(OperationalEndpointsTest, ReadyzIs503WhenUnhealthyFromTheStart) {
  store_->SetUnhealthy(true);
  StartServer();
  auto r = Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503u);
}

TEST_F(OperationalEndpointsTest, ReadyzIs503WhenTheHealthCheckHangs) {
  StartServer({.check_interval = std::chrono::milliseconds(10),
               .max_result_age = std::chrono::milliseconds(100)});
  store_->SetHanging(true);
  // The I/O thread keeps answering while the check hangs elsewhere.
  auto r = AwaitReadyz(503);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503u);
  EXPECT_NE(r->body.find("has not completed"), std::string::npos) << r->body;
  store_->SetHanging(false);
  r = AwaitReadyz(200);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
}

TEST_F(OperationalEndpointsTest, MetricsServesTheTextExpositionOfTheRegistry) {
  StartServer();
  ASSERT_EQ(Get("/healthz")->status, 200u);
  auto r = Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
  EXPECT_EQ(r->Header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  for (const char* expected : {
           "# TYPE bidder_http_requests_total counter",
           "bidder_http_requests_total{code=\"200\",path=\"/healthz\"} 1",
           "# TYPE bidder_http_open_connections gauge",
           "bidder_http_rejected_connections_total{reason=\"max_connections\"} 0",
           "bidder_http_rejected_connections_total{reason=\"peer_limit\"} 0",
           "# TYPE bidder_http_request_bytes histogram",
           "# TYPE bidder_http_request_duration_seconds histogram",
           "bidder_http_closed_connections_total{reason=\"peer\"}",
           "bidder_http_request_errors_total{reason=\"malformed\"} 0",
       }) {
    EXPECT_NE(r->body.find(expected), std::string::npos) << expected << "\n" << r->body;
  }
}

config::BidderConfig AppConfig(const std::string& data_path) {
  config::BidderConfig config;
  config.server.port = 0;
  config.server.io_threads = 1;
  config.storage.embedded.path = data_path;
  config.storage.embedded.block_cache_mib = 8;
  config.storage.embedded.write_buffer_mib = 4;
  config.bid.device_key_secret = std::string(32, 'd');
  config.bid.beacon_secret = std::string(32, 'b');
  return config;
}

TEST(BidderAppTest, StartsOnAnEmbeddedStoreWithEveryTableAndServesProbes) {
  const std::string path = TempDir("app");
  {
    auto app = BidderApp::Create(AppConfig(path));
    ASSERT_TRUE(app.ok()) << app.status();
    for (const storage::TableSchema& table : storage::BidderTables()) {
      auto exists = (*app)->store().TableExists(table.name);
      ASSERT_TRUE(exists.ok());
      EXPECT_TRUE(*exists) << table.name;
    }
    ASSERT_TRUE((*app)->Start().ok());
    TestConnection conn((*app)->port());
    EXPECT_EQ(conn.RoundTrip(GetRequest("/healthz"))->status, 200u);
    EXPECT_EQ(conn.RoundTrip(GetRequest("/readyz"))->status, 200u);
    EXPECT_EQ(conn.RoundTrip(GetRequest("/metrics"))->status, 200u);
    (*app)->Shutdown();
  }
  // The tables survive a restart: a second start finds them identical.
  {
    auto app = BidderApp::Create(AppConfig(path));
    ASSERT_TRUE(app.ok()) << app.status();
  }
  std::filesystem::remove_all(path);
}

// The value of the first sample of `series` (name and labels as written)
// in a text exposition; -1 when absent.
double Sample(const std::string& exposition, const std::string& series) {
  const size_t at = exposition.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(exposition.substr(at + series.size() + 2));
}

TEST(BidderAppTest, MetricsShowWhereTheMemoryIs) {
  const std::string path = TempDir("app-memory");
  auto app = BidderApp::Create(AppConfig(path));
  ASSERT_TRUE(app.ok()) << app.status();
  ASSERT_TRUE((*app)->Start().ok());
  TestConnection conn((*app)->port());
  const std::string before = conn.RoundTrip(GetRequest("/metrics"))->body;
  EXPECT_GT(Sample(before, "bidder_process_resident_bytes"), 1 << 20) << before;
  EXPECT_GT(Sample(before, "bidder_heap_bytes{state=\"in_use\"}"), 0);
  EXPECT_GE(Sample(before, "bidder_heap_bytes{state=\"free\"}"), 0);
  for (const char* part :
       {"block_cache", "block_cache_pinned", "memtables", "table_readers", "row_cache"}) {
    EXPECT_GE(Sample(before, std::string("bidder_store_memory_bytes{part=\"") + part + "\"}"), 0)
        << part;
  }
  // 2 MB of writes stay in the memtables (4 MiB each here) until a flush.
  storage::Put put;
  put.row = "memory-test";
  for (int i = 0; i < 64; ++i) {
    put.values.push_back({std::string(storage::kProfileSegmentFamily), "s" + std::to_string(i),
                          std::string(32 * 1024, 'x'), std::nullopt});
  }
  ASSERT_TRUE((*app)->store().Put(storage::kProfilesTable, put).ok());
  const std::string after = conn.RoundTrip(GetRequest("/metrics"))->body;
  EXPECT_GE(Sample(after, "bidder_store_memory_bytes{part=\"memtables\"}"),
            Sample(before, "bidder_store_memory_bytes{part=\"memtables\"}") + 2e6);
  (*app)->Shutdown();
  std::filesystem::remove_all(path);
}

// A row read twice: the first read misses the row cache (once per family of
// the profiles table), the second is answered from it.
TEST(BidderAppTest, MetricsCountTheRowCachesHitsAndMisses) {
  const std::string path = TempDir("app-row-cache");
  auto app = BidderApp::Create(AppConfig(path));
  ASSERT_TRUE(app.ok()) << app.status();
  ASSERT_TRUE((*app)->Start().ok());
  TestConnection conn((*app)->port());
  const std::string before = conn.RoundTrip(GetRequest("/metrics"))->body;
  const double hits = Sample(before, "bidder_store_row_cache_reads_total{result=\"hit\"}");
  const double misses = Sample(before, "bidder_store_row_cache_reads_total{result=\"miss\"}");
  ASSERT_GE(hits, 0) << before;
  ASSERT_GE(misses, 0) << before;
  storage::Put put;
  put.row = "row-cache-test";
  put.values.push_back(
      {std::string(storage::kProfileSegmentFamily), "s1", std::string("Z"), std::nullopt});
  ASSERT_TRUE((*app)->store().Put(storage::kProfilesTable, put).ok());
  storage::Get get;
  get.row = put.row;
  for (int read = 0; read < 2; ++read) {
    absl::StatusOr<storage::RowResult> row = (*app)->store().Get(storage::kProfilesTable, get);
    ASSERT_TRUE(row.ok() && row->cells.size() == 1u);
  }
  const std::string after = conn.RoundTrip(GetRequest("/metrics"))->body;
  // At least: the bidder's own background reads may count too.
  EXPECT_GE(Sample(after, "bidder_store_row_cache_reads_total{result=\"miss\"}"), misses + 2);
  EXPECT_GE(Sample(after, "bidder_store_row_cache_reads_total{result=\"hit\"}"), hits + 2);
  (*app)->Shutdown();
  std::filesystem::remove_all(path);
}

TEST(BidderAppTest, HBaseBackendWithoutAGatewayFailsToStartWithTheEndpoint) {
  config::BidderConfig config = AppConfig(TempDir("unused"));
  config.storage.backend = config::StorageBackend::kHBase;
  // Nothing listens on port 1 of the loopback interface.
  config.storage.hbase.endpoints = {"127.0.0.1:1"};
  config.storage.hbase.connect_timeout_ms = 200;
  config.storage.hbase.call_timeout_ms = 500;
  auto app = BidderApp::Create(config);
  ASSERT_FALSE(app.ok());
  EXPECT_NE(std::string(app.status().message()).find("cannot create the bidder's tables"),
            std::string::npos)
      << app.status();
}

TEST(BidderAppTest, EmbeddedStoreInAnUnusablePathFailsWithThePath) {
  config::BidderConfig config = AppConfig("/proc/rtb-bidder-cannot-be-here");
  auto app = BidderApp::Create(config);
  ASSERT_FALSE(app.ok());
  EXPECT_NE(std::string(app.status().message()).find("/proc/rtb-bidder-cannot-be-here"),
            std::string::npos)
      << app.status();
}

}  // namespace
}  // namespace rtb::bidder

// A fleet on one store (issue 41): two rtb-bidder processes started from
// one configuration (pacing.worker_id "auto") and rtb-pacer on a
// storage-server, billing notices through both bidders at once; one bidder
// is killed with SIGKILL mid-load and restarted. Each process leases a
// worker id of its own, the restarted one a third (its predecessor's is
// still leased), and the killed id's journal is adopted once its lease has
// run out. Afterwards the spend equals the sum of the acknowledged billing
// notices exactly, each impression counted once, each device's cap count
// equal to its impressions. Twice: on a storage-server, and on real HBase
// (label hbase; RTB_HBASE_THRIFT names the Thrift2 gateway).
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "storage/hbase_store.h"
#include "tests/bidder/notice_process_harness.h"
#include "tests/storage/server/server_process.h"
#include "tests/storage/test_hbase.h"

namespace rtb::bidder::testing {
namespace {

enum class Backend { kStorageServer, kHBase };

class FleetProcessTest : public NoticeProcessTest, public ::testing::WithParamInterface<Backend> {
 protected:
  void SetUp() override {
    MakeDirectory(GetParam() == Backend::kHBase ? "fleet-hbase" : "fleet-storage-server");
  }

  // The shared store's endpoint: a storage-server of the test's own, or the
  // HBase cluster with the tables the test compares (and the leases) dropped.
  std::string SharedStore() {
    if (GetParam() == Backend::kStorageServer) {
      server_ = std::make_unique<storage::testing::StorageServerProcess>(dir_ / "server");
      EXPECT_TRUE(server_->Start({})) << server_->Stderr();
      return server_->endpoint();
    }
    const std::string cluster = rtb::testing::TestHBaseEndpointOrReportItMissing();
    if (cluster.empty()) return "";
    DropTables(cluster,
               {storage::kBudgetTable, storage::kImpressionsTable, storage::kSpendJournalTable,
                storage::kProfilesTable, storage::kEventRollupsTable,
                storage::kDeviceImpressionsTable, storage::kLeasesTable, storage::kCampaignsTable,
                storage::kCampaignChangesTable, storage::kFleetJobsTable});
    return cluster;
  }

  std::unique_ptr<storage::testing::StorageServerProcess> server_;

  // The fleet's configuration with this bidder's own beacon log directory
  // (one bidder per directory; a restart reads its predecessor's).
  fs::path BidderConfig(const nlohmann::json& fleet, const std::string& name) {
    nlohmann::json config = fleet;
    config["beacon_log"]["embedded"]["path"] = (dir_ / (name + "-beacon-log")).string();
    const fs::path path = dir_ / (name + ".json");
    std::ofstream(path) << config.dump(2);
    return path;
  }

  // The worker ids whose lease a live process holds now.
  static std::set<std::string> LeasedWorkerIds(storage::Store& store) {
    storage::Scan scan;
    scan.prefix = "worker/";
    scan.limit = 1000;
    absl::StatusOr<std::vector<storage::RowResult>> rows = store.Scan(storage::kLeasesTable, scan);
    std::set<std::string> ids;
    if (rows.ok()) {
      for (const storage::RowResult& row : *rows) ids.insert(row.row);
    }
    return ids;
  }
};

TEST_P(FleetProcessTest, TwoBiddersFromOneConfigOneKilledCountEveryAcknowledgedNoticeOnce) {
  const std::string endpoint = SharedStore();
  if (HasFailure()) return;
  if (endpoint.empty()) {
    GTEST_SKIP() << "RTB_HBASE_THRIFT is not set; run deploy/hbase/hbase.sh start && "
                    "deploy/hbase/hbase.sh wait, then RTB_HBASE_THRIFT=127.0.0.1:9090";
  }
  nlohmann::json fleet = Config(endpoint, Mode::kPacerProcess);
  if (GetParam() == Backend::kHBase) fleet["storage"]["backend"] = "hbase";
  ASSERT_EQ(fleet["pacing"]["worker_id"], "auto") << "the example config's";
  const fs::path config_a = BidderConfig(fleet, "a");
  const fs::path config_b = BidderConfig(fleet, "b");
  storage::HBaseStoreOptions options;
  options.endpoints = {endpoint};
  absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenHBaseStore(options);
  ASSERT_TRUE(store.ok()) << store.status();

  Child pacer(RTB_PACER_BINARY, dir_ / "pacer");
  const fs::path pacer_port = dir_ / "pacer.port";
  ASSERT_TRUE(pacer.Spawn({"--config", config_a.string(), "--metrics-address", "127.0.0.1:0",
                           "--port-file", pacer_port.string()}));
  ASSERT_GT(pacer.AwaitPort(pacer_port), 0) << pacer.Stderr();
  Child bidder_b(RTB_BIDDER_BINARY, dir_ / "bidder-b");
  const int port_b = StartBidder(bidder_b, config_b, "bidder-b");
  ASSERT_GT(port_b, 0) << bidder_b.Stderr();

  std::vector<Notice> notices;
  std::vector<bool> acked_a;
  std::vector<bool> acked_b;
  {
    Child bidder_a(RTB_BIDDER_BINARY, dir_ / "bidder-a");
    const int port_a = StartBidder(bidder_a, config_a, "bidder-a");
    ASSERT_GT(port_a, 0) << bidder_a.Stderr();
    EXPECT_EQ(LeasedWorkerIds(**store), (std::set<std::string>{"worker/0", "worker/1"}))
        << "one config, two ids";
    const std::vector<Notice> from_a = Bids(port_a, 600, 200, "fleet-a-");
    const std::vector<Notice> from_b = Bids(port_b, 600, 200, "fleet-b-");
    ASSERT_EQ(from_a.size() + from_b.size(), 1200u);
    // Each bidder answers the other's notices too: half of each bidder's
    // bids go to the other one.
    std::vector<Notice> to_a(from_a.begin(), from_a.begin() + 300);
    to_a.insert(to_a.end(), from_b.begin(), from_b.begin() + 300);
    std::vector<Notice> to_b(from_b.begin() + 300, from_b.end());
    to_b.insert(to_b.end(), from_a.begin() + 300, from_a.end());
    std::thread through_b(
        [&] { acked_b = SendUntilKilled(port_b, to_b, static_cast<int>(to_b.size()), [] {}); });
    acked_a = SendUntilKilled(port_a, to_a, 300, [&] { bidder_a.Kill(); });
    through_b.join();
    notices = to_a;
    notices.insert(notices.end(), to_b.begin(), to_b.end());
  }
  int acknowledged = 0;
  for (bool a : acked_a) acknowledged += a ? 1 : 0;
  EXPECT_GE(acknowledged, 300);
  EXPECT_LT(acknowledged, 600) << "the kill came after bidder a's last notice";
  for (bool b : acked_b) EXPECT_TRUE(b) << "bidder b answers every notice";

  Child bidder_a2(RTB_BIDDER_BINARY, dir_ / "bidder-a2");
  const int port_a2 = StartBidder(bidder_a2, config_a, "bidder-a2");
  ASSERT_GT(port_a2, 0) << bidder_a2.Stderr();
  EXPECT_EQ(LeasedWorkerIds(**store).count("worker/2"), 1u)
      << "the restart leases a third id while the killed one's is still held";
  // The exchange retries every notice, through both bidders.
  Retry(port_a2, std::vector<Notice>(notices.begin(), notices.begin() + 600));
  Retry(port_b, std::vector<Notice>(notices.begin() + 600, notices.end()));
  EXPECT_TRUE(AwaitJournalCounted(**store, std::chrono::seconds(60)))
      << bidder_a2.Stderr() << bidder_b.Stderr();
  EXPECT_EQ(bidder_a2.Stop(), std::optional<int>(0)) << bidder_a2.Stderr();
  EXPECT_EQ(bidder_b.Stop(), std::optional<int>(0)) << bidder_b.Stderr();
  EXPECT_EQ(pacer.Stop(), std::optional<int>(0)) << pacer.Stderr();
  Verify(**store, notices);
  EXPECT_TRUE(LeasedWorkerIds(**store).empty()) << "clean stops release their ids";
  store->reset();
  if (server_ != nullptr) {
    EXPECT_EQ(server_->Stop(), std::optional<int>(0)) << server_->Stderr();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FleetProcessTest,
                         ::testing::Values(Backend::kStorageServer, Backend::kHBase),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kHBase ? "HBase" : "StorageServer";
                         });

}  // namespace
}  // namespace rtb::bidder::testing

// Money in flight when a process dies (issue 15): real rtb-bidder (and, in
// pacing mode "pacer", rtb-pacer and storage-server) processes take win and
// billing notices from several client connections and are killed with
// SIGKILL while notices are being answered. After a restart on the same
// store, the exchange retries every notice whose answer it did not get, and
// replays every other one too. Then the budget spend equals the sum of the
// billing notices exactly (none lost from memory, none counted twice), the
// impressions table holds each impression once, and each device's frequency
// cap count equals its number of impressions. On the shared store the
// restarted bidder leases a new worker id and adopts the killed one's
// journal once its lease has run out.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "storage/embedded_store.h"
#include "storage/hbase_store.h"
#include "tests/bidder/notice_process_harness.h"
#include "tests/storage/server/server_process.h"

namespace rtb::bidder::testing {
namespace {

class SpendCrashTest : public NoticeProcessTest, public ::testing::WithParamInterface<Mode> {
 protected:
  void SetUp() override {
    MakeDirectory(absl::StrCat("spend-crash-", static_cast<int>(GetParam())));
  }
};

TEST_P(SpendCrashTest, KilledUnderLoadCountsEveryAcknowledgedNoticeOnceAfterRestart) {
  constexpr int kNotices = 1200;
  constexpr int kDevices = 300;
  std::unique_ptr<storage::testing::StorageServerProcess> server;
  std::string endpoint;
  if (GetParam() == Mode::kPacerProcess) {
    server = std::make_unique<storage::testing::StorageServerProcess>(dir_ / "server");
    ASSERT_TRUE(server->Start({})) << server->Stderr();
    endpoint = server->endpoint();
  }
  const fs::path config = WriteConfig(Config(endpoint, GetParam()));
  auto start_pacer = [&](Child& pacer, const std::string& name) {
    const fs::path port_file = dir_ / (name + ".port");
    ASSERT_TRUE(pacer.Spawn({"--config", config.string(), "--metrics-address", "127.0.0.1:0",
                             "--port-file", port_file.string()}));
    ASSERT_GT(pacer.AwaitPort(port_file), 0) << pacer.Stderr();
  };

  std::vector<Notice> notices;
  std::vector<bool> acked;
  {
    Child pacer(RTB_PACER_BINARY, dir_ / "pacer-1");
    if (GetParam() == Mode::kPacerProcess) start_pacer(pacer, "pacer-1");
    Child bidder(RTB_BIDDER_BINARY, dir_ / "bidder-1");
    const int port = StartBidder(bidder, config, "bidder-1");
    ASSERT_GT(port, 0) << bidder.Stderr();
    notices = Bids(port, kNotices, kDevices);
    ASSERT_EQ(notices.size(), static_cast<size_t>(kNotices)) << bidder.Stderr();
    acked = SendUntilKilled(port, notices, kNotices / 2, [&] {
      bidder.Kill();
      pacer.Kill();
    });
  }
  int acknowledged = 0;
  for (bool a : acked) acknowledged += a ? 1 : 0;
  EXPECT_GE(acknowledged, kNotices / 2);
  EXPECT_LT(acknowledged, kNotices) << "the kill came after the last notice";

  Child pacer(RTB_PACER_BINARY, dir_ / "pacer-2");
  if (GetParam() == Mode::kPacerProcess) start_pacer(pacer, "pacer-2");
  Child bidder(RTB_BIDDER_BINARY, dir_ / "bidder-2");
  const int port = StartBidder(bidder, config, "bidder-2");
  ASSERT_GT(port, 0) << bidder.Stderr();
  Retry(port, notices);
  std::unique_ptr<storage::Store> shared;
  if (GetParam() == Mode::kPacerProcess) {
    storage::HBaseStoreOptions options;
    options.endpoints = {endpoint};
    absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenHBaseStore(options);
    ASSERT_TRUE(store.ok()) << store.status();
    shared = *std::move(store);
    // The restarted bidder leased another worker id than the killed one's,
    // still held then; it adopts the orphaned journal once that runs out.
    EXPECT_TRUE(AwaitJournalCounted(*shared, std::chrono::seconds(60))) << bidder.Stderr();
  }
  const std::string metrics = Metrics(port);
  EXPECT_NE(metrics.find("bidder_pacing_journal_entries_total{outcome=\"recovered\"}"),
            std::string::npos)
      << metrics;
  EXPECT_EQ(metrics.find("bidder_pacing_journal_entries_total{outcome=\"recovered\"} 0\n"),
            std::string::npos)
      << "the restart recovered no entry, so the kill left no spend in memory\n"
      << metrics;
  EXPECT_EQ(bidder.Stop(), std::optional<int>(0)) << bidder.Stderr();
  if (GetParam() == Mode::kPacerProcess) {
    EXPECT_EQ(pacer.Stop(), std::optional<int>(0)) << pacer.Stderr();
    Verify(*shared, notices);
    shared.reset();
    EXPECT_EQ(server->Stop(), std::optional<int>(0)) << server->Stderr();
  } else {
    storage::EmbeddedStoreOptions options;
    options.path = (dir_ / "data").string();
    absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenEmbeddedStore(options);
    ASSERT_TRUE(store.ok()) << store.status();
    Verify(**store, notices);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, SpendCrashTest,
                         ::testing::Values(Mode::kSidecarEmbedded, Mode::kPacerProcess),
                         [](const ::testing::TestParamInfo<Mode>& info) {
                           return info.param == Mode::kPacerProcess ? "PacerModeOnStorageServer"
                                                                    : "SidecarOnEmbeddedStore";
                         });

}  // namespace
}  // namespace rtb::bidder::testing

// Acknowledged means durable: real rtb-bidder, rtb-stream and storage-server
// processes, the bidder's notices answered from its beacon log whatever the
// store does, and the store compared with every acknowledged notice once the
// stream worker has applied the log.
//
//   - the storage-server stopped for a minute (RTB_BEACON_OUTAGE_S, default
//     60) while notices keep coming: every notice is acknowledged, and
//     after the restart the budget spend, the impressions, the frequency
//     caps and the event rollups equal the notices exactly;
//   - rtb-stream, applying the log of a bidder that keeps taking notices,
//     killed with SIGKILL 20 times, mostly with records left to apply, and
//     started again each time: the same exact result;
//   - on real HBase (label hbase: RTB_HBASE_THRIFT names the cluster's
//     gateway), the bidder's own Thrift2 gateway killed for the outage and
//     started again: the same exact result;
//   - on Kafka (label kafka: RTB_KAFKA_BROKERS names the broker
//     deploy/kafka/kafka.sh runs), the broker restarted while notices keep
//     coming: the bidder's producer and consumer recover by themselves, and
//     after the exchange's retries the same exact result.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "storage/hbase_store.h"
#include "tests/bidder/notice_process_harness.h"
#include "tests/storage/child_process.h"
#include "tests/storage/server/server_process.h"
#include "tests/storage/test_hbase.h"

namespace rtb::bidder::testing {
namespace {

using Clock = std::chrono::steady_clock;

int OutageSeconds() {
  const char* setting = std::getenv("RTB_BEACON_OUTAGE_S");
  return setting != nullptr && std::atoi(setting) > 0 ? std::atoi(setting) : 60;
}

// Bytes the embedded log in `dir` holds past its committed position.
int64_t Unapplied(const fs::path& dir) {
  int64_t committed = 0;
  std::ifstream(dir / "committed") >> committed;
  int64_t end = committed;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".seg")) continue;
    end = std::max<int64_t>(
        end, std::stoll(name.substr(0, 20)) + static_cast<int64_t>(fs::file_size(entry.path())));
  }
  return end - committed;
}

// `hbase.sh gateway port` in `gateway`, waited for (bounded: a JVM).
bool StartGateway(storage::testing::ChildProcess& gateway, int port) {
  if (!gateway.Start({"/bin/bash", std::string(RTB_SOURCE_DIR) + "/deploy/hbase/hbase.sh",
                      "gateway", std::to_string(port)})) {
    return false;
  }
  for (int i = 0; i < 1200 && gateway.Running(); ++i) {
    if (storage::testing::Accepts(port)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

class BeaconLogProcessTest : public NoticeProcessTest {
 protected:
  void SetUp() override { MakeDirectory("beacon-log-process"); }

  // The notices' win and billing beacons, sent by four connections at an
  // even pace so that the last goes `span` after the first. Whether each
  // billing notice was acknowledged (204); `at(elapsed)` runs meanwhile on
  // this thread, every 100 ms, until it returns false.
  std::vector<bool> SendPaced(int port, const std::vector<Notice>& notices, Clock::duration span,
                              const std::function<bool(Clock::duration)>& at) {
    std::vector<std::atomic<bool>> acked(notices.size());
    std::atomic<size_t> next{0};
    const Clock::time_point start = Clock::now();
    const Clock::duration step = span / static_cast<int64_t>(notices.size());
    std::vector<std::thread> clients;
    for (int c = 0; c < 4; ++c) {
      clients.emplace_back([&] {
        TestConnection conn(port, answer_timeout_);
        for (size_t i = next++; i < notices.size(); i = next++) {
          std::this_thread::sleep_until(start + step * static_cast<int64_t>(i));
          std::optional<TestResponse> win = conn.RoundTrip(GetRequest(notices[i].win));
          std::optional<TestResponse> billing = conn.RoundTrip(GetRequest(notices[i].billing));
          acked[i] = win.has_value() && win->status == 204 && billing.has_value() &&
                     billing->status == 204;
          if (!acked[i] && failures_reported_++ < 3) {
            std::fprintf(stderr, "notice %zu at %.1f s: win %s, billing %s\n", i,
                         std::chrono::duration<double>(Clock::now() - start).count(),
                         win ? std::to_string(win->status).c_str() : "no answer",
                         billing ? (std::to_string(billing->status) + " " + billing->body).c_str()
                                 : "no answer");
          }
        }
      });
    }
    bool watching = true;
    for (int i = 0; watching && i < 100000; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      watching = at(Clock::now() - start);
    }
    for (std::thread& t : clients) t.join();
    std::vector<bool> result;
    for (const std::atomic<bool>& a : acked) result.push_back(a.load());
    return result;
  }

  // SendPaced through an outage: `stop` 3 s after the first notice, `start`
  // OutageSeconds() later, the last notice 5 s after that.
  std::vector<bool> SendThroughOutage(int port, const std::vector<Notice>& notices,
                                      const std::function<void()>& stop,
                                      const std::function<void()>& start) {
    const auto outage = std::chrono::seconds(OutageSeconds());
    const auto down_at = std::chrono::seconds(3);
    bool down = false;
    bool restarted = false;
    return SendPaced(port, notices, down_at + outage + std::chrono::seconds(5),
                     [&](Clock::duration elapsed) {
                       if (!down && elapsed >= down_at) {
                         down = true;
                         stop();
                       }
                       if (down && !restarted && elapsed >= down_at + outage) {
                         restarted = true;
                         start();
                       }
                       return !restarted;
                     });
  }

  // Waits (at most `limit`) until `port`'s stream worker reports an empty
  // log after the notices.
  bool AwaitApplied(int port, std::chrono::seconds limit) {
    const Clock::time_point give_up = Clock::now() + limit;
    while (Clock::now() < give_up) {
      const std::string metrics = Metrics(port);
      if (metrics.find("\nbidder_beacon_log_lag_bytes 0\n") != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return false;
  }

  // Every impression, win event and impression event in the rollups, once.
  void VerifyEventsOnce(storage::Store& store, size_t notices) {
    storage::Scan all;
    all.limit = storage::kMaxScanRows;
    absl::StatusOr<std::vector<storage::RowResult>> rollups =
        store.Scan(storage::kEventRollupsTable, all);
    ASSERT_TRUE(rollups.ok()) << rollups.status();
    std::map<std::string, int64_t> counts;
    for (const storage::RowResult& row : *rollups) {
      for (const storage::Cell& cell : row.cells) {
        if (cell.qualifier == "win" || cell.qualifier == "impression") {
          counts[cell.qualifier] += storage::DecodeCounter(cell.value).value_or(0);
        }
      }
    }
    EXPECT_EQ(counts["win"], static_cast<int64_t>(notices));
    EXPECT_EQ(counts["impression"], static_cast<int64_t>(notices));
  }

  // Waits (at most `limit`) until `port` has recorded `count` impressions
  // from billing notices.
  bool AwaitRecordedBillings(int port, size_t count, std::chrono::seconds limit) {
    const std::string series = "bidder_beacons_total{kind=\"billing\",outcome=\"recorded\"} ";
    const Clock::time_point give_up = Clock::now() + limit;
    while (Clock::now() < give_up) {
      const std::string metrics = Metrics(port);
      const size_t at = metrics.find(series);
      if (at != std::string::npos &&
          std::stod(metrics.substr(at + series.size())) >= static_cast<double>(count)) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return false;
  }

  void VerifyStore(const std::string& endpoint, const std::vector<Notice>& notices) {
    storage::HBaseStoreOptions options;
    options.endpoints = {endpoint};
    absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenHBaseStore(options);
    ASSERT_TRUE(store.ok()) << store.status();
    Verify(**store, notices);
    VerifyEventsOnce(**store, notices.size());
  }

  std::chrono::seconds answer_timeout_{5};
  std::atomic<int> failures_reported_{0};
};

TEST_F(BeaconLogProcessTest, NoticesAcknowledgedWhileTheStoreIsDownAreAllAppliedWhenItIsBack) {
  storage::testing::StorageServerProcess server(dir_ / "server");
  ASSERT_TRUE(server.Start({})) << server.Stderr();
  nlohmann::json config = Config(server.endpoint(), Mode::kSidecarEmbedded);
  config["storage"]["hbase"]["call_timeout_ms"] = 500;
  config["storage"]["hbase"]["connect_timeout_ms"] = 200;
  config["beacon_log"]["stream"]["retry_max_ms"] = 1000;
  const fs::path config_path = WriteConfig(config);
  Child bidder(RTB_BIDDER_BINARY, dir_ / "bidder");
  const int port = StartBidder(bidder, config_path, "bidder");
  ASSERT_GT(port, 0) << bidder.Stderr();
  const std::vector<Notice> notices = Bids(port, 900, 200);
  ASSERT_EQ(notices.size(), 900u) << bidder.Stderr();

  const auto outage = std::chrono::seconds(OutageSeconds());
  const std::vector<bool> acked = SendThroughOutage(
      port, notices, [&] { EXPECT_EQ(server.Stop(), std::optional<int>(0)) << server.Stderr(); },
      [&] {
        EXPECT_TRUE(server.Start({"--port", std::to_string(server.port())})) << server.Stderr();
      });
  EXPECT_EQ(std::count(acked.begin(), acked.end(), true), static_cast<int64_t>(notices.size()))
      << "every notice is acknowledged, the store up or down";
  const Clock::time_point back = Clock::now();
  ASSERT_TRUE(AwaitApplied(port, std::chrono::seconds(180))) << bidder.Stderr();
  std::printf(
      "store down %lld s under notices: %zu notices acknowledged, the log applied %.1f s "
      "after the last\n",
      static_cast<long long>(outage.count()),
      static_cast<size_t>(std::count(acked.begin(), acked.end(), true)),
      std::chrono::duration<double>(Clock::now() - back).count());
  const std::string metrics = Metrics(port);
  EXPECT_EQ(metrics.find("bidder_beacon_stream_retries_total 0\n"), std::string::npos)
      << "the outage made the stream worker retry";
  EXPECT_EQ(bidder.Stop(), std::optional<int>(0)) << bidder.Stderr();
  VerifyStore(server.endpoint(), notices);
  EXPECT_EQ(server.Stop(), std::optional<int>(0)) << server.Stderr();
}

TEST_F(BeaconLogProcessTest, AStreamWorkerKilledTwentyTimesMidBatchLeavesEveryEffectExact) {
  storage::testing::StorageServerProcess server(dir_ / "server");
  ASSERT_TRUE(server.Start({})) << server.Stderr();
  nlohmann::json config = Config(server.endpoint(), Mode::kSidecarEmbedded);
  config["beacon_log"]["stream"]["in_process"] = false;
  const fs::path config_path = WriteConfig(config);
  const fs::path log_dir = dir_ / "beacon-log";  // WriteConfig's
  Child bidder(RTB_BIDDER_BINARY, dir_ / "bidder");
  const int port = StartBidder(bidder, config_path, "bidder");
  ASSERT_GT(port, 0) << bidder.Stderr();
  const std::vector<Notice> notices = Bids(port, 1500, 300);
  ASSERT_EQ(notices.size(), 1500u) << bidder.Stderr();

  auto start_stream = [&](Child& stream, int attempt) {
    const fs::path port_file = dir_ / absl::StrCat("stream-", attempt, ".port");
    EXPECT_TRUE(stream.Spawn({"--config", config_path.string(), "--metrics-address", "127.0.0.1:0",
                              "--port-file", port_file.string()}));
    return stream.AwaitPort(port_file);
  };
  std::mt19937 random(42);
  int kills = 0;
  int kills_with_work_left = 0;
  const std::vector<bool> acked = SendPaced(port, notices, std::chrono::seconds(15), [&](auto) {
    Child stream(RTB_STREAM_BINARY, dir_ / "stream");
    EXPECT_GT(start_stream(stream, kills), 0) << stream.Stderr();
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + random() % 400));
    if (Unapplied(log_dir) > 0) ++kills_with_work_left;
    stream.Kill();
    return ++kills < 20;
  });
  EXPECT_EQ(std::count(acked.begin(), acked.end(), true), static_cast<int64_t>(notices.size()));
  EXPECT_EQ(kills, 20);
  EXPECT_GE(kills_with_work_left, 15) << "most kills should interrupt a backlog";
  std::printf("rtb-stream killed %d times, %d of them with records left to apply\n", kills,
              kills_with_work_left);

  Child stream(RTB_STREAM_BINARY, dir_ / "stream");
  const int stream_port = start_stream(stream, kills);
  ASSERT_GT(stream_port, 0) << stream.Stderr();
  ASSERT_TRUE(AwaitApplied(stream_port, std::chrono::seconds(180))) << stream.Stderr();
  {
    // Each restart leased the lowest free worker id while its killed
    // predecessor's was still held; the killed ones' journals are adopted
    // by whichever live worker finds them once their leases ran out.
    storage::HBaseStoreOptions options;
    options.endpoints = {server.endpoint()};
    absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenHBaseStore(options);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_TRUE(AwaitJournalCounted(**store, std::chrono::seconds(60))) << stream.Stderr();
  }
  EXPECT_EQ(stream.Stop(), std::optional<int>(0)) << stream.Stderr();
  EXPECT_EQ(Unapplied(log_dir), 0);
  EXPECT_EQ(bidder.Stop(), std::optional<int>(0)) << bidder.Stderr();
  VerifyStore(server.endpoint(), notices);
  EXPECT_EQ(server.Stop(), std::optional<int>(0)) << server.Stderr();
}

TEST_F(BeaconLogProcessTest, OnHBaseNoticesAcknowledgedWhileTheGatewayIsDownAreAllApplied) {
  const std::string cluster = rtb::testing::TestHBaseEndpoint();
  if (cluster.empty()) {
    if (rtb::testing::TestHBaseRequired()) {
      FAIL() << "RTB_HBASE_THRIFT is not set under CI=true: HBase did not start";
    }
    GTEST_SKIP() << "RTB_HBASE_THRIFT is not set; run deploy/hbase/hbase.sh start && "
                    "deploy/hbase/hbase.sh wait, then RTB_HBASE_THRIFT=127.0.0.1:9090";
  }
  // The tables the comparison reads, emptied of earlier tests' rows.
  DropTables(cluster,
             {storage::kBudgetTable, storage::kImpressionsTable, storage::kSpendJournalTable,
              storage::kProfilesTable, storage::kEventRollupsTable});
  if (HasFatalFailure()) return;
  const int port = storage::testing::FreeLoopbackPort();
  auto gateway = std::make_unique<storage::testing::ChildProcess>(dir_ / "gateway-1.out",
                                                                  dir_ / "gateway-1.err");
  ASSERT_TRUE(StartGateway(*gateway, port)) << gateway->Stderr();
  nlohmann::json config = Config(absl::StrCat("127.0.0.1:", port), Mode::kSidecarEmbedded);
  config["storage"]["backend"] = "hbase";
  config["storage"]["hbase"]["call_timeout_ms"] = 2000;
  config["storage"]["hbase"]["connect_timeout_ms"] = 500;
  config["beacon_log"]["stream"]["retry_max_ms"] = 1000;
  const fs::path config_path = WriteConfig(config);
  Child bidder(RTB_BIDDER_BINARY, dir_ / "bidder");
  const int bidder_port = StartBidder(bidder, config_path, "bidder");
  ASSERT_GT(bidder_port, 0) << bidder.Stderr();
  const std::vector<Notice> notices = Bids(bidder_port, 600, 150);
  ASSERT_EQ(notices.size(), 600u) << bidder.Stderr();

  const auto outage = std::chrono::seconds(OutageSeconds());
  const std::vector<bool> acked = SendThroughOutage(
      bidder_port, notices, [&] { gateway->Kill(); },
      [&] {
        gateway = std::make_unique<storage::testing::ChildProcess>(dir_ / "gateway-2.out",
                                                                   dir_ / "gateway-2.err");
        EXPECT_TRUE(StartGateway(*gateway, port)) << gateway->Stderr();
      });
  EXPECT_EQ(std::count(acked.begin(), acked.end(), true), static_cast<int64_t>(notices.size()))
      << "every notice is acknowledged, the gateway up or down";
  const Clock::time_point back = Clock::now();
  ASSERT_TRUE(AwaitRecordedBillings(bidder_port, notices.size(), std::chrono::seconds(240)))
      << bidder.Stderr();
  std::printf(
      "HBase gateway down %lld s under notices: %lld acknowledged, all applied %.1f s "
      "after the last\n",
      static_cast<long long>(outage.count()),
      static_cast<long long>(std::count(acked.begin(), acked.end(), true)),
      std::chrono::duration<double>(Clock::now() - back).count());
  EXPECT_EQ(bidder.Stop(), std::optional<int>(0)) << bidder.Stderr();
  VerifyStore(cluster, notices);
}

TEST_F(BeaconLogProcessTest, OnKafkaABrokerRestartUnderNoticesLosesNothingAcknowledged) {
  const char* brokers = std::getenv("RTB_KAFKA_BROKERS");
  if (brokers == nullptr || *brokers == '\0') {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") {
      FAIL() << "RTB_KAFKA_BROKERS is not set under CI=true: Kafka did not start";
    }
    GTEST_SKIP() << "RTB_KAFKA_BROKERS is not set; run deploy/kafka/kafka.sh start && "
                    "deploy/kafka/kafka.sh wait, then RTB_KAFKA_BROKERS=127.0.0.1:9092";
  }
  storage::testing::StorageServerProcess server(dir_ / "server");
  ASSERT_TRUE(server.Start({})) << server.Stderr();
  nlohmann::json config = Config(server.endpoint(), Mode::kSidecarEmbedded);
  const std::string topic =
      absl::StrCat("rtb-beacons-test-", ::getpid(), "-", Clock::now().time_since_epoch().count());
  config["beacon_log"]["backend"] = "kafka";
  config["beacon_log"]["kafka"] = {{"brokers", brokers},
                                   {"topic", topic},
                                   {"group_id", topic},
                                   {"partitions", 4},
                                   {"delivery_timeout_ms", 60000}};
  const fs::path config_path = WriteConfig(config);
  Child bidder(RTB_BIDDER_BINARY, dir_ / "bidder");
  const int port = StartBidder(bidder, config_path, "bidder");
  ASSERT_GT(port, 0) << bidder.Stderr();
  const std::vector<Notice> notices = Bids(port, 600, 150);
  ASSERT_EQ(notices.size(), 600u) << bidder.Stderr();

  // The broker is away for its stop and start (seconds): appends wait in
  // the producer meanwhile, and so do their answers.
  answer_timeout_ = std::chrono::seconds(90);
  bool restarted = false;
  int restart_exit = -1;
  const std::vector<bool> acked =
      SendPaced(port, notices, std::chrono::seconds(20), [&](auto elapsed) {
        if (elapsed < std::chrono::seconds(4)) return true;
        restart_exit = std::system(
            absl::StrCat("bash '", RTB_SOURCE_DIR, "/deploy/kafka/kafka.sh' restart").c_str());
        restarted = true;
        return false;
      });
  ASSERT_TRUE(restarted);
  ASSERT_EQ(restart_exit, 0) << "deploy/kafka/kafka.sh restart failed";
  const auto acknowledged = std::count(acked.begin(), acked.end(), true);
  EXPECT_EQ(acknowledged, static_cast<int64_t>(notices.size()))
      << "a restart shorter than delivery_timeout_ms refuses no beacon\n"
      << Metrics(port) << bidder.Stderr();
  // The exchange retries what it may not have got an answer for, and
  // replays the rest: duplicates, applied as such.
  Retry(port, notices);
  ASSERT_TRUE(AwaitRecordedBillings(port, notices.size(), std::chrono::seconds(180)))
      << bidder.Stderr();
  std::printf("Kafka broker restarted under notices: %lld of %zu acknowledged at once\n",
              static_cast<long long>(acknowledged), notices.size());
  EXPECT_EQ(bidder.Stop(), std::optional<int>(0)) << bidder.Stderr();
  VerifyStore(server.endpoint(), notices);
  EXPECT_EQ(server.Stop(), std::optional<int>(0)) << server.Stderr();
}

}  // namespace
}  // namespace rtb::bidder::testing

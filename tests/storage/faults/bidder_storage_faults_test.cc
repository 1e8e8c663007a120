// The bidder with its store misbehaving, all real processes on loopback:
// rtb-bidder on the hbase backend, storage-server (the embedded engine over
// Thrift2) behind it, load from rtb-load, every request measured from its
// intended send time.
//
//   - a proxy that delays each direction of the store's traffic by 0-50 ms
//     (loadtest/delay_proxy.h): every bid request is still answered before
//     its deadline; lookups that miss theirs become contextual bids, counted;
//   - the storage server killed with SIGKILL under load and restarted on the
//     same port a few seconds later: no request goes unanswered or late
//     meanwhile, and the bidder's client reconnects by itself, so lookups hit
//     again once the server is back.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "gtest/gtest.h"
#include "loadtest/delay_proxy.h"
#include "tests/storage/faults/bidder_cluster.h"

namespace rtb::storage::testing {
namespace {

using namespace std::chrono_literals;

class BidderStorageFaultTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = TestDirectory("rtb-storage-faults"); }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  // Seeds profiles into the storage server's store, then starts the server
  // on `port` (0: a free one); the port it listens on, 0 on failure.
  int StartStorageServer(ChildProcess& server, int port, bool seed) {
    const std::filesystem::path store = dir_ / "store";
    if (seed) {
      nlohmann::json config = ExampleConfig();
      config["storage"] = EmbeddedStorage(store);
      if (!SeedProfiles(dir_, config)) return 0;
    }
    const std::filesystem::path port_file = dir_ / "server.port";
    std::filesystem::remove(port_file);
    // Its /metrics on a free port: the default one may be taken on a test machine.
    if (!server.Start({RTB_STORAGE_SERVER_BINARY, "--path", store.string(), "--apply-schemas",
                       "--port", std::to_string(port), "--port-file", port_file.string(),
                       "--block-cache-mb", "16", "--metrics-address", "127.0.0.1:0"})) {
      return 0;
    }
    return server.AwaitPortFile(port_file);
  }

  std::filesystem::path dir_;
};

TEST_F(BidderStorageFaultTest, BehindAProxyDelayingTheStoreEveryBidIsAnsweredBeforeItsDeadline) {
  ChildProcess server(dir_ / "server.out", dir_ / "server.log");
  const int server_port = StartStorageServer(server, 0, /*seed=*/true);
  ASSERT_GT(server_port, 0) << server.Stderr();
  loadtest::DelayProxyOptions proxy_options;
  proxy_options.target_port = static_cast<uint16_t>(server_port);
  proxy_options.min_delay_ms = 0;
  proxy_options.max_delay_ms = 50;
  auto proxy = loadtest::DelayProxy::Start(proxy_options);
  ASSERT_TRUE(proxy.ok()) << proxy.status();

  nlohmann::json config = ExampleConfig();

  // tmax 80 ms: the bidder answers by 60 ms (20 ms of network allowance) and
  // gives its lookup until 45 ms (ExampleConfig's 15 ms auction budget),
  // less than the 100 ms a round trip through the proxy can take.
  constexpr int kTmaxMs = 80;
  config["storage"] = RemoteStorage({(*proxy)->endpoint()});
  BidderProcess bidder(dir_, "bidder");
  ASSERT_TRUE(bidder.Start(config)) << bidder.Log();
  const auto request = RequestWithTmax(dir_, kTmaxMs);
  const auto before = bidder.Metrics();
  LoadRun load(dir_, "load");
  ASSERT_TRUE(load.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/8, /*warmup_s=*/0));
  const std::optional<LoadReport> report = load.Finish();
  ASSERT_TRUE(report) << load.Stderr();
  const auto after = bidder.Metrics();
  auto delta = [&](const std::string& name) { return after[name] - before[name]; };

  ExpectEveryRequestAnsweredInTime(*report, kTmaxMs);
  EXPECT_GT(report->completed(), 1000);
  const double timeouts = delta(Lookups("timeout"));
  const double hits = delta(Lookups("hit"));
  const double misses = delta(Lookups("miss"));
  EXPECT_GT(timeouts, 0) << "the delay should make some lookups miss their deadline";
  EXPECT_GT(hits, 0) << "and some still find their profile in time";
  EXPECT_EQ(delta(kLateAnswers), 0);
  std::printf(
      "delaying proxy 0-50 ms: %lld requests, %lld answered 200, %lld answered 204, p99 %.1f ms, "
      "max %.1f ms (tmax %d ms); lookups: %.0f hits, %.0f misses, %.0f timed out into contextual "
      "bids; the proxy forwarded %llu chunks with %.1f ms mean delay\n",
      static_cast<long long>(report->completed()), static_cast<long long>(report->status(200)),
      static_cast<long long>(report->status(204)), report->p99_latency_ms(),
      report->max_latency_ms(), kTmaxMs, hits, misses, timeouts,
      static_cast<unsigned long long>((*proxy)->stats().chunks.load()),
      (*proxy)->stats().chunks.load() == 0
          ? 0.0
          : static_cast<double>((*proxy)->stats().delay_ms_total.load()) /
                static_cast<double>((*proxy)->stats().chunks.load()));
}

TEST_F(BidderStorageFaultTest, TheBidderReconnectsByItselfWhenTheStorageServerRestartsUnderLoad) {
  auto server = std::make_unique<ChildProcess>(dir_ / "server.out", dir_ / "server.log");
  const int port = StartStorageServer(*server, 0, /*seed=*/true);
  ASSERT_GT(port, 0) << server->Stderr();
  nlohmann::json config = ExampleConfig();
  config["storage"] = RemoteStorage({"127.0.0.1:" + std::to_string(port)});
  BidderProcess bidder(dir_, "bidder");
  ASSERT_TRUE(bidder.Start(config)) << bidder.Log();

  constexpr int kTmaxMs = 120;
  const auto request = RequestWithTmax(dir_, kTmaxMs);
  const auto before = bidder.Metrics();
  LoadRun load(dir_, "load");
  ASSERT_TRUE(load.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/10, /*warmup_s=*/0));
  std::this_thread::sleep_for(3s);
  server->Kill();
  const auto down_at = bidder.Metrics();
  std::this_thread::sleep_for(3s);
  const auto outage = bidder.Metrics();
  server = std::make_unique<ChildProcess>(dir_ / "server.out", dir_ / "server.log");
  ASSERT_EQ(StartStorageServer(*server, port, /*seed=*/false), port) << server->Stderr();
  const std::optional<LoadReport> during = load.Finish();
  ASSERT_TRUE(during) << load.Stderr();
  ExpectEveryRequestAnsweredInTime(*during, kTmaxMs);
  EXPECT_EQ(bidder.Metrics()[kLateAnswers] - before[kLateAnswers], 0);
  auto failed = [](const MetricSnapshot& m) { return m[Lookups("error")] + m[Lookups("timeout")]; };
  EXPECT_GT(failed(outage) - failed(down_at), 0) << "lookups failed while the server was down";

  // Back: lookups succeed again on connections the client made by itself.
  const auto recovered = bidder.Metrics();
  LoadRun again(dir_, "again");
  ASSERT_TRUE(again.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/3, /*warmup_s=*/0));
  const std::optional<LoadReport> after_restart = again.Finish();
  ASSERT_TRUE(after_restart) << again.Stderr();
  ExpectEveryRequestAnsweredInTime(*after_restart, kTmaxMs);
  EXPECT_EQ(bidder.Metrics()[kLateAnswers] - before[kLateAnswers], 0);
  const auto end = bidder.Metrics();
  const double hits = end[Lookups("hit")] - recovered[Lookups("hit")];
  const double misses = end[Lookups("miss")] - recovered[Lookups("miss")];
  EXPECT_EQ(failed(end) - failed(recovered), 0) << "every lookup answered after the restart";
  EXPECT_GT(hits, 0);
  std::printf(
      "storage server killed for 3 s under 200 requests/s: %lld requests, all answered before "
      "their %d ms tmax (max %.1f ms); %.0f lookups failed into contextual bids during the outage; "
      "after the restart %.0f hits and %.0f misses, none failed\n",
      static_cast<long long>(during->completed()), kTmaxMs, during->max_latency_ms(),
      failed(end) - failed(before), hits, misses);
}

}  // namespace
}  // namespace rtb::storage::testing

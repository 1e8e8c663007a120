// The bidder over real HBase with its Thrift2 gateway misbehaving, all on
// loopback: rtb-bidder on the hbase backend, load from rtb-load, HBase as
// deploy/hbase/hbase.sh runs it (RTB_HBASE_THRIFT names its gateway).
//
//   - a proxy that delays each direction of the gateway's traffic by 0-50 ms
//     (loadtest/delay_proxy.h): every bid request is still answered before
//     its deadline; lookups that miss theirs become contextual bids, counted;
//   - a gateway of the test's own (`hbase.sh gateway PORT`) killed with
//     SIGKILL under load and started again on the same port: no request goes
//     unanswered or late meanwhile, and the bidder's client reconnects by
//     itself, so lookups hit again once the gateway is back.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "gtest/gtest.h"
#include "loadtest/delay_proxy.h"
#include "tests/storage/faults/bidder_cluster.h"
#include "tests/storage/test_hbase.h"

namespace rtb::storage::testing {
namespace {

using namespace std::chrono_literals;

// A loopback port nobody listens on now (the kernel's pick for a socket
// closed at once), for a gateway that must come back on the same port.
int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

bool Accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return connected;
}

// Starts `hbase.sh gateway port` in `gateway` and waits (bounded: a JVM on a
// loaded machine) until it accepts connections.
bool StartGateway(ChildProcess& gateway, int port) {
  if (!gateway.Start({"/bin/bash", std::string(RTB_SOURCE_DIR) + "/deploy/hbase/hbase.sh",
                      "gateway", std::to_string(port)})) {
    return false;
  }
  const auto give_up = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < give_up) {
    if (Accepts(port)) return true;
    if (!gateway.Running()) return false;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

class HBaseStorageFaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (rtb::testing::TestHBaseEndpoint().empty()) return;
    const std::filesystem::path dir = TestDirectory("rtb-hbase-faults-seed");
    nlohmann::json config = ExampleConfig();
    config["storage"] = RemoteStorage({rtb::testing::TestHBaseEndpoint()}, 30000);
    seeded_ = SeedProfiles(dir, config);
    if (seeded_) std::filesystem::remove_all(dir);
  }

  void SetUp() override {
    RTB_SKIP_OR_FAIL_WITHOUT_TEST_HBASE();
    ASSERT_TRUE(seeded_) << "rtb-seed-profiles failed against the gateway";
    dir_ = TestDirectory("rtb-hbase-faults");
  }
  void TearDown() override {
    if (!HasFailure() && !dir_.empty()) std::filesystem::remove_all(dir_);
  }

  static bool seeded_;
  std::filesystem::path dir_;
};

bool HBaseStorageFaultTest::seeded_ = false;

TEST_F(HBaseStorageFaultTest, BehindAProxyDelayingTheGatewayEveryBidIsAnsweredBeforeItsDeadline) {
  const std::string endpoint = rtb::testing::TestHBaseEndpoint();
  loadtest::DelayProxyOptions proxy_options;
  proxy_options.target_port =
      static_cast<uint16_t>(std::stoi(endpoint.substr(endpoint.rfind(':') + 1)));
  proxy_options.min_delay_ms = 0;
  proxy_options.max_delay_ms = 50;
  auto proxy = loadtest::DelayProxy::Start(proxy_options);
  ASSERT_TRUE(proxy.ok()) << proxy.status();

  // As the storage-server variant: answers due by 60 ms, lookups given until
  // 45 ms, a round trip through the proxy up to 100 ms plus HBase's own time.
  nlohmann::json config = ExampleConfig();
  config["bid"]["auction_budget_us"] = 15000;
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
  EXPECT_EQ(delta(kLateAnswers), 0);
  const double timeouts = delta(Lookups("timeout"));
  const double answered = delta(Lookups("hit")) + delta(Lookups("miss")) + delta(Lookups("stale"));
  EXPECT_GT(timeouts, 0) << "the delay should make some lookups miss their deadline";
  EXPECT_GT(answered, 0) << "and some still come back in time";
  std::printf(
      "HBase gateway behind a 0-50 ms delaying proxy: %lld requests, %lld answered 200, %lld "
      "answered 204, p99 %.1f ms, max %.1f ms (tmax %d ms); lookups: %.0f hits, %.0f misses, %.0f "
      "stale, %.0f errors, %.0f timed out into contextual bids\n",
      static_cast<long long>(report->completed()), static_cast<long long>(report->status(200)),
      static_cast<long long>(report->status(204)), report->p99_latency_ms(),
      report->max_latency_ms(), kTmaxMs, delta(Lookups("hit")), delta(Lookups("miss")),
      delta(Lookups("stale")), delta(Lookups("error")), timeouts);
}

TEST_F(HBaseStorageFaultTest, TheBidderReconnectsByItselfWhenTheGatewayRestartsUnderLoad) {
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  auto gateway = std::make_unique<ChildProcess>(dir_ / "gateway.out", dir_ / "gateway.err");
  ASSERT_TRUE(StartGateway(*gateway, port)) << gateway->Stderr();

  nlohmann::json config = ExampleConfig();
  config["storage"] = RemoteStorage({"127.0.0.1:" + std::to_string(port)});
  BidderProcess bidder(dir_, "bidder");
  ASSERT_TRUE(bidder.Start(config)) << bidder.Log();
  constexpr int kTmaxMs = 120;
  const auto request = RequestWithTmax(dir_, kTmaxMs);

  // Warm the gateway's region cache and the bidder's pool first.
  LoadRun warm(dir_, "warm");
  ASSERT_TRUE(warm.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/3, /*warmup_s=*/0));
  ASSERT_TRUE(warm.Finish()) << warm.Stderr();

  const auto before = bidder.Metrics();
  LoadRun load(dir_, "load");
  ASSERT_TRUE(load.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/25, /*warmup_s=*/0));
  std::this_thread::sleep_for(3s);
  gateway->Kill();
  const auto killed_at = std::chrono::steady_clock::now();
  gateway = std::make_unique<ChildProcess>(dir_ / "gateway.out", dir_ / "gateway.err");
  ASSERT_TRUE(StartGateway(*gateway, port)) << gateway->Stderr();
  const double outage_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
  const auto back = bidder.Metrics();
  const std::optional<LoadReport> during = load.Finish();
  ASSERT_TRUE(during) << load.Stderr();
  const auto end = bidder.Metrics();
  ExpectEveryRequestAnsweredInTime(*during, kTmaxMs);
  EXPECT_EQ(end[kLateAnswers] - before[kLateAnswers], 0);
  auto failed = [](const MetricSnapshot& m) { return m[Lookups("error")] + m[Lookups("timeout")]; };
  auto answered = [](const MetricSnapshot& m) {
    return m[Lookups("hit")] + m[Lookups("miss")] + m[Lookups("stale")];
  };
  EXPECT_GT(failed(back) - failed(before), 0) << "lookups failed while the gateway was down";
  // Back: lookups are answered again on connections the client made by
  // itself (the load keeps running for more than 10 s after the restart).
  const double answered_after = answered(end) - answered(back);
  const double failed_after = failed(end) - failed(back);
  EXPECT_GT(answered_after, 0);
  EXPECT_LT(failed_after, 0.05 * (answered_after + failed_after))
      << "lookups keep failing after the gateway came back";
  std::printf(
      "HBase gateway killed under 200 requests/s and back after %.1f s (a JVM start): %lld "
      "requests, all answered before their %d ms tmax (p99 %.1f ms, max %.1f ms); %.0f lookups "
      "failed into contextual bids during the outage; after the restart %.0f answered, %.0f "
      "failed\n",
      outage_s, static_cast<long long>(during->completed()), kTmaxMs, during->p99_latency_ms(),
      during->max_latency_ms(), failed(back) - failed(before), answered_after, failed_after);
}

}  // namespace
}  // namespace rtb::storage::testing

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
//     itself, so lookups are answered again once the gateway is back;
//   - a region server of the test's own (`hbase.sh regionserver`, a JVM of
//     its own) holding every primary region of `profiles`, whose replicas
//     (REGION_REPLICATION 2) sit on the cluster's other region servers,
//     killed with SIGKILL under load: TIMELINE lookups keep being answered
//     by the replicas (counted as stale), every request is answered, and
//     writes to `profiles`, refused while the regions have no primary,
//     resume once the master has reassigned them.
//
// HBase here is three JVMs (master with two region servers, the gateway,
// the test's own gateway or region server) on the machine of the bidder and
// the load generator. Sharing their cores, the JVMs' garbage collection and
// the JIT compilation of a freshly started gateway starve the bidder and
// rtb-load of CPU for hundreds of milliseconds, with or without a fault, and
// "before the deadline" becomes a property of the machine. So, as a cluster
// on hosts of its own would be, HBase is kept off the bidder's cores while
// these tests run: on a machine with two CPUs or more, every HBase JVM is
// confined to the last CPU (`hbase.sh cpus`, and the test's own JVMs
// started under taskset) and the test, the bidder and rtb-load to the
// others; the JVMs get every CPU back when the suite ends. Then every answer
// must come before its tmax, with no late answer. On one CPU (or with
// RTB_FAULTS_STRICT_DEADLINES=0) only what holds on any machine is checked:
// every request answered with 200 or 204, none lost or refused, the outage
// seen, lookups answered again after it; the deadline figures are printed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "loadtest/delay_proxy.h"
#include "storage/hbase_store.h"
#include "storage/schemas.h"
#include "tests/storage/faults/bidder_cluster.h"
#include "tests/storage/test_hbase.h"

namespace rtb::storage::testing {
namespace {

using namespace std::chrono_literals;

std::string HBaseScript() { return std::string(RTB_SOURCE_DIR) + "/deploy/hbase/hbase.sh"; }

// The CPUs of HBase's JVMs and of the bidder's side, while the suite runs.
struct CpuSplit {
  cpu_set_t everything{};  // this process's CPUs before the split
  cpu_set_t bidder{};      // the test, the bidder, rtb-load
  int hbase = -1;          // HBase's JVMs; -1 when there is no split
};

CpuSplit& Split() {
  static CpuSplit split;
  return split;
}

// Runs `hbase.sh cpus LIST`; true when it succeeded.
bool MoveHBaseTo(const std::string& cpu_list) {
  ChildProcess cpus(std::filesystem::temp_directory_path() / "rtb-hbase-cpus.out",
                    std::filesystem::temp_directory_path() / "rtb-hbase-cpus.err");
  if (!cpus.Start({"/bin/bash", HBaseScript(), "cpus", cpu_list})) return false;
  const bool moved = cpus.AwaitExit(std::chrono::seconds(30)) == std::optional<int>(0);
  if (!moved) {
    std::fprintf(stderr, "hbase.sh cpus %s: %s\n", cpu_list.c_str(), cpus.Stderr().c_str());
  }
  return moved;
}

std::string CpuList(const cpu_set_t& set) {
  std::string list;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    if (!list.empty()) list += ',';
    list += std::to_string(cpu);
  }
  return list;
}

// Puts HBase's running JVMs on the last of this process's CPUs and this
// process (whose children inherit it) on the others. Nothing on one CPU;
// false when there are two or more and the split failed.
bool SplitCpus() {
  CpuSplit& split = Split();
  if (::sched_getaffinity(0, sizeof(split.everything), &split.everything) != 0) return false;
  if (CPU_COUNT(&split.everything) < 2) return true;
  int last = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &split.everything)) last = cpu;
  }
  split.bidder = split.everything;
  CPU_CLR(last, &split.bidder);
  if (!MoveHBaseTo(std::to_string(last))) return false;
  if (::sched_setaffinity(0, sizeof(split.bidder), &split.bidder) != 0) {
    MoveHBaseTo(CpuList(split.everything));
    return false;
  }
  split.hbase = last;
  return true;
}

void JoinCpus() {
  CpuSplit& split = Split();
  if (split.hbase < 0) return;
  ::sched_setaffinity(0, sizeof(split.everything), &split.everything);
  MoveHBaseTo(CpuList(split.everything));
  split.hbase = -1;
}

// Starts `hbase.sh` with `args` in `child`, its JVM on HBase's CPU when the
// CPUs are split.
bool StartHBaseScript(ChildProcess& child, std::vector<std::string> args) {
  std::vector<std::string> argv = {"/bin/bash", HBaseScript()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env;
  if (Split().hbase >= 0) env.push_back("RTB_HBASE_CPUS=" + std::to_string(Split().hbase));
  return child.Start(argv, env);
}

// Starts `hbase.sh gateway port` in `gateway` and waits (bounded: a JVM on a
// loaded machine) until it accepts connections.
bool StartGateway(ChildProcess& gateway, int port) {
  if (!StartHBaseScript(gateway, {"gateway", std::to_string(port)})) return false;
  const auto give_up = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < give_up) {
    if (Accepts(port)) return true;
    if (!gateway.Running()) return false;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

bool StrictDeadlines() {
  const std::string setting = rtb::testing::EnvOrEmpty("RTB_FAULTS_STRICT_DEADLINES");
  if (setting == "0") return false;
  return setting == "1" || Split().hbase >= 0;
}

// Every request answered with a bid or a no-bid; with strict deadlines, all
// before `tmax_ms` and none late.
void ExpectEveryRequestAnswered(const LoadReport& load, int tmax_ms, double late_answers) {
  if (StrictDeadlines()) {
    ExpectEveryRequestAnsweredInTime(load, tmax_ms);
    EXPECT_EQ(late_answers, 0);
    return;
  }
  EXPECT_EQ(load.errors(), 0) << load.json.dump();
  EXPECT_EQ(load.unanswered(), 0) << load.json.dump();
  EXPECT_EQ(load.completed(), load.sent()) << load.json.dump();
  EXPECT_EQ(load.status(200) + load.status(204), load.completed()) << load.json.dump();
}

class HBaseStorageFaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (rtb::testing::TestHBaseEndpoint().empty()) return;
    split_ok_ = SplitCpus();
    std::printf(
        "HBase's JVMs on CPU %d, the bidder and rtb-load on CPUs %s; strict deadlines: %s\n",
        Split().hbase, CpuList(Split().bidder).c_str(), StrictDeadlines() ? "yes" : "no");
    const std::filesystem::path dir = TestDirectory("rtb-hbase-faults-seed");
    nlohmann::json config = ExampleConfig();
    config["storage"] = RemoteStorage({rtb::testing::TestHBaseEndpoint()}, 30000);
    seeded_ = SeedProfiles(dir, config);
    if (seeded_) std::filesystem::remove_all(dir);
  }

  static void TearDownTestSuite() { JoinCpus(); }

  void SetUp() override {
    RTB_SKIP_OR_FAIL_WITHOUT_TEST_HBASE();
    // On a machine with the CPUs for it, deadlines are checked only with
    // HBase off the bidder's cores: a failed split must not quietly relax.
    ASSERT_TRUE(split_ok_) << "could not move HBase's JVMs to a CPU of their own (hbase.sh cpus)";
    ASSERT_TRUE(seeded_) << "rtb-seed-profiles failed against the gateway";
    dir_ = TestDirectory("rtb-hbase-faults");
  }
  void TearDown() override {
    if (!HasFailure() && !dir_.empty()) std::filesystem::remove_all(dir_);
  }

  static bool seeded_;
  static bool split_ok_;
  std::filesystem::path dir_;
};

bool HBaseStorageFaultTest::seeded_ = false;
bool HBaseStorageFaultTest::split_ok_ = false;

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
  constexpr int kTmaxMs = 80;
  config["storage"] = RemoteStorage({(*proxy)->endpoint()});
  BidderProcess bidder(dir_, "bidder");
  ASSERT_TRUE(bidder.Start(config)) << bidder.Log();
  const auto request = RequestWithTmax(dir_, kTmaxMs);
  // Warm the gateway's region cache and JIT and the bidder's pool first, as
  // the other tests do: a gateway that has served nothing yet answers too
  // slowly for the 45 ms lookups to come back at all.
  LoadRun warm(dir_, "warm");
  ASSERT_TRUE(warm.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/3, /*warmup_s=*/0));
  ASSERT_TRUE(warm.Finish()) << warm.Stderr();
  const auto before = bidder.Metrics();
  LoadRun load(dir_, "load");
  ASSERT_TRUE(load.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/8, /*warmup_s=*/0));
  const std::optional<LoadReport> report = load.Finish();
  ASSERT_TRUE(report) << load.Stderr();
  const auto after = bidder.Metrics();
  auto delta = [&](const std::string& name) { return after[name] - before[name]; };

  ExpectEveryRequestAnswered(*report, kTmaxMs, delta(kLateAnswers));
  EXPECT_GT(report->completed(), 1000);
  const double timeouts = delta(Lookups("timeout"));
  const double answered = delta(Lookups("hit")) + delta(Lookups("miss")) + delta(Lookups("stale"));
  EXPECT_GT(timeouts, 0) << "the delay should make some lookups miss their deadline";
  EXPECT_GT(answered, 0) << "and some still come back in time";
  std::printf(
      "HBase gateway behind a 0-50 ms delaying proxy: %lld requests, %lld answered 200, %lld "
      "answered 204, p99 %.1f ms, max %.1f ms (tmax %d ms); lookups: %.0f hits, %.0f misses, %.0f "
      "stale, %.0f errors, %.0f timed out into contextual bids; %.0f late answers\n",
      static_cast<long long>(report->completed()), static_cast<long long>(report->status(200)),
      static_cast<long long>(report->status(204)), report->p99_latency_ms(),
      report->max_latency_ms(), kTmaxMs, delta(Lookups("hit")), delta(Lookups("miss")),
      delta(Lookups("stale")), delta(Lookups("error")), timeouts, delta(kLateAnswers));
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
  const std::optional<LoadReport> warm_report = warm.Finish();
  ASSERT_TRUE(warm_report) << warm.Stderr();

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
  ExpectEveryRequestAnswered(*during, kTmaxMs, end[kLateAnswers] - before[kLateAnswers]);
  auto failed = [](const MetricSnapshot& m) { return m[Lookups("error")] + m[Lookups("timeout")]; };
  auto answered = [](const MetricSnapshot& m) {
    return m[Lookups("hit")] + m[Lookups("miss")] + m[Lookups("stale")];
  };
  EXPECT_GT(failed(back) - failed(before), 0) << "lookups failed while the gateway was down";
  // Back: after 10 s for the new gateway's JVM to settle, lookups are
  // answered again on connections the client made by itself, and none fails
  // on a broken connection; a cold gateway may still be slow (timeouts).
  std::this_thread::sleep_for(10s);
  const auto settled = bidder.Metrics();
  LoadRun again(dir_, "again");
  ASSERT_TRUE(again.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/5, /*warmup_s=*/0));
  const std::optional<LoadReport> after_restart = again.Finish();
  ASSERT_TRUE(after_restart) << again.Stderr();
  const auto last = bidder.Metrics();
  ExpectEveryRequestAnswered(*after_restart, kTmaxMs, last[kLateAnswers] - settled[kLateAnswers]);
  const double answered_after = answered(last) - answered(settled);
  const double errors_after = last[Lookups("error")] - settled[Lookups("error")];
  const double timeouts_after = last[Lookups("timeout")] - settled[Lookups("timeout")];
  EXPECT_GT(answered_after, 0) << "no lookup answered after the gateway came back";
  EXPECT_EQ(errors_after, 0) << "lookups failed on connections after the gateway came back";
  std::printf(
      "HBase gateway killed under 200 requests/s and back after %.1f s (a JVM start): %lld "
      "requests, all answered (200 or 204), p50 %.1f ms, p99 %.1f ms, max %.1f ms for a %d ms "
      "tmax, %.0f late answers; warm-up before the fault p99 %.1f ms; %.0f lookups failed into "
      "contextual bids during the outage; 10 s after the restart, 5 s at 200/s: %.0f answered, "
      "%.0f errors, %.0f timeouts\n",
      outage_s, static_cast<long long>(during->completed()),
      during->json["latency_us"].value("p50", 0.0) / 1000.0, during->p99_latency_ms(),
      during->max_latency_ms(), kTmaxMs, end[kLateAnswers] - before[kLateAnswers],
      warm_report->p99_latency_ms(), failed(back) - failed(before), answered_after, errors_after,
      timeouts_after);
}

TEST_F(HBaseStorageFaultTest, WhenARegionServerDiesReplicasAnswerTimelineReadsAndWritesResume) {
  ChildProcess region_server(dir_ / "regionserver.out", dir_ / "regionserver.err");
  ASSERT_TRUE(StartHBaseScript(region_server, {"regionserver"}));
  const std::string cluster_servers = rtb::testing::EnvOrEmpty("RTB_HBASE_REGION_SERVERS");
  const int servers = (cluster_servers.empty() ? 2 : std::stoi(cluster_servers)) + 1;
  ChildProcess place(dir_ / "place.out", dir_ / "place.err");
  ASSERT_TRUE(
      StartHBaseScript(place, {"place", std::string(kProfilesTable), std::to_string(servers)}));
  ASSERT_EQ(place.AwaitExit(std::chrono::seconds(300)), std::optional<int>(0))
      << place.Stdout() << place.Stderr() << region_server.Stderr();
  ASSERT_TRUE(region_server.Running()) << region_server.Stderr();

  nlohmann::json config = ExampleConfig();
  config["storage"] = RemoteStorage({rtb::testing::TestHBaseEndpoint()});
  BidderProcess bidder(dir_, "bidder");
  ASSERT_TRUE(bidder.Start(config)) << bidder.Log();
  constexpr int kTmaxMs = 120;
  const auto request = RequestWithTmax(dir_, kTmaxMs);
  LoadRun warm(dir_, "warm");
  ASSERT_TRUE(warm.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/3, /*warmup_s=*/0));
  ASSERT_TRUE(warm.Finish()) << warm.Stderr();

  // A writer putting one cell to `profiles` every 200 ms, each write given
  // 2 s, from before the kill until well after the regions moved.
  HBaseStoreOptions options;
  options.endpoints = {rtb::testing::TestHBaseEndpoint()};
  options.call_timeout_ms = 2000;
  auto store = OpenHBaseStore(options);
  ASSERT_TRUE(store.ok()) << store.status();
  struct Write {
    std::chrono::steady_clock::time_point at;
    bool ok;
  };
  std::vector<Write> writes;
  std::atomic<bool> stop_writing = false;
  std::thread writer([&] {
    for (int i = 0; !stop_writing.load() && i < 1000; ++i) {
      Put put;
      put.row = "fault-test-writer";
      put.values.push_back({std::string(kProfileSegmentFamily), "n", std::to_string(i), {}});
      const auto at = std::chrono::steady_clock::now();
      writes.push_back({at, (*store)->Put(kProfilesTable, put).ok()});
      std::this_thread::sleep_until(at + 200ms);
    }
  });

  const auto before = bidder.Metrics();
  LoadRun load(dir_, "load");
  ASSERT_TRUE(load.Start(bidder.port(), request, /*rate=*/200, /*duration_s=*/40, /*warmup_s=*/0));
  std::this_thread::sleep_for(4s);
  region_server.Kill();
  const auto killed_at = std::chrono::steady_clock::now();
  const std::optional<LoadReport> during = load.Finish();
  const auto end = bidder.Metrics();
  // The writer goes on until 50 s after the kill: the master sees the death
  // after the 6 s ZooKeeper session, splits the dead server's WAL and
  // reopens the primaries elsewhere.
  std::this_thread::sleep_until(killed_at + 50s);
  stop_writing = true;
  writer.join();
  ASSERT_TRUE(during) << load.Stderr();
  ExpectEveryRequestAnswered(*during, kTmaxMs, end[kLateAnswers] - before[kLateAnswers]);

  auto delta = [&](const std::string& name) { return end[name] - before[name]; };
  EXPECT_GT(delta(Lookups("stale")), 0) << "no lookup was answered by a replica";
  int failed_after_kill = 0;
  double resumed_after_s = -1;  // none yet
  for (const Write& write : writes) {
    if (write.at < killed_at) continue;
    if (!write.ok) {
      ++failed_after_kill;
      resumed_after_s = -1;
    } else if (failed_after_kill > 0 && resumed_after_s < 0) {
      resumed_after_s = std::chrono::duration<double>(write.at - killed_at).count();
    }
  }
  ASSERT_FALSE(writes.empty());
  EXPECT_GT(failed_after_kill, 0) << "writes went on as if no primary had died";
  EXPECT_GE(resumed_after_s, 0) << "writes did not resume within 50 s";
  EXPECT_TRUE(writes.back().ok);
  std::printf(
      "region server holding every primary of profiles killed under 200 requests/s: %lld "
      "requests, all answered (200 or 204), p99 %.1f ms, max %.1f ms for a %d ms tmax, %.0f late "
      "answers; lookups during the run: %.0f stale (from replicas), %.0f hits, %.0f misses, %.0f "
      "timeouts, %.0f errors; writes: %d failed after the kill, resumed %.1f s after it\n",
      static_cast<long long>(during->completed()), during->p99_latency_ms(),
      during->max_latency_ms(), kTmaxMs, delta(kLateAnswers), delta(Lookups("stale")),
      delta(Lookups("hit")), delta(Lookups("miss")), delta(Lookups("timeout")),
      delta(Lookups("error")), failed_after_kill, resumed_after_s);
}

}  // namespace
}  // namespace rtb::storage::testing

// A bidder in front of a shared store, as a fault test runs it: rtb-bidder
// processes on loopback, the example configuration (campaigns and all) with
// its storage section pointed where the test says, profiles seeded by
// rtb-seed-profiles for the devices rtb-load draws, load from rtb-load, and
// the bidder's /metrics read back. Binaries and the repository's config come
// from the build (RTB_*_BINARY, RTB_SOURCE_DIR).
#ifndef RTB_TESTS_STORAGE_FAULTS_BIDDER_CLUSTER_H_
#define RTB_TESTS_STORAGE_FAULTS_BIDDER_CLUSTER_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/http_test_client.h"
#include "tests/storage/child_process.h"

namespace rtb::storage::testing {

inline constexpr char kDeviceSecret[] = "fault-device-secret-0123456789abcdef0123456789abcdef";
inline constexpr char kBeaconSecret[] = "fault-beacon-secret-0123456789abcdef0123456789abcdef";
// Devices rtb-load draws from (rtb-seed-profiles seeds half of the requests).
inline constexpr int kDevices = 2000;

inline std::vector<std::string> SecretEnvironment() {
  return {std::string("RTB_DEVICE_KEY_SECRET=") + kDeviceSecret,
          std::string("RTB_BEACON_SECRET=") + kBeaconSecret};
}

// The example configuration, listening on an ephemeral loopback port.
inline nlohmann::json ExampleConfig() {
  nlohmann::json config = nlohmann::json::parse(
      ReadWholeFile(std::string(RTB_SOURCE_DIR) + "/config/bidder.example.json"));
  config["server"]["port"] = 0;
  config["server"]["io_threads"] = 2;
  config["server"]["console_enabled"] = false;
  // rtb-load opens its 64 connections at once and, at these rates, leaves
  // some unused for longer than the default first-byte timeout (250 ms),
  // which closes them; its next request on one would count as an error that
  // has nothing to do with the storage fault under test.
  config["server"]["first_byte_timeout_ms"] = 10000;
  // The bidder shares its CPUs with rtb-load and the test: a timer wake-up
  // can come a few ms late. With the example's 1 ms auction budget a lookup
  // that ran to its deadline then left its contextual bid ready after the
  // response instant, replaced by a no-bid ("late"), in about one request of
  // 10,000 under a store fault. 15 ms covers the wake-up; the deadline tests
  // still hold every answer to its tmax.
  config["bid"]["auction_budget_us"] = 15000;
  return config;
}

// Storage on an embedded store at `path`.
inline nlohmann::json EmbeddedStorage(const std::filesystem::path& path) {
  return {
      {"backend", "embedded"},
      {"embedded", {{"path", path.string()}, {"block_cache_mib", 16}, {"write_buffer_mib", 4}}}};
}

// Storage through Thrift2 gateways (storage-server or HBase's).
inline nlohmann::json RemoteStorage(const std::vector<std::string>& endpoints,
                                    int call_timeout_ms = 1000) {
  return {{"backend", "hbase"},
          {"hbase",
           {{"endpoints", endpoints},
            {"transport", "buffered"},
            {"connect_timeout_ms", 200},
            {"call_timeout_ms", call_timeout_ms},
            {"pool_size", 16},
            {"hedge_delay_ms", 10},
            {"io_threads", 1}}}};
}

inline void WriteJson(const std::filesystem::path& path, const nlohmann::json& json) {
  std::ofstream out(path);
  out << json.dump(2);
}

// One example request with the given tmax, written to `dir`; rtb-load gives
// each a fresh id and device.ifa.
inline std::filesystem::path RequestWithTmax(const std::filesystem::path& dir, int tmax_ms) {
  nlohmann::json request = nlohmann::json::parse(
      ReadWholeFile(std::string(RTB_SOURCE_DIR) +
                    "/tests/fixtures/openrtb/requests/app-banner-leaderboard.json"));
  request["tmax"] = tmax_ms;
  const std::filesystem::path path = dir / ("request-tmax-" + std::to_string(tmax_ms) + ".json");
  WriteJson(path, request);
  return path;
}

// Runs rtb-seed-profiles on the store of `config` (no bidder may hold it).
inline bool SeedProfiles(const std::filesystem::path& dir, const nlohmann::json& config) {
  const std::filesystem::path path = dir / "seed.json";
  WriteJson(path, config);
  ChildProcess seed(dir / "seed.out", dir / "seed.err");
  if (!seed.Start({RTB_SEED_PROFILES_BINARY, "--config", path.string(), "--devices",
                   std::to_string(kDevices), "--hit-share", "0.5"},
                  SecretEnvironment())) {
    return false;
  }
  return seed.AwaitExit(std::chrono::seconds(120)) == std::optional<int>(0);
}

// A /metrics snapshot: "name{labels}" -> value; a series not present reads 0.
class MetricSnapshot {
 public:
  void Set(const std::string& series, double value) { values_[series] = value; }
  double operator[](const std::string& series) const {
    const auto it = values_.find(series);
    return it == values_.end() ? 0 : it->second;
  }
  bool empty() const { return values_.empty(); }

 private:
  std::map<std::string, double> values_;
};

class BidderProcess {
 public:
  BidderProcess(std::filesystem::path dir, std::string name)
      : dir_(std::move(dir)),
        name_(std::move(name)),
        process_(dir_ / (name_ + ".out"), dir_ / (name_ + ".log")) {}

  // Starts rtb-bidder on `config` and waits (bounded) until it listens.
  bool Start(nlohmann::json config) {
    // Each bidder its own beacon log (one writer per directory).
    if (!config.contains("beacon_log")) {
      config["beacon_log"]["embedded"]["path"] = (dir_ / (name_ + "-beacon-log")).string();
    }
    const std::filesystem::path path = dir_ / (name_ + ".json");
    const std::filesystem::path port_file = dir_ / (name_ + ".port");
    std::filesystem::remove(port_file);
    WriteJson(path, config);
    if (!process_.Start(
            {RTB_BIDDER_BINARY, "--config", path.string(), "--port-file", port_file.string()},
            SecretEnvironment())) {
      return false;
    }
    port_ = process_.AwaitPortFile(port_file, std::chrono::seconds(120));
    return port_ > 0;
  }

  int port() const { return port_; }
  ChildProcess& process() { return process_; }
  std::string Log() const { return process_.Stderr(); }

  // The bidder's counters; empty when /metrics does not answer.
  MetricSnapshot Metrics() const {
    MetricSnapshot out;
    rtb::bidder::testing::TestConnection conn(static_cast<uint16_t>(port_));
    auto response = conn.RoundTrip(rtb::bidder::testing::GetRequest("/metrics"));
    if (!response || response->status != 200) return out;
    std::istringstream lines(response->body);
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#') continue;
      const size_t space = line.rfind(' ');
      if (space == std::string::npos) continue;
      out.Set(line.substr(0, space), std::atof(line.c_str() + space + 1));
    }
    return out;
  }

 private:
  std::filesystem::path dir_;
  std::string name_;
  ChildProcess process_;
  int port_ = 0;
};

// What rtb-load reported.
struct LoadReport {
  nlohmann::json json;
  int64_t sent() const { return json.value("sent", int64_t{0}); }
  int64_t completed() const { return json.value("completed", int64_t{0}); }
  int64_t errors() const { return json.value("errors", int64_t{0}); }
  int64_t unanswered() const { return json.value("unanswered", int64_t{0}); }
  int64_t status(int code) const { return json["status"].value(std::to_string(code), int64_t{0}); }
  double max_latency_ms() const { return json["latency_us"].value("max", 0.0) / 1000.0; }
  double p99_latency_ms() const { return json["latency_us"].value("p99", 0.0) / 1000.0; }
};

// Starts rtb-load against `port`; Finish waits for its report.
class LoadRun {
 public:
  LoadRun(const std::filesystem::path& dir, const std::string& name)
      : process_(dir / (name + ".out"), dir / (name + ".err")) {}

  // `win_rate` > 0: that share of the bids get their win and billing notices.
  bool Start(int port, const std::filesystem::path& request, double rate, double duration_s,
             double warmup_s = 1, double win_rate = 0) {
    std::vector<std::string> argv = {RTB_LOAD_BINARY,
                                     "--port",
                                     std::to_string(port),
                                     "--rate",
                                     std::to_string(rate),
                                     "--duration",
                                     std::to_string(duration_s),
                                     "--warmup",
                                     std::to_string(warmup_s),
                                     "--drain",
                                     "2",
                                     "--connections",
                                     "32",
                                     "--requests",
                                     request.string(),
                                     "--devices",
                                     std::to_string(kDevices)};
    if (win_rate > 0) {
      argv.insert(argv.end(), {"--win-rate", std::to_string(win_rate)});
    }
    return process_.Start(argv);
  }

  std::optional<LoadReport> Finish() {
    if (process_.AwaitExit(std::chrono::seconds(180)) != std::optional<int>(0)) return std::nullopt;
    const std::string out = process_.Stdout();
    const auto json = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return std::nullopt;
    return LoadReport{json};
  }

  std::string Stderr() const { return process_.Stderr(); }

 private:
  ChildProcess process_;
};

// Every request answered (a bid or a no-bid) before its deadline.
inline void ExpectEveryRequestAnsweredInTime(const LoadReport& load, int tmax_ms) {
  EXPECT_EQ(load.errors(), 0) << load.json.dump();
  EXPECT_EQ(load.unanswered(), 0) << load.json.dump();
  EXPECT_EQ(load.completed(), load.sent()) << load.json.dump();
  EXPECT_EQ(load.status(200) + load.status(204), load.completed()) << load.json.dump();
  EXPECT_LT(load.max_latency_ms(), tmax_ms) << load.json.dump();
}

inline std::string Lookups(const std::string& outcome) {
  return "bidder_profile_lookups_total{outcome=\"" + outcome + "\"}";
}

// Bids ready after their response instant, replaced by no-bids.
inline constexpr char kLateAnswers[] =
    "bidder_bid_requests_total{exchange=\"sample-exchange\",outcome=\"late\"}";

// A fresh directory for one test's files (named after the running test, or
// `prefix` alone outside a test), kept when the test fails.
inline std::filesystem::path TestDirectory(const std::string& prefix) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (prefix + "-" + std::to_string(::getpid()) + (test ? std::string("-") + test->name() : ""));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_FAULTS_BIDDER_CLUSTER_H_

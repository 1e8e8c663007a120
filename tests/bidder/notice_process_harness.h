// The harness of the process tests of money and beacons (spend_crash_process_test.cc,
// beacon_log_process_test.cc): rtb-bidder, rtb-pacer and rtb-stream as
// child processes, bids won through a real bidder and their notices with
// the macros filled as an exchange fills them, and the store compared with
// the notices (spend, impressions, frequency caps, the spend journal).
#ifndef RTB_TESTS_BIDDER_NOTICE_PROCESS_HARNESS_H_
#define RTB_TESTS_BIDDER_NOTICE_PROCESS_HARNESS_H_

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bidder/bid/device_key.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "storage/hbase_store.h"
#include "storage/key_bytes.h"
#include "storage/schemas.h"
#include "storage/store.h"
#include "tests/bidder/http_test_client.h"

extern char** environ;

namespace rtb::bidder::testing {

namespace fs = std::filesystem;

inline constexpr char kDeviceSecret[] = "device-secret-0123456789abcdef0123456789abcdef";
inline constexpr char kBeaconSecret[] = "beacon-secret-0123456789abcdef0123456789abcdef";

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A child process with the two secrets in its environment; SIGKILLed if it
// still runs when destroyed.
class Child {
 public:
  Child(std::string binary, fs::path dir) : binary_(std::move(binary)), dir_(std::move(dir)) {
    fs::create_directories(dir_);
  }
  ~Child() { Kill(); }

  bool Spawn(const std::vector<std::string>& args) {
    std::vector<std::string> strings = {binary_};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    env.push_back(std::string("RTB_DEVICE_KEY_SECRET=") + kDeviceSecret);
    env.push_back(std::string("RTB_BEACON_SECRET=") + kBeaconSecret);
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string err = (dir_ / "stderr.txt").string();
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) pid_ = -1;
    return rc == 0;
  }

  // The port written to `port_file` (at most 30 s); 0 when none.
  int AwaitPort(const fs::path& port_file) {
    for (int i = 0; i < 600 && pid_ > 0; ++i) {
      std::ifstream in(port_file);
      int port = 0;
      if (in >> port && port > 0) return port;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  // SIGTERM, then the exit code (at most 30 s).
  std::optional<int> Stop() {
    if (pid_ <= 0) return std::nullopt;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 3000; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? std::optional<int>(WEXITSTATUS(status)) : std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }

  std::string Stderr() const { return ReadFile(dir_ / "stderr.txt"); }

 private:
  std::string binary_;
  fs::path dir_;
  pid_t pid_ = -1;
};

// One won bid and its notices, macros filled as the exchange fills them.
struct Notice {
  std::string campaign;
  std::string device;
  std::string win;
  std::string billing;
  int64_t spend_micros = 0;
};

// Pacing: each bidder its own controller, or rtb-pacer's decisions.
enum class Mode { kSidecarEmbedded, kPacerProcess };

// Real processes on a store of their own under a temporary directory: the
// bidder's config, bids won and their notices, notices sent by four
// exchange connections, and the store compared with the notices.
class NoticeProcessTest : public ::testing::Test {
 protected:
  // `name` keeps the directories of test programs apart.
  void MakeDirectory(std::string_view name) {
    dir_ = fs::temp_directory_path() / absl::StrCat("rtb-", std::string(name), "-", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // The example config on an embedded store in the directory, or on the
  // storage-server at `storage_endpoint`.
  nlohmann::json Config(const std::string& storage_endpoint, Mode mode) {
    nlohmann::json config =
        nlohmann::json::parse(ReadFile(fs::path(RTB_CONFIG_DIR) / "bidder.example.json"));
    config["server"]["port"] = 0;
    config["server"]["io_threads"] = 2;
    // The exchange's connections open at once and may wait for their first
    // notice longer than the default first-byte timeout (250 ms), which
    // would close them.
    config["server"]["first_byte_timeout_ms"] = 10000;
    config["telemetry"]["enabled"] = false;
    if (storage_endpoint.empty()) {
      config["storage"] = {
          {"backend", "embedded"},
          {"embedded",
           {{"path", (dir_ / "data").string()}, {"block_cache_mib", 8}, {"write_buffer_mib", 4}}}};
    } else {
      config["storage"] = {{"backend", "storage-server"},
                           {"hbase", {{"endpoints", {storage_endpoint}}}}};
    }
    // Flushes every second: at the kill, part of the spend is counted in
    // the budget (its journal entries deleted or about to be) and the last
    // fraction of a second's is only in the journal.
    config["pacing"]["flush_interval_ms"] = 1000;
    config["pacing"]["controller_interval_ms"] = 200;
    config["pacing"]["mode"] = mode == Mode::kPacerProcess ? "pacer" : "sidecar";
    // On a shared store a restarted process leases the lowest free worker
    // id; its killed predecessor's id is free (and its journal adopted)
    // three seconds after the kill.
    config["pacing"]["worker_lease_ttl_ms"] = 3000;
    for (const nlohmann::json& c : config["campaigns"]) {
      capped_[c["id"]] = c["frequency_cap_per_day"].get<int>() > 0;
    }
    return config;
  }

  // One beacon log for the bidder and the one started after its crash, which
  // applies what the first acknowledged and left unapplied.
  fs::path WriteConfig(nlohmann::json config) {
    config["beacon_log"]["embedded"]["path"] = (dir_ / "beacon-log").string();
    const fs::path path = dir_ / "bidder.json";
    std::ofstream(path) << config.dump(2);
    return path;
  }

  int StartBidder(Child& bidder, const fs::path& config, const std::string& name) {
    const fs::path port_file = dir_ / (name + ".port");
    EXPECT_TRUE(bidder.Spawn({"--config", config.string(), "--port-file", port_file.string()}));
    return bidder.AwaitPort(port_file);
  }

  // Bids until `count` bids won, spread over `devices` devices; request ids
  // start with `request_prefix` (distinct per bidder of a fleet).
  std::vector<Notice> Bids(int port, int count, int devices,
                           std::string_view request_prefix = "crash-req-") {
    const nlohmann::json sample = nlohmann::json::parse(
        ReadFile(fs::path(RTB_OPENRTB_FIXTURES_DIR) / "site-banner-mrec.json"));
    TestConnection conn(port);
    std::vector<Notice> notices;
    const std::string origin = absl::StrCat("http://127.0.0.1:", port);
    for (int i = 0; i < count * 4 && static_cast<int>(notices.size()) < count; ++i) {
      nlohmann::json request = sample;
      request["id"] = std::string(request_prefix) + std::to_string(i);
      const std::string device =
          absl::StrCat("7e3d2a10-0000-4000-8000-", 100000000000 + i % devices);
      request["device"]["ifa"] = device;
      request["device"].erase("lmt");
      request["device"].erase("dnt");
      std::optional<testing::TestResponse> response =
          conn.RoundTrip(PostRequest("/openrtb2/bid", request.dump()));
      if (!response) {
        ADD_FAILURE() << "bid request " << i << " got no answer";
        break;
      }
      if (response->status != 200) {
        // No bid: the pacing decisions are not there yet, or throttle.
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      const nlohmann::json bid = nlohmann::json::parse(response->body)["seatbid"][0]["bid"][0];
      const double price = bid["price"].get<double>();
      // A clearing price of 80 % of the bid, as the exchange writes it.
      const std::string clearing = absl::StrCat(price * 0.8);
      auto fill = [&](const std::string& url) {
        EXPECT_EQ(url.rfind(origin, 0), 0u) << url;
        return absl::StrReplaceAll(url.substr(origin.size()),
                                   {{"${AUCTION_ID}", request["id"].get<std::string>()},
                                    {"${AUCTION_IMP_ID}", bid["impid"].get<std::string>()},
                                    {"${AUCTION_BID_ID}", bid["id"].get<std::string>()},
                                    {"${AUCTION_PRICE}", clearing},
                                    {"${AUCTION_CURRENCY}", "USD"}});
      };
      Notice notice;
      notice.campaign = bid["cid"];
      notice.device = device;
      notice.win = fill(bid["nurl"]);
      notice.billing = fill(bid["burl"]);
      notice.spend_micros = std::llround(std::stod(clearing) * 1e6 / 1000);
      notices.push_back(std::move(notice));
    }
    return notices;
  }

  // Four exchange connections send each notice's win then billing notice,
  // and stop at the first unanswered call. Once `kill_after` billing notices
  // are acknowledged, `kill` runs. Returns, per notice, whether its billing
  // notice was acknowledged (204).
  std::vector<bool> SendUntilKilled(int port, const std::vector<Notice>& notices, int kill_after,
                                    const std::function<void()>& kill) {
    std::vector<std::atomic<bool>> acked(notices.size());
    std::atomic<size_t> next{0};
    std::atomic<int> acknowledged{0};
    std::vector<std::thread> clients;
    for (int c = 0; c < 4; ++c) {
      clients.emplace_back([&] {
        TestConnection conn(port, std::chrono::seconds(3));
        for (size_t i = next++; i < notices.size(); i = next++) {
          std::optional<testing::TestResponse> win = conn.RoundTrip(GetRequest(notices[i].win));
          if (!win) return;
          std::optional<testing::TestResponse> billing =
              conn.RoundTrip(GetRequest(notices[i].billing));
          if (!billing) return;
          if (billing->status == 204) {
            acked[i] = true;
            ++acknowledged;
          }
        }
      });
    }
    for (int i = 0; i < 6000 && acknowledged.load() < kill_after; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    kill();
    for (std::thread& t : clients) t.join();
    std::vector<bool> result;
    for (const std::atomic<bool>& a : acked) result.push_back(a.load());
    return result;
  }

  // The exchange's retries after the restart: every notice again, answered
  // or not (an answered one is a replay and must count nothing).
  void Retry(int port, const std::vector<Notice>& notices) {
    TestConnection conn(port);
    for (const Notice& n : notices) {
      std::optional<testing::TestResponse> win = conn.RoundTrip(GetRequest(n.win));
      ASSERT_TRUE(win.has_value());
      EXPECT_EQ(win->status, 204u);
      std::optional<testing::TestResponse> billing = conn.RoundTrip(GetRequest(n.billing));
      ASSERT_TRUE(billing.has_value());
      EXPECT_EQ(billing->status, 204u) << billing->body;
    }
  }

  std::string Metrics(int port) {
    TestConnection conn(port);
    std::optional<testing::TestResponse> r = conn.RoundTrip(GetRequest("/metrics"));
    return r ? r->body : "";
  }

  // Drops `tables` from the HBase cluster at `endpoint` where they exist:
  // earlier tests' rows out of the comparison (the bidder creates them
  // again at start-up). Tests calling it run alone (RUN_SERIAL).
  static void DropTables(const std::string& endpoint, std::vector<std::string_view> tables) {
    storage::HBaseStoreOptions options;
    options.endpoints = {endpoint};
    absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenHBaseStore(options);
    ASSERT_TRUE(store.ok()) << store.status();
    for (std::string_view table : tables) {
      absl::StatusOr<bool> exists = (*store)->TableExists(table);
      ASSERT_TRUE(exists.ok()) << exists.status();
      if (*exists) {
        ASSERT_TRUE((*store)->DeleteTable(table).ok()) << table;
      }
    }
  }

  // Waits (at most `limit`) until the spend journal holds no entry: every
  // worker, and every dead worker's adopter, has counted what it journaled.
  static bool AwaitJournalCounted(storage::Store& store, std::chrono::seconds limit) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < give_up) {
      storage::Scan entries;
      entries.columns = {
          storage::Column{std::string(storage::kSpendJournalEntryFamily), std::nullopt}};
      entries.limit = 1;
      absl::StatusOr<std::vector<storage::RowResult>> rows =
          store.Scan(storage::kSpendJournalTable, entries);
      if (rows.ok() && rows->empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }

  // Compares the store with the notices.
  void Verify(storage::Store& store, const std::vector<Notice>& notices) {
    std::map<std::string, int64_t> expected_spend;
    std::map<std::pair<std::string, std::string>, int64_t> expected_caps;
    for (const Notice& n : notices) {
      expected_spend[n.campaign] += n.spend_micros;
      if (capped_[n.campaign]) ++expected_caps[{n.device, n.campaign}];
    }

    storage::Scan all;
    all.limit = storage::kMaxScanRows;
    absl::StatusOr<std::vector<storage::RowResult>> budget = store.Scan(storage::kBudgetTable, all);
    ASSERT_TRUE(budget.ok()) << budget.status();
    std::map<std::string, int64_t> spend;
    for (const storage::RowResult& row : *budget) {
      const size_t bar = row.row.find('|');
      if (bar == 0 || bar == std::string::npos) continue;  // a decision row
      for (const storage::Cell& cell : row.cells) {
        if (cell.family == "spend" && cell.qualifier.size() == 8 &&
            cell.qualifier.find_first_not_of("0123456789") == std::string::npos) {
          spend[row.row.substr(0, bar)] += storage::DecodeCounter(cell.value).value_or(0);
        }
      }
    }
    EXPECT_EQ(spend, expected_spend);

    absl::StatusOr<std::vector<storage::RowResult>> impressions =
        store.Scan(storage::kImpressionsTable, all);
    ASSERT_TRUE(impressions.ok()) << impressions.status();
    EXPECT_EQ(impressions->size(), notices.size());
    int64_t impression_spend = 0;
    for (const storage::RowResult& row : *impressions) {
      impression_spend += row.Counter(storage::kImpressionFamily, "spend").value_or(0);
    }
    int64_t total = 0;
    for (const auto& [campaign, micros] : expected_spend) total += micros;
    EXPECT_EQ(impression_spend, total);

    const DeviceKeyHasher hasher(kDeviceSecret);
    std::map<std::pair<std::string, std::string>, int64_t> caps;
    for (const auto& [key, count] : expected_caps) {
      storage::Get get;
      get.row = std::string(hasher.Hash(key.first).bytes());
      absl::StatusOr<storage::RowResult> row = store.Get(storage::kProfilesTable, get);
      ASSERT_TRUE(row.ok()) << row.status();
      for (const storage::Cell& cell : row->cells) {
        if (cell.family == storage::kProfileFrequencyCapFamily &&
            cell.qualifier.starts_with(key.second + "|")) {
          caps[key] += storage::DecodeCounter(cell.value).value_or(0);
        }
      }
    }
    EXPECT_EQ(caps, expected_caps);

    // Every journal entry a claim names was counted and deleted; what is
    // left can only be an entry whose claim never landed (begun by the
    // killed process), kept for one more read a flush after the restart.
    absl::StatusOr<std::vector<storage::RowResult>> journal =
        store.Scan(storage::kSpendJournalTable, all);
    ASSERT_TRUE(journal.ok()) << journal.status();
    size_t left = 0;
    for (const storage::RowResult& entry : *journal) {
      if (entry.row.size() != 10) continue;  // a worker's sequence counter
      ++left;
      storage::Get get;
      get.row = std::string(entry.Value("e", "i").value_or(""));
      absl::StatusOr<storage::RowResult> impression = store.Get(storage::kImpressionsTable, get);
      ASSERT_TRUE(impression.ok()) << impression.status();
      EXPECT_NE(impression->Value(storage::kImpressionFamily, storage::kImpressionJournalColumn),
                std::optional<std::string_view>(entry.row))
          << "a claimed entry was left uncounted";
    }
    EXPECT_LE(left, 4u) << "more entries left than notices the kill can interrupt";
  }

  fs::path dir_;
  std::map<std::string, bool> capped_;
};

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_NOTICE_PROCESS_HARNESS_H_

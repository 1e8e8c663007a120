// After a load run with win and billing notices, operator logins (one with a
// wrong password), device event reads, erasures and a logout, nothing secret
// is anywhere the bidder wrote: the whole embedded store (every column
// family of the RocksDB database, every key and value, so every table, row,
// cell and version, expired or not yet compacted; plus the raw bytes of every
// file in the store's directory, WAL included) and the bidder's logs hold no
// raw device id, session token, CSRF token, password or configured secret.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loadtest/request_mix.h"
#include "rocksdb/db.h"
#include "tests/bidder/operator_login.h"
#include "tests/storage/faults/bidder_cluster.h"

namespace rtb::storage::testing {
namespace {

using namespace std::chrono_literals;
using rtb::bidder::testing::OperatorSession;
using rtb::bidder::testing::TestConnection;
using rtb::bidder::testing::TestResponse;

constexpr char kUser[] = "ops@example.test";

// What must never appear, each with the name a hit is reported under.
struct Needle {
  std::string what;
  std::string bytes;
};

// Where the needles were looked for, and what was found.
struct ScanReport {
  int64_t keys = 0;
  int64_t value_bytes = 0;
  int64_t file_bytes = 0;
  std::map<std::string, int64_t> keys_per_family;
  std::vector<std::string> hits;

  void Look(const std::vector<Needle>& needles, std::string_view haystack,
            const std::string& where) {
    for (const Needle& needle : needles) {
      if (haystack.find(needle.bytes) != std::string_view::npos) {
        hits.push_back(needle.what + " in " + where);
      }
    }
  }
};

// Every key and value of every column family, read through RocksDB itself
// (so compressed blocks are read too), with the store closed.
bool ScanDatabase(const std::filesystem::path& path, const std::vector<Needle>& needles,
                  ScanReport* report) {
  std::vector<std::string> families;
  if (!rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path.string(), &families).ok()) {
    return false;
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& family : families) {
    descriptors.emplace_back(family, rocksdb::ColumnFamilyOptions());
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  if (!rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(), path.string(), descriptors, &handles,
                                    &raw)
           .ok()) {
    return false;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::ReadOptions options;
  options.total_order_seek = true;
  for (rocksdb::ColumnFamilyHandle* handle : handles) {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(options, handle));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++report->keys;
      ++report->keys_per_family[handle->GetName()];
      report->value_bytes += static_cast<int64_t>(it->value().size());
      report->Look(needles, it->key().ToStringView(),
                   "a key of column family " + handle->GetName());
      report->Look(needles, it->value().ToStringView(),
                   "a value of column family " + handle->GetName());
    }
    if (!it->status().ok()) return false;
  }
  for (rocksdb::ColumnFamilyHandle* handle : handles) db->DestroyColumnFamilyHandle(handle);
  return true;
}

void ScanFiles(const std::filesystem::path& dir, const std::vector<Needle>& needles,
               ScanReport* report) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string bytes = ReadWholeFile(entry.path());
    report->file_bytes += static_cast<int64_t>(bytes.size());
    report->Look(needles, bytes, entry.path().string());
  }
}

TestResponse Send(int port, const std::string& request) {
  TestConnection connection(static_cast<uint16_t>(port));
  return connection.RoundTrip(request).value_or(TestResponse{});
}

OperatorSession LogIn(int port, const std::string& password) {
  TestConnection connection(static_cast<uint16_t>(port));
  return rtb::bidder::testing::LogIn(connection, kUser, password);
}

TEST(SecretsScanTest, NoRawDeviceIdTokenPasswordOrSecretReachesTheStoreOrTheLogs) {
  const std::filesystem::path dir = TestDirectory("rtb-secrets-scan");
  const std::filesystem::path store = dir / "store";
  const std::string password = "secrets-scan operator password 8d1f0c6a";
  const std::string wrong_password = "secrets-scan wrong password 51b7e2d9";

  nlohmann::json config = ExampleConfig();
  config["storage"] = EmbeddedStorage(store);
  config["sessions"]["operators"] = nlohmann::json::array(
      {{{"user", kUser},
        {"password_hash", rtb::bidder::sessions::testing::TestPasswordHash(password)}}});
  config["sessions"]["cookie_secure"] = false;
  ASSERT_TRUE(SeedProfiles(dir, config));
  BidderProcess bidder(dir, "bidder");
  ASSERT_TRUE(bidder.Start(config)) << bidder.Log();
  const int port = bidder.port();

  // Bids, wins and billing notices: impressions, events, frequency caps,
  // device_impressions, spend.
  const auto request = RequestWithTmax(dir, 200);
  LoadRun load(dir, "load");
  ASSERT_TRUE(load.Start(port, request, /*rate=*/200, /*duration_s=*/8, /*warmup_s=*/0,
                         /*win_rate=*/0.5));
  const std::optional<LoadReport> run = load.Finish();
  ASSERT_TRUE(run) << load.Stderr();
  const auto metrics = bidder.Metrics();
  const double billed = metrics["bidder_beacons_total{kind=\"billing\",outcome=\"recorded\"}"];
  EXPECT_GT(billed, 100) << run->json.dump();

  // Logins: two good, one with the wrong password; one logout.
  const OperatorSession first = LogIn(port, password);
  ASSERT_EQ(first.status, 200);
  const OperatorSession second = LogIn(port, password);
  ASSERT_EQ(second.status, 200);
  EXPECT_EQ(LogIn(port, wrong_password).status, 401);

  // Reads of the hottest devices' events, then their erasure.
  std::vector<std::string> erased;
  for (uint64_t i = 0; i < 5; ++i) erased.push_back(loadtest::DeviceIdFor(i));
  for (const std::string& device : erased) {
    const TestResponse events = Send(
        port, bidder::testing::GetRequest(absl::StrCat("/api/devices/", device, "/events?limit=10"),
                                          bidder::testing::SessionHeaders(first, false)));
    EXPECT_EQ(events.status, 200u) << events.body;
    const TestResponse erasure =
        Send(port, bidder::testing::DeleteRequest(absl::StrCat("/api/devices/", device),
                                                  bidder::testing::SessionHeaders(first)));
    EXPECT_EQ(erasure.status, 202u) << erasure.body;
  }
  for (const std::string& device : erased) {
    std::string status;
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < give_up) {
      status =
          Send(port, bidder::testing::GetRequest(absl::StrCat("/api/devices/", device, "/erasure"),
                                                 bidder::testing::SessionHeaders(first, false)))
              .body;
      if (status.find("major_compacted") != std::string::npos) break;
      std::this_thread::sleep_for(200ms);
    }
    EXPECT_NE(status.find("major_compacted"), std::string::npos) << status;
  }
  EXPECT_EQ(Send(port, bidder::testing::PostRequest("/api/logout", "{}",
                                                    bidder::testing::SessionHeaders(second)))
                .status,
            204u);

  bidder.process().Signal(SIGTERM);
  ASSERT_EQ(bidder.process().AwaitExit(std::chrono::seconds(60)), std::optional<int>(0))
      << bidder.Log();

  auto token_of = [](const OperatorSession& session) {
    return session.cookie.substr(session.cookie.find('=') + 1);
  };
  std::vector<Needle> needles = {
      {"the session token of the first login", token_of(first)},
      {"the session token of the logged-out login", token_of(second)},
      {"a CSRF token", first.csrf_token},
      {"the operator password", password},
      {"a wrong password", wrong_password},
      {"the device key secret", kDeviceSecret},
      {"the beacon secret", kBeaconSecret},
  };
  for (int64_t i = 0; i < kDevices; ++i) {
    const std::string device = loadtest::DeviceIdFor(static_cast<uint64_t>(i));
    needles.push_back({"raw device id " + device, device});
    needles.push_back({"raw device id " + device + " upper-cased", absl::AsciiStrToUpper(device)});
  }
  // The scanner itself finds what is there: the operator's name is stored
  // in the session index.
  std::vector<Needle> control = {{"the operator's user name", kUser}};

  ScanReport report;
  ASSERT_TRUE(ScanDatabase(store, needles, &report));
  ScanFiles(store, needles, &report);
  for (const char* log : {"bidder.log", "bidder.out", "seed.out", "seed.err"}) {
    if (std::filesystem::exists(dir / log)) report.Look(needles, ReadWholeFile(dir / log), log);
  }
  ScanReport control_report;
  ASSERT_TRUE(ScanDatabase(store, control, &control_report));
  EXPECT_FALSE(control_report.hits.empty()) << "the scan should see the stored user name";

  EXPECT_GT(report.keys, 1000);
  std::string hits;
  for (size_t i = 0; i < std::min<size_t>(report.hits.size(), 20); ++i) {
    hits += report.hits[i] + "\n";
  }
  EXPECT_TRUE(report.hits.empty()) << report.hits.size() << " hits, first ones:\n" << hits;
  std::printf(
      "secrets scan after %lld bid requests, %.0f billing notices recorded, 3 logins, 1 logout, "
      "%zu erasures: %lld keys in %zu column families (%lld value bytes), %lld bytes of store "
      "files and the logs searched for %zu needles: %zu hits\n",
      static_cast<long long>(run->completed()), billed, erased.size(),
      static_cast<long long>(report.keys), report.keys_per_family.size(),
      static_cast<long long>(report.value_bytes), static_cast<long long>(report.file_bytes),
      needles.size(), report.hits.size());
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rtb::storage::testing

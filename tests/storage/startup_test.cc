// The start-up library every process shares: flags, the port file, opening
// the configured store with the bidder's tables.
#include "storage/startup/startup.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "storage/schemas.h"

namespace rtb::startup {
namespace {

using Outcome = FlagParser::Outcome;

struct Argv {
  explicit Argv(std::vector<std::string> args) : strings(std::move(args)) {
    strings.insert(strings.begin(), "prog");
    for (std::string& s : strings) pointers.push_back(s.data());
  }
  int argc() const { return static_cast<int>(pointers.size()); }
  char** argv() { return pointers.data(); }
  std::vector<std::string> strings;
  std::vector<char*> pointers;
};

struct Parsed {
  Outcome outcome;
  std::string path;
  int port = 7;
  int64_t cache_mb = 256;
  bool apply = false;
  std::string stderr_text;
};

Parsed Parse(std::vector<std::string> args) {
  Parsed parsed;
  FlagParser parser("prog", "usage: prog --path P [--port N] [--apply]\n");
  parser.Text("--path", &parsed.path);
  parser.Integer("--port", &parsed.port);
  parser.Integer("--cache-mb", &parsed.cache_mb, int64_t{1});
  parser.Switch("--apply", &parsed.apply);
  parser.Require("--path");
  Argv argv(std::move(args));
  ::testing::internal::CaptureStderr();
  parsed.outcome = parser.Parse(argv.argc(), argv.argv());
  parsed.stderr_text = ::testing::internal::GetCapturedStderr();
  return parsed;
}

TEST(FlagParserTest, ValuesComeSpacedOrAfterAnEqualsSign) {
  Parsed p = Parse({"--path", "/x", "--port=90", "--apply"});
  EXPECT_EQ(p.outcome, Outcome::kRun);
  EXPECT_EQ(p.path, "/x");
  EXPECT_EQ(p.port, 90);
  EXPECT_TRUE(p.apply);
  Parsed defaults = Parse({"--path=/y"});
  EXPECT_EQ(defaults.outcome, Outcome::kRun);
  EXPECT_EQ(defaults.port, 7);
  EXPECT_EQ(defaults.cache_mb, 256);
  EXPECT_EQ(Parse({"--path=/y", "--cache-mb", "1"}).cache_mb, 1);
  EXPECT_EQ(Parse({"--path=/y", "--port=-3"}).port, -3);  // no minimum given
  EXPECT_FALSE(defaults.apply);
}

TEST(FlagParserTest, ProblemsNameTheFlagAndPrintTheUsage) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{}, "prog: --path is required"},
      {{"--path", "/x", "--verbose"}, "prog: unknown argument \"--verbose\""},
      {{"--path"}, "prog: --path needs a value"},
      {{"--path="}, "prog: --path needs a non-empty value"},
      {{"--path", "/x", "--port", "9x"}, "prog: bad value \"9x\" for --port"},
      {{"--path", "/x", "--port", "99999999999"}, "prog: bad value \"99999999999\" for --port"},
      {{"--path", "/x", "--apply=1"}, "prog: unknown argument \"--apply=1\""},
      {{"--path", "/x", "--cache-mb", "0"}, "prog: bad value \"0\" for --cache-mb"},
      {{"--path", "/x", "--cache-mb", "-5"}, "prog: bad value \"-5\" for --cache-mb"},
  };
  for (const auto& [args, message] : cases) {
    Parsed p = Parse(args);
    EXPECT_EQ(p.outcome, Outcome::kError) << message;
    EXPECT_EQ(p.stderr_text.rfind(message, 0), 0u) << p.stderr_text;
    EXPECT_NE(p.stderr_text.find("usage: prog"), std::string::npos);
  }
}

TEST(FlagParserTest, HelpPrintsTheUsageOnStdout) {
  FlagParser parser("prog", "usage: prog\n");
  Argv argv({"--help"});
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(parser.Parse(argv.argc(), argv.argv()), Outcome::kHelp);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "usage: prog\n");
}

TEST(ExitCodeAfterTest, RunGoesOnHelpIsZeroABadFlagIsOne) {
  EXPECT_EQ(ExitCodeAfter(Outcome::kRun), std::nullopt);
  EXPECT_EQ(ExitCodeAfter(Outcome::kHelp), 0);
  EXPECT_EQ(ExitCodeAfter(Outcome::kError), 1);
}

TEST(FailStartTest, LogsTheErrorAndAnswersOne) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(FailStart("prog", "no config"), 1);
  const std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(logged.find(" prog: error: no config\n"), std::string::npos) << logged;
}

class StartupStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("startup-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(StartupStoreTest, PortFileHoldsThePortWhole) {
  const std::string path = (dir_ / "port").string();
  ASSERT_TRUE(WritePortFile(path, 8123).ok());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "8123\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  absl::Status unwritable = WritePortFile((dir_ / "no-such-dir" / "port").string(), 1);
  EXPECT_FALSE(unwritable.ok());
  EXPECT_NE(std::string(unwritable.message()).find("no-such-dir"), std::string::npos);
}

TEST_F(StartupStoreTest, BidderStoreHasEveryBidderTable) {
  config::BidderConfig config;
  config.storage.backend = config::StorageBackend::kEmbedded;
  config.storage.embedded.path = (dir_ / "store").string();
  absl::StatusOr<std::unique_ptr<storage::Store>> store = OpenBidderStore(config);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::vector<storage::TableSchema>> tables = (*store)->ListTables();
  ASSERT_TRUE(tables.ok());
  EXPECT_EQ(tables->size(), storage::BidderTables().size());
  EXPECT_EQ(DescribeStore(config.storage), "embedded store at " + config.storage.embedded.path);
}

// The row cache's share of MemoryUsage after one whole-row read of a row
// that exists, for the configured row_cache_mib.
int64_t RowCacheBytesAfterARead(const std::filesystem::path& path, int64_t row_cache_mib) {
  config::StorageConfig config;
  config.backend = config::StorageBackend::kEmbedded;
  config.embedded.path = path.string();
  config.embedded.row_cache_mib = row_cache_mib;
  absl::StatusOr<std::unique_ptr<storage::Store>> store = OpenConfiguredStore(config);
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return -1;
  storage::TableSchema schema;
  schema.name = "t";
  schema.families.push_back({.name = "f"});
  EXPECT_TRUE((*store)->CreateTable(schema).ok());
  storage::Put put;
  put.row = "row";
  put.values.push_back({"f", "q", "value", std::nullopt});
  EXPECT_TRUE((*store)->Put("t", put).ok());
  storage::Get get;
  get.row = "row";
  absl::StatusOr<storage::RowResult> row = (*store)->Get("t", get);
  EXPECT_TRUE(row.ok() && row->cells.size() == 1u);
  for (const storage::Store::MemoryPart& part : (*store)->MemoryUsage()) {
    if (std::string_view(part.part) == "row_cache") return part.bytes;
  }
  return -1;
}

TEST_F(StartupStoreTest, RowCacheSizeComesFromTheConfiguration) {
  EXPECT_EQ(RowCacheBytesAfterARead(dir_ / "off", 0), 0);
  EXPECT_GT(RowCacheBytesAfterARead(dir_ / "on", 1), 0);
}

TEST_F(StartupStoreTest, AStoreThatCannotOpenIsNamedInTheError) {
  config::StorageConfig config;
  config.backend = config::StorageBackend::kEmbedded;
  std::ofstream(dir_ / "file") << "not a directory";
  config.embedded.path = (dir_ / "file" / "store").string();
  absl::StatusOr<std::unique_ptr<storage::Store>> store = OpenConfiguredStore(config);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(std::string(store.status().message()).rfind("cannot open embedded store at ", 0), 0u)
      << store.status();
}

TEST(RunMainTest, AnEscapingExceptionIsExitCodeOne) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunMain("prog", []() -> int { throw std::runtime_error("no threads"); }), 1);
  EXPECT_NE(
      ::testing::internal::GetCapturedStderr().find("prog: error: unexpected failure: no threads"),
      std::string::npos);
  EXPECT_EQ(RunMain("prog", [] { return 3; }), 3);
}

// 64 MiB in 512-byte blocks allocated and written on a thread of their own,
// then freed but for every 64th, which keeps the free runs from merging
// into the top of the heap (where free() alone would give them back).
std::vector<std::unique_ptr<char[]>> FragmentOnAnotherThread() {
  constexpr size_t kBlocks = 128 * 1024;
  constexpr size_t kBlockBytes = 512;
  std::vector<std::unique_ptr<char[]>> kept;
  std::thread([&kept] {
    std::vector<std::unique_ptr<char[]>> blocks(kBlocks);
    for (auto& block : blocks) {
      block = std::make_unique<char[]>(kBlockBytes);
      std::memset(block.get(), 0x5a, kBlockBytes);
    }
    for (size_t i = 0; i < kBlocks; i += 64) kept.push_back(std::move(blocks[i]));
  }).join();
  return kept;
}

TEST(MetricsAddressTest, TakesAnIpAddressAndAPort) {
  for (const char* good :
       {"127.0.0.1:9466", "0.0.0.0:0", "127.0.0.1:65535", "[::1]:9466", "[::]:0"}) {
    EXPECT_TRUE(CheckMetricsAddress(good).ok()) << good;
  }
}

TEST(MetricsAddressTest, RefusesWhatWouldListenElsewhereOrNowhere) {
  // A bare port would listen on every interface, a comma on two addresses.
  for (const char* bad :
       {"9466", "", ":9466", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:94x",
        "localhost:9466", "::1:9466", "127.0.0.1:1,[::1]:2", "300.0.0.1:9466"}) {
    const absl::Status s = CheckMetricsAddress(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << bad;
    EXPECT_NE(s.message().find(std::string("\"") + bad + "\""), absl::string_view::npos)
        << s.message();
  }
}

TEST(ServeMetricsTest, ABadAddressIsAnInvalidArgumentAndATakenOneUnavailable) {
  auto registry = std::make_shared<prometheus::Registry>();
  absl::StatusOr<std::unique_ptr<prometheus::Exposer>> bad = ServeMetrics("9466", registry, "");
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status())) << bad.status();
  absl::StatusOr<std::unique_ptr<prometheus::Exposer>> first =
      ServeMetrics("127.0.0.1:0", registry, "");
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string taken = "127.0.0.1:" + std::to_string(MetricsPort(**first));
  EXPECT_TRUE(absl::IsUnavailable(ServeMetrics(taken, registry, "").status()));
}

TEST(AllocatorTrimmerTest, GivesBackThePagesOfFreedBlocks) {
  std::vector<std::unique_ptr<char[]>> kept = FragmentOnAnotherThread();
  const int64_t before = ResidentBytes();
  {
    AllocatorTrimmer trimmer(std::chrono::milliseconds(10));
    for (int i = 0; i < 1000 && trimmer.trims() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GT(trimmer.trims(), 0);
  }
  const int64_t released = before - ResidentBytes();
  // 63 MiB were freed; whole pages inside the free runs are most of it.
  EXPECT_GT(released, int64_t{32} << 20) << "before " << before;
}

TEST(AllocatorTrimmerTest, ZeroIntervalStartsNoThread) {
  AllocatorTrimmer trimmer(std::chrono::milliseconds(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(trimmer.trims(), 0);
}

TEST(AllocatorTrimmerTest, StopsAtOnceWhateverItsInterval) {
  const auto started = std::chrono::steady_clock::now();
  { AllocatorTrimmer trimmer(std::chrono::hours(1)); }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
}

}  // namespace
}  // namespace rtb::startup

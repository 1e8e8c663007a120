// Integration tests of the rtb-bidder binary: a real process on a temporary
// embedded store, reached over loopback, stopped with signals.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/bidder/http_test_client.h"

extern char** environ;

namespace rtb::bidder {
namespace {

using testing::GetRequest;
using testing::TestConnection;

constexpr char kDeviceSecret[] = "device-secret-0123456789abcdef0123456789abcdef";
constexpr char kBeaconSecret[] = "beacon-secret-0123456789abcdef0123456789abcdef";

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class BidderProcess {
 public:
  explicit BidderProcess(const std::filesystem::path& dir) : dir_(dir) {}
  ~BidderProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }

  // Starts the binary with `args`; stderr goes to a file in the test dir.
  bool Spawn(const std::vector<std::string>& args) {
    std::vector<std::string> argv_strings = {RTB_BIDDER_BINARY};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);

    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string_view entry(*e);
      if (entry.starts_with("RTB_DEVICE_KEY_SECRET=") || entry.starts_with("RTB_BEACON_SECRET=")) {
        continue;
      }
      env_strings.emplace_back(entry);
    }
    env_strings.push_back(std::string("RTB_DEVICE_KEY_SECRET=") + kDeviceSecret);
    env_strings.push_back(std::string("RTB_BEACON_SECRET=") + kBeaconSecret);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string err = (dir_ / "stderr.txt").string();
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) pid_ = -1;
    return rc == 0;
  }

  // Waits (bounded) for the port file; 0 when the process exits or it never
  // appears.
  uint16_t AwaitPort(const std::filesystem::path& port_file) {
    for (int i = 0; i < 600; ++i) {
      if (std::filesystem::exists(port_file)) {
        const std::string text = ReadFile(port_file);
        if (!text.empty()) return static_cast<uint16_t>(std::stoi(text));
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        exit_status_ = status;
        return 0;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
  }

  void Signal(int sig) { ::kill(pid_, sig); }

  // The exit code, or nullopt when the process did not exit normally in 30 s.
  std::optional<int> AwaitExit() {
    int status = exit_status_;
    if (pid_ > 0) {
      for (int i = 0; i < 3000; ++i) {
        if (::waitpid(pid_, &status, WNOHANG) == pid_) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (i == 2999) return std::nullopt;
      }
      pid_ = -1;
    }
    if (!WIFEXITED(status)) return std::nullopt;
    return WEXITSTATUS(status);
  }

  std::string Stderr() const { return ReadFile(dir_ / "stderr.txt"); }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int exit_status_ = 0;
};

class RtbBidderProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("rtb-bidder-process-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path WriteConfig(const std::string& server_extra = "") {
    const std::filesystem::path path = dir_ / "bidder.json";
    std::ofstream out(path);
    out << "{\n"
        << "  \"server\": {\"listen_address\": \"127.0.0.1\", \"port\": 0, \"io_threads\": 2,\n"
        << "             \"graceful_shutdown_timeout_ms\": 2000" << server_extra << "},\n"
        << "  \"storage\": {\"backend\": \"embedded\",\n"
        << "              \"embedded\": {\"path\": \"" << (dir_ / "data").string()
        << "\", \"block_cache_mib\": 8, \"write_buffer_mib\": 4}},\n"
        << "  \"bid\": {\"device_key_secret_env\": \"RTB_DEVICE_KEY_SECRET\",\n"
        << "          \"beacon_secret_env\": \"RTB_BEACON_SECRET\"}\n"
        << "}\n";
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(RtbBidderProcessTest, ServesProbesAndExitsZeroOnSigterm) {
  BidderProcess bidder(dir_);
  const auto port_file = dir_ / "port";
  ASSERT_TRUE(
      bidder.Spawn({"--config", WriteConfig().string(), "--port-file", port_file.string()}));
  const uint16_t port = bidder.AwaitPort(port_file);
  ASSERT_NE(port, 0) << bidder.Stderr();

  TestConnection conn(port);
  auto health = conn.RoundTrip(GetRequest("/healthz"));
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200u);
  EXPECT_EQ(health->body, "ok");
  auto ready = conn.RoundTrip(GetRequest("/readyz"));
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200u);
  auto metrics = conn.RoundTrip(GetRequest("/metrics"));
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200u);
  EXPECT_NE(metrics->body.find("bidder_http_requests_total{code=\"200\",path=\"/healthz\"} 1"),
            std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find("bidder_http_open_connections 1"), std::string::npos);

  bidder.Signal(SIGTERM);
  // The open keep-alive connection is closed by the drain.
  EXPECT_TRUE(conn.WaitForClose());
  EXPECT_EQ(bidder.AwaitExit(), std::optional<int>(0)) << bidder.Stderr();
  const std::string log = bidder.Stderr();
  EXPECT_NE(log.find("listening on 127.0.0.1:" + std::to_string(port)), std::string::npos) << log;
  EXPECT_NE(log.find("received SIGTERM"), std::string::npos) << log;
  EXPECT_NE(log.find("stopped"), std::string::npos) << log;
  EXPECT_EQ(log.find(kDeviceSecret), std::string::npos);
  EXPECT_EQ(log.find(kBeaconSecret), std::string::npos);
}

TEST_F(RtbBidderProcessTest, SigintAlsoExitsZeroAndTheStoreReopens) {
  const auto config = WriteConfig();
  for (int run = 0; run < 2; ++run) {
    BidderProcess bidder(dir_);
    const auto port_file = dir_ / ("port" + std::to_string(run));
    ASSERT_TRUE(bidder.Spawn({"--config=" + config.string(), "--port-file=" + port_file.string()}));
    const uint16_t port = bidder.AwaitPort(port_file);
    ASSERT_NE(port, 0) << bidder.Stderr();
    TestConnection conn(port);
    auto ready = conn.RoundTrip(GetRequest("/readyz"));
    ASSERT_TRUE(ready);
    EXPECT_EQ(ready->status, 200u);
    bidder.Signal(SIGINT);
    EXPECT_EQ(bidder.AwaitExit(), std::optional<int>(0)) << bidder.Stderr();
  }
}

TEST_F(RtbBidderProcessTest, InvalidConfigExitsOneNamingTheFieldButNotTheSecret) {
  BidderProcess bidder(dir_);
  ASSERT_TRUE(bidder.Spawn({"--config", WriteConfig(", \"max_conections\": 5").string()}));
  EXPECT_EQ(bidder.AwaitExit(), std::optional<int>(1));
  const std::string log = bidder.Stderr();
  EXPECT_NE(log.find("max_conections"), std::string::npos) << log;
  EXPECT_EQ(log.find(kDeviceSecret), std::string::npos) << log;
}

TEST_F(RtbBidderProcessTest, MissingConfigAndBadFlagsExitOne) {
  {
    BidderProcess bidder(dir_);
    ASSERT_TRUE(bidder.Spawn({"--config", (dir_ / "absent.json").string()}));
    EXPECT_EQ(bidder.AwaitExit(), std::optional<int>(1));
    EXPECT_NE(bidder.Stderr().find("absent.json"), std::string::npos) << bidder.Stderr();
  }
  {
    BidderProcess bidder(dir_);
    ASSERT_TRUE(bidder.Spawn({}));
    EXPECT_EQ(bidder.AwaitExit(), std::optional<int>(1));
    EXPECT_NE(bidder.Stderr().find("--config is required"), std::string::npos);
  }
  {
    BidderProcess bidder(dir_);
    ASSERT_TRUE(bidder.Spawn({"--config", "x.json", "--verbose"}));
    EXPECT_EQ(bidder.AwaitExit(), std::optional<int>(1));
    EXPECT_NE(bidder.Stderr().find("unknown argument \"--verbose\""), std::string::npos);
  }
}

TEST_F(RtbBidderProcessTest, PortInUseExitsOneNamingTheAddress) {
  BidderProcess first(dir_);
  const auto port_file = dir_ / "port";
  ASSERT_TRUE(first.Spawn({"--config", WriteConfig().string(), "--port-file", port_file.string()}));
  const uint16_t port = first.AwaitPort(port_file);
  ASSERT_NE(port, 0) << first.Stderr();

  // A second bidder on the same port (and its own store directory).
  const auto second_dir = dir_ / "second";
  std::filesystem::create_directories(second_dir);
  {
    std::ofstream out(second_dir / "bidder.json");
    out << "{\"server\": {\"port\": " << port << "},"
        << " \"storage\": {\"embedded\": {\"path\": \"" << (second_dir / "data").string()
        << "\", \"block_cache_mib\": 8}},"
        << " \"bid\": {\"device_key_secret_env\": \"RTB_DEVICE_KEY_SECRET\","
        << " \"beacon_secret_env\": \"RTB_BEACON_SECRET\"}}";
  }
  BidderProcess second(second_dir);
  ASSERT_TRUE(second.Spawn({"--config", (second_dir / "bidder.json").string()}));
  EXPECT_EQ(second.AwaitExit(), std::optional<int>(1));
  EXPECT_NE(second.Stderr().find("cannot listen on 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << second.Stderr();

  first.Signal(SIGTERM);
  EXPECT_EQ(first.AwaitExit(), std::optional<int>(0));
}

TEST_F(RtbBidderProcessTest, SameStoreDirectoryTwiceExitsOne) {
  const auto config = WriteConfig();
  BidderProcess first(dir_);
  const auto port_file = dir_ / "port";
  ASSERT_TRUE(first.Spawn({"--config", config.string(), "--port-file", port_file.string()}));
  ASSERT_NE(first.AwaitPort(port_file), 0) << first.Stderr();

  const auto second_dir = dir_ / "second";
  std::filesystem::create_directories(second_dir);
  BidderProcess second(second_dir);
  ASSERT_TRUE(second.Spawn({"--config", config.string()}));
  EXPECT_EQ(second.AwaitExit(), std::optional<int>(1));
  EXPECT_NE(second.Stderr().find("cannot open embedded store at"), std::string::npos)
      << second.Stderr();
  first.Signal(SIGTERM);
  EXPECT_EQ(first.AwaitExit(), std::optional<int>(0));
}

}  // namespace
}  // namespace rtb::bidder

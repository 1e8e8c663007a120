// The bare responder, as load tests use it: a real process on an ephemeral
// loopback port, keep-alive POSTs answered 204, SIGTERM exits 0.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/bidder/http_test_client.h"

extern char** environ;

namespace rtb::loadtest {
namespace {

using bidder::testing::GetRequest;
using bidder::testing::PostRequest;
using bidder::testing::TestConnection;

// Exit status of `pid`, waiting at most 10 s; -1 when it does not exit.
int AwaitExit(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return -1;
}

TEST(BareResponderTest, AnswersEveryPostWith204OnKeepAliveAndExitsZeroOnSigterm) {
  const auto port_file = std::filesystem::temp_directory_path() /
                         ("rtb-bare-responder-" + std::to_string(::getpid()) + ".port");
  std::filesystem::remove(port_file);
  std::vector<std::string> args = {RTB_BARE_RESPONDER, "--port",          "0", "--threads", "2",
                                   "--port-file",      port_file.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  uint16_t port = 0;
  for (int i = 0; i < 200 && port == 0; ++i) {
    std::ifstream in(port_file);
    int value = 0;
    if (in >> value)
      port = static_cast<uint16_t>(value);
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_NE(port, 0);

  TestConnection conn(port);
  for (int i = 0; i < 3; ++i) {
    auto r = conn.RoundTrip(PostRequest("/openrtb2/bid", "{\"id\":\"" + std::to_string(i) + "\"}"));
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->status, 204u);
    EXPECT_TRUE(r->body.empty());
  }
  auto get = conn.RoundTrip(GetRequest("/healthz"));
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 404u);

  ::kill(pid, SIGTERM);
  EXPECT_EQ(AwaitExit(pid), 0);
  std::filesystem::remove(port_file);
}

}  // namespace
}  // namespace rtb::loadtest

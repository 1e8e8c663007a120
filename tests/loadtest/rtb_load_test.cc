// rtb-load against a server that closes every connection left idle for
// 30 ms, as the bidder closes pooled connections at its first-byte timeout,
// and every connection after its tenth answer: the generator reconnects
// them without losing or failing a request.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "boost/asio/ip/tcp.hpp"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace rtb::loadtest {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// Answers each request 204, closes a connection that sends nothing for
// `idle_ms`, and one that has had kAnswersPerConnection answers (the last
// says Connection: close). One thread per connection: a test's few hundred,
// each gone once its connection is.
class ClosingServer {
 public:
  static constexpr int kAnswersPerConnection = 10;

  // With `with_bids`, a bid request is answered 200 with one bid whose win
  // and billing notices come back here (answered 204).
  ClosingServer(int idle_ms, bool with_bids)
      : idle_ms_(idle_ms), with_bids_(with_bids), acceptor_(io_) {
    acceptor_.open(tcp::v4());
    acceptor_.bind(tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    acceptor_.listen();
    const std::string here = absl::StrCat("http://127.0.0.1:", port());
    bid_ = absl::StrCat(R"({"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1.5,)",
                        R"("nurl":")", here, R"(/win?price=${AUCTION_PRICE}",)", R"("burl":")",
                        here, R"(/bill?price=${AUCTION_PRICE}"}]}]})");
    accepting_ = std::thread([this] { Accept(); });
  }
  ~ClosingServer() {
    stopping_ = true;
    accepting_.join();
    for (std::thread& t : connections_) t.join();
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }
  int idle_closes() const { return idle_closes_.load(); }
  int connections() const { return connections_accepted_.load(); }
  int notices() const { return notices_.load(); }

 private:
  void Accept() {
    while (!stopping_) {
      // Polled: closing a listening socket does not wake a blocked accept.
      pollfd p{acceptor_.native_handle(), POLLIN, 0};
      if (::poll(&p, 1, /*timeout_ms=*/20) <= 0) continue;
      boost::system::error_code ec;
      tcp::socket socket = acceptor_.accept(ec);
      if (ec || stopping_) return;
      ++connections_accepted_;
      connections_.emplace_back([this, fd = socket.release()] { Serve(fd); });
    }
  }

  std::string AnswerTo(bool notice, bool last) const {
    const char* close = last ? "Connection: close\r\n" : "";
    if (notice || !with_bids_) return absl::StrCat("HTTP/1.1 204 No Content\r\n", close, "\r\n");
    return absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n", close,
                        "Content-Length: ", bid_.size(), "\r\n\r\n", bid_);
  }

  void Serve(int fd) {
    std::string buffer;
    char chunk[4096];
    int answers = 0;
    while (!stopping_ && answers < kAnswersPerConnection) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, idle_ms_) == 0) {
        if (buffer.empty()) ++idle_closes_;
        break;
      }
      const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) break;
      buffer.append(chunk, static_cast<size_t>(n));
      // Whole requests: head, then Content-Length bytes of body.
      for (;;) {
        const size_t head_end = buffer.find("\r\n\r\n");
        if (head_end == std::string::npos) break;
        size_t body = 0;
        const size_t length_at = buffer.find("Content-Length: ");
        if (length_at != std::string::npos && length_at < head_end) {
          body = std::strtoul(buffer.c_str() + length_at + 16, nullptr, 10);
        }
        if (buffer.size() < head_end + 4 + body) break;
        const bool notice = buffer.starts_with("GET ");
        buffer.erase(0, head_end + 4 + body);
        if (notice) ++notices_;
        const bool last = ++answers == kAnswersPerConnection;
        const std::string answer = AnswerTo(notice, last);
        if (::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL) < 0) break;
        if (last) break;
      }
    }
    ::close(fd);
  }

  const int idle_ms_;
  const bool with_bids_;
  std::string bid_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> idle_closes_{0};
  std::atomic<int> connections_accepted_{0};
  std::atomic<int> notices_{0};
  std::thread accepting_;
  std::vector<std::thread> connections_;  // only the accepting thread adds
};

// rtb-load's report, or a null json when it did not exit 0 in time.
nlohmann::json RunLoad(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {RTB_LOAD};
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (::pipe(out) != 0) return nullptr;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (spawned != 0) {
    ::close(out[0]);
    return nullptr;
  }
  std::string report;
  char chunk[4096];
  for (ssize_t n; (n = ::read(out[0], chunk, sizeof(chunk))) > 0;) report.append(chunk, n);
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return nullptr;
  return nlohmann::json::parse(report, nullptr, /*allow_exceptions=*/false);
}

TEST(RtbLoadTest, ConnectionsTheServerClosesAreReconnectedWithoutLosingARequest) {
  ClosingServer server(/*idle_ms=*/30, /*with_bids=*/false);
  // 16 connections for 300 requests a second: most sit idle past 30 ms.
  const nlohmann::json report =
      RunLoad({"--port", std::to_string(server.port()), "--rate", "300", "--duration", "3",
               "--warmup", "1", "--connections", "16", "--requests",
               RTB_OPENRTB_FIXTURES_DIR "/site-banner-mrec.json", "--devices", "100"});
  ASSERT_TRUE(report.is_object()) << "rtb-load failed";
  EXPECT_GT(report["closed_while_idle"].get<int64_t>(), 10) << report;
  EXPECT_GT(server.idle_closes(), 10);
  // 900 requests at 10 a connection.
  EXPECT_GE(server.connections(), 90);
  EXPECT_EQ(report["errors"], 0) << report;
  EXPECT_EQ(report["unanswered"], 0) << report;
  // Every request due in the measured 2 s was answered.
  EXPECT_GE(report["completed"].get<int64_t>(), 590) << report;
}

// Win and billing notices go on their own connections, which the server
// closes too; each is connected again for the next notice.
TEST(RtbLoadTest, NoticesAreSentOverConnectionsTheServerCloses) {
  ClosingServer server(/*idle_ms=*/30, /*with_bids=*/true);
  const nlohmann::json report = RunLoad(
      {"--port", std::to_string(server.port()), "--rate", "200", "--duration", "3", "--warmup", "1",
       "--connections", "16", "--requests", RTB_OPENRTB_FIXTURES_DIR "/site-banner-mrec.json",
       "--devices", "100", "--win-rate", "1"});
  ASSERT_TRUE(report.is_object()) << "rtb-load failed";
  EXPECT_EQ(report["errors"], 0) << report;
  EXPECT_EQ(report["unanswered"], 0) << report;
  const nlohmann::json& notices = report["notices"];
  // Two a bid, every bid answered.
  EXPECT_GE(notices["sent"].get<int64_t>(), 2 * 550) << report;
  EXPECT_EQ(notices["errors"], 0) << report;
  EXPECT_EQ(notices["refused"], 0) << report;
  EXPECT_GE(server.notices(), notices["sent"].get<int>());
}

}  // namespace
}  // namespace rtb::loadtest

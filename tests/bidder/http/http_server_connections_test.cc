// Tests of bidder/http_server over real sockets on 127.0.0.1: the timeouts,
// the connection limits and evictions, and the intake that holds new
// connections (http_server_test.cc has the rest).
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bidder/http/http_server.h"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/thread_pool.hpp"
#include "boost/beast/http/field.hpp"
#include "gtest/gtest.h"
#include "metrics/sharded.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "tests/bidder/http/http_server_fixture.h"
#include "tests/bidder/http_test_client.h"

namespace rtb::bidder {
namespace {

namespace http = boost::beast::http;
using testing::Compress;
using testing::GetRequest;
using testing::HttpServerTest;
using testing::PostRequest;
using testing::SmallConfig;
using testing::TestConnection;
using testing::TestResponse;
using testing::Text;

TEST_P(HttpServerTest, ReadTimeoutClosesHalfSentRequest) {
  config_.read_timeout_ms = 150;
  SetUpServer();
  TestConnection conn(server_->port());
  ASSERT_TRUE(conn.Send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc"));
  // Reset: a timed-out connection leaves no TIME_WAIT socket behind.
  EXPECT_EQ(conn.WaitForEnding(), TestConnection::Ending::kReset);
  EXPECT_EQ(handled_.load(), 0);
  EXPECT_TRUE(EventuallyExposes("bidder_http_request_errors_total{reason=\"read_timeout\"} 1"));
  EXPECT_TRUE(EventuallyExposes("bidder_http_closed_connections_total{reason=\"read_timeout\"} 1"));
}

TEST_P(HttpServerTest, TricklingRequestIsClosedAtTheReadTimeoutCountedFromItsFirstByte) {
  config_.read_timeout_ms = 300;
  SetUpServer();
  TestConnection conn(server_->port());
  const std::string request = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n";
  const auto start = std::chrono::steady_clock::now();
  // A byte every 20 ms keeps the socket busy; it must not extend the
  // request's time. Bounded: the request is 60-odd bytes.
  bool closed_while_sending = false;
  for (char c : request) {
    if (!conn.Send(std::string_view(&c, 1))) {
      closed_while_sending = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(600)) break;
  }
  if (!closed_while_sending) {
    EXPECT_TRUE(conn.WaitForClose());
  }
  const auto lasted = std::chrono::steady_clock::now() - start;
  EXPECT_GE(lasted, std::chrono::milliseconds(250));
  EXPECT_LT(lasted, std::chrono::milliseconds(1500));
  EXPECT_EQ(handled_.load(), 0);
  EXPECT_TRUE(EventuallyExposes("bidder_http_closed_connections_total{reason=\"read_timeout\"} 1"));
}

TEST_P(HttpServerTest, ClientThatDoesNotTakeItsResponseIsClosedAfterTheIdleTimeout) {
  config_.idle_timeout_ms = 200;
  CreateServer();
  // More than loopback's socket buffers hold, so the write waits on a client
  // that never reads.
  server_->Route(http::verb::get, "/big", [](const HttpRequest&, Responder respond) {
    respond(Text(200, std::string(size_t{15} << 20, 'x')));
  });
  StartServer();
  TestConnection conn(server_->port());
  ASSERT_TRUE(conn.Send(GetRequest("/big")));
  EXPECT_TRUE(EventuallyExposes("bidder_http_closed_connections_total{reason=\"io_error\"} 1"));
  EXPECT_TRUE(EventuallyExposes("bidder_http_open_connections 0"));
}

TEST_P(HttpServerTest, IdleTimeoutClosesIdleKeepAliveConnection) {
  config_.idle_timeout_ms = 150;
  SetUpServer();
  TestConnection conn(server_->port());
  auto r = conn.RoundTrip(GetRequest("/hello"));
  ASSERT_TRUE(r);
  // A client that has been served gets an orderly close.
  EXPECT_EQ(conn.WaitForEnding(), TestConnection::Ending::kOrderly);
  EXPECT_TRUE(EventuallyExposes("bidder_http_closed_connections_total{reason=\"idle_timeout\"} 1"));
}

TEST_P(HttpServerTest, SilentNewConnectionIsClosedAfterTheFirstByteTimeout) {
  config_.first_byte_timeout_ms = 100;
  SetUpServer();
  TestConnection silent(server_->port());
  ASSERT_TRUE(silent.connected());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(silent.WaitForEnding(), TestConnection::Ending::kReset);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(80));
  EXPECT_LT(waited, std::chrono::milliseconds(2000));
  EXPECT_TRUE(
      EventuallyExposes("bidder_http_closed_connections_total{reason=\"first_byte_timeout\"} 1"));

  // A connection whose first request came in time is then kept for
  // idle_timeout_ms between requests, not for the first-byte timeout.
  TestConnection used(server_->port());
  ASSERT_TRUE(used.RoundTrip(GetRequest("/hello")).has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto again = used.RoundTrip(GetRequest("/hello"));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, 200u);
  EXPECT_EQ(handled_.load(), 0);
}

TEST_P(HttpServerTest, ConnectionsOverTheLimitAreRefusedAtOnceWithoutHurtingAcceptedOnes) {
  config_.max_connections = 2;
  std::mutex mu;
  std::vector<Responder> held;
  CreateServer();
  server_->Route(http::verb::get, "/hold", [&](const HttpRequest&, Responder respond) {
    std::lock_guard<std::mutex> lock(mu);
    held.push_back(std::move(respond));
  });
  StartServer();
  const auto wait_for_held = [&](size_t n) {
    for (int i = 0; i < 400; ++i) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (held.size() == n) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  };
  // Two connections with a request in a handler: busy, so neither can be
  // evicted. (The second is opened once the first is busy: a connection
  // still waiting for its first byte would give way to it.)
  TestConnection a(server_->port());
  ASSERT_TRUE(a.Send(GetRequest("/hold")));
  ASSERT_TRUE(wait_for_held(1));
  TestConnection b(server_->port());
  ASSERT_TRUE(b.Send(GetRequest("/hold")));
  ASSERT_TRUE(wait_for_held(2));

  const auto start = std::chrono::steady_clock::now();
  TestConnection c(server_->port());
  ASSERT_TRUE(c.connected());
  c.Send(GetRequest("/hello"));
  EXPECT_FALSE(c.Read().has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  EXPECT_TRUE(
      EventuallyExposes("bidder_http_rejected_connections_total{reason=\"max_connections\"} 1"));

  // The accepted connections are answered as if nothing happened.
  {
    std::lock_guard<std::mutex> lock(mu);
    for (Responder& respond : held) respond(Text(200, "held"));
    held.clear();
  }
  for (TestConnection* conn : {&a, &b}) {
    auto r = conn->Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->body, "held");
  }
  // A freed slot is usable again.
  a.Send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(a.Read().has_value());
  EXPECT_TRUE(a.WaitForClose());
  std::optional<TestResponse> d;
  for (int attempt = 0; attempt < 50 && !d; ++attempt) {
    TestConnection retry(server_->port());
    d = retry.RoundTrip(GetRequest("/hello"));
    if (!d) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->status, 200u);
}

TEST_P(HttpServerTest, PerPeerCapRefusesOnlyThatAddress) {
  config_.max_connections_per_peer = 3;
  SetUpServer();
  const uint16_t port = server_->port();
  const auto timeout = std::chrono::seconds(5);
  std::vector<std::unique_ptr<TestConnection>> peer;
  for (int i = 0; i < 3; ++i) {
    peer.push_back(std::make_unique<TestConnection>(port, timeout, "127.0.0.2"));
    ASSERT_TRUE(peer.back()->RoundTrip(GetRequest("/hello")).has_value()) << i;
  }
  TestConnection fourth(port, timeout, "127.0.0.2");
  ASSERT_TRUE(fourth.connected());
  fourth.Send(GetRequest("/hello"));
  EXPECT_FALSE(fourth.Read().has_value());
  EXPECT_TRUE(EventuallyExposes("bidder_http_rejected_connections_total{reason=\"peer_limit\"} 1"));

  // Other addresses are not affected.
  for (const char* other : {"127.0.0.1", "127.0.0.3"}) {
    TestConnection conn(port, timeout, other);
    auto r = conn.RoundTrip(GetRequest("/hello"));
    ASSERT_TRUE(r.has_value()) << other;
    EXPECT_EQ(r->status, 200u);
  }

  // When one of its connections ends, the address may open another.
  peer[0]->Send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(peer[0]->Read().has_value());
  EXPECT_TRUE(peer[0]->WaitForClose());
  std::optional<TestResponse> again;
  for (int attempt = 0; attempt < 50 && !again; ++attempt) {
    TestConnection retry(port, timeout, "127.0.0.2");
    again = retry.RoundTrip(GetRequest("/hello"));
    if (!again) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, 200u);
}

TEST_P(HttpServerTest, NearTheCapANeverUsedConnectionIsEvictedBeforeKeepAliveOnes) {
  // One I/O thread, so that all connections share its idle lists. With a
  // cap of 16, the 15th open connection starts the evictions.
  config_.io_threads = 1;
  config_.max_connections = 16;
  config_.first_byte_timeout_ms = 5000;
  SetUpServer();
  const uint16_t port = server_->port();
  std::vector<std::unique_ptr<TestConnection>> used;
  for (int i = 0; i < 13; ++i) {
    used.push_back(std::make_unique<TestConnection>(port));
    ASSERT_TRUE(used.back()->RoundTrip(GetRequest("/hello")).has_value()) << i;
  }
  TestConnection silent(port);
  ASSERT_TRUE(silent.connected());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));

  TestConnection fifteenth(port);
  auto r = fifteenth.RoundTrip(GetRequest("/hello"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200u);
  EXPECT_TRUE(silent.WaitForClose());
  EXPECT_TRUE(EventuallyExposes("bidder_http_closed_connections_total{reason=\"evicted\"} 1"));
  for (size_t i = 0; i < used.size(); ++i) {
    auto answer = used[i]->RoundTrip(GetRequest("/hello"));
    ASSERT_TRUE(answer.has_value()) << i;
    EXPECT_EQ(answer->status, 200u);
  }
}

TEST_P(HttpServerTest, NearTheCapTheKeepAliveConnectionIdleLongestIsEvicted) {
  config_.io_threads = 1;
  config_.max_connections = 16;
  config_.first_byte_timeout_ms = 200;
  SetUpServer();
  const uint16_t port = server_->port();
  std::vector<std::unique_ptr<TestConnection>> conns;
  for (int i = 0; i < 14; ++i) {
    conns.push_back(std::make_unique<TestConnection>(port));
    ASSERT_TRUE(conns.back()->RoundTrip(GetRequest("/hello")).has_value()) << i;
  }
  // At 15 of 16 every connection was used within the first-byte timeout:
  // none is evicted (the eviction would run before the new connection is
  // served).
  TestConnection fifteenth(port);
  ASSERT_TRUE(fifteenth.RoundTrip(GetRequest("/hello")).has_value());
  EXPECT_NE(Exposition().find("bidder_http_closed_connections_total{reason=\"evicted\"} 0"),
            std::string::npos);

  // Once they have been idle that long, the one idle longest goes first.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(conns[0]->RoundTrip(GetRequest("/hello")).has_value());
  TestConnection sixteenth(port);
  auto r = sixteenth.RoundTrip(GetRequest("/hello"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200u);
  EXPECT_TRUE(conns[1]->WaitForClose());
  EXPECT_TRUE(EventuallyExposes("bidder_http_closed_connections_total{reason=\"evicted\"} 1"));
  for (size_t i = 0; i < conns.size(); ++i) {
    if (i == 1) continue;
    auto answer = conns[i]->RoundTrip(GetRequest("/hello"));
    ASSERT_TRUE(answer.has_value()) << i;
    EXPECT_EQ(answer->status, 200u);
  }
}

// The name of the calling thread, as the server set it.
std::string ThreadName() {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

TEST_P(HttpServerTest, HandlersRunOnIoThreadsEvenForAConnectionsFirstRequest) {
  CreateServer();
  server_->Route(http::verb::get, "/thread",
                 [](const HttpRequest&, Responder respond) { respond(Text(200, ThreadName())); });
  StartServer();
  for (int c = 0; c < 4; ++c) {
    TestConnection conn(server_->port());
    // The first request trickled in (read on the intake, where there is
    // one), the next two pipelined behind it.
    const std::string first = GetRequest("/thread");
    for (size_t i = 0; i < first.size(); i += 7) ASSERT_TRUE(conn.Send(first.substr(i, 7)));
    ASSERT_TRUE(conn.Send(GetRequest("/thread") + GetRequest("/thread")));
    for (int i = 0; i < 3; ++i) {
      std::optional<TestResponse> r = conn.Read();
      ASSERT_TRUE(r.has_value()) << c << "/" << i;
      EXPECT_TRUE(r->body.starts_with("rtb-io-")) << r->body;
    }
  }
}

// With its one I/O thread held up for 2 s by a handler's follow-up work, how
// long the server keeps a new connection that sends half a request header
// (read_timeout_ms 200), and whether the held-up connection got its answer.
std::chrono::milliseconds HalfRequestLifeWhileTheIoThreadStalls(HttpServer& server) {
  TestConnection staller(server.port());
  EXPECT_TRUE(staller.Send(GetRequest("/stall")));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TestConnection half(server.port());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(half.Send("GET /hello HTTP/1.1\r\nHo"));
  EXPECT_TRUE(half.WaitForClose());
  const auto lasted = std::chrono::steady_clock::now() - start;
  std::optional<TestResponse> stalled = staller.Read();
  EXPECT_TRUE(stalled.has_value() && stalled->body == "stalling");
  return std::chrono::duration_cast<std::chrono::milliseconds>(lasted);
}

void RouteStall(HttpServer& server) {
  server.Route(http::verb::get, "/stall", [](const HttpRequest& req, Responder respond) {
    respond(Text(200, "stalling"));
    boost::asio::post(req.executor,
                      [] { std::this_thread::sleep_for(std::chrono::milliseconds(2000)); });
  });
}

// The intake closes the half request at its read timeout while the I/O
// thread is held up; in SO_REUSEPORT mode there is no intake, and the I/O
// thread closes it once it is free again.
TEST_P(HttpServerTest, TheIntakeEnforcesTimeoutsWhileTheIoThreadIsBusy) {
  config_.io_threads = 1;
  config_.read_timeout_ms = 200;
  CreateServer();
  RouteStall(*server_);
  StartServer();
  const std::chrono::milliseconds lasted = HalfRequestLifeWhileTheIoThreadStalls(*server_);
  if (GetParam() == AcceptMode::kRoundRobin) {
    EXPECT_LT(lasted, std::chrono::milliseconds(1200));
  } else {
    EXPECT_GE(lasted, std::chrono::milliseconds(1500));
  }
}

TEST_P(HttpServerTest, WithoutAnIntakeTheIoThreadsServeNewConnections) {
  config_.intake_thread = false;
  config_.io_threads = 1;
  config_.read_timeout_ms = 200;
  CreateServer();
  RouteStall(*server_);
  StartServer();
  EXPECT_GE(HalfRequestLifeWhileTheIoThreadStalls(*server_), std::chrono::milliseconds(1500));
  TestConnection after(server_->port());
  auto r = after.RoundTrip(GetRequest("/hello"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200u);
}

}  // namespace
}  // namespace rtb::bidder

// Tests of bidder/http_server over real sockets on 127.0.0.1.
#include "bidder/http/http_server.h"

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

TEST_P(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  SetUpServer();
  TestConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  for (int i = 0; i < 5; ++i) {
    const std::string body = "{\"n\":" + std::to_string(i) + "}";
    std::optional<TestResponse> r = conn.RoundTrip(PostRequest("/echo?x=1", body));
    ASSERT_TRUE(r.has_value()) << "request " << i;
    EXPECT_EQ(r->status, 200u);
    EXPECT_EQ(r->body, body);
    EXPECT_EQ(r->Header("content-length"), std::to_string(body.size()));
    EXPECT_EQ(r->Header("connection"), "");
    EXPECT_FALSE(r->Header("date").empty());
    EXPECT_EQ(r->Header("x-target"), "/echo?x=1");
    EXPECT_EQ(r->Header("x-path"), "/echo");
    EXPECT_EQ(r->Header("x-remote"), "127.0.0.1");
  }
  EXPECT_EQ(handled_.load(), 5);
}

// The room of the body written last on an I/O thread goes to the next
// handler there that asks for it, unless it is over 64 KiB.
TEST_P(HttpServerTest, AResponseBodysRoomIsHandedToTheNextHandlerThatAsks) {
  CreateServer();
  server_->Route(http::verb::get, "/recycled", [](const HttpRequest& req, Responder respond) {
    std::string body = RecycledResponseBody();
    HttpResponse response = Text(200, "");
    response.headers.emplace_back("x-size", std::to_string(body.size()));
    response.headers.emplace_back("x-capacity", std::to_string(body.capacity()));
    const std::string_view query = req.target.substr(req.target.find('?') + 1);
    body.append(std::stoul(std::string(query)), 'x');
    response.body = std::move(body);
    respond(std::move(response));
  });
  StartServer();
  TestConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  const auto fetch = [&](size_t size) {
    std::optional<TestResponse> r = conn.RoundTrip(GetRequest("/recycled?" + std::to_string(size)));
    EXPECT_TRUE(r.has_value());
    EXPECT_EQ(r->body.size(), size);
    return std::pair{std::stoul(r->Header("x-size")), std::stoul(r->Header("x-capacity"))};
  };
  fetch(5000);
  auto [size, capacity] = fetch(3000);
  EXPECT_EQ(size, 0u);
  EXPECT_GE(capacity, 5000u) << "the first body's room";
  fetch(100 << 10);  // takes that room, grows past the limit: not kept
  std::tie(size, capacity) = fetch(10);
  EXPECT_EQ(size, 0u);
  EXPECT_LT(capacity, 3000u) << "a body over 64 KiB is not kept";
}

TEST_P(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  SetUpServer();
  TestConnection conn(server_->port());
  ASSERT_TRUE(conn.Send(PostRequest("/echo", "one") + GetRequest("/hello") +
                        PostRequest("/echo", "three")));
  std::optional<TestResponse> a = conn.Read();
  std::optional<TestResponse> b = conn.Read();
  std::optional<TestResponse> c = conn.Read();
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->body, "one");
  EXPECT_EQ(b->body, "hello");
  EXPECT_EQ(c->body, "three");
}

// A response larger than the socket takes at once is written in part at
// once and the rest as the client reads: every byte arrives, in order, and
// the connection serves the next request.
TEST_P(HttpServerTest, ResponseLargerThanTheSocketBufferArrivesWhole) {
  std::string big(size_t{8} << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  CreateServer();
  server_->Route(http::verb::get, "/big",
                 [&big](const HttpRequest&, Responder respond) { respond(Text(200, big)); });
  StartServer();
  TestConnection conn(server_->port());
  for (int round = 0; round < 2; ++round) {
    std::optional<TestResponse> r = conn.RoundTrip(GetRequest("/big"));
    ASSERT_TRUE(r.has_value()) << "round " << round;
    EXPECT_EQ(r->status, 200u);
    ASSERT_EQ(r->body.size(), big.size());
    EXPECT_TRUE(r->body == big) << "round " << round;
    std::optional<TestResponse> after = conn.RoundTrip(GetRequest("/hello"));
    ASSERT_TRUE(after.has_value());
    EXPECT_EQ(after->body, "hello");
  }
}

// A handler that answers before it returns (most do) may still read its
// request afterwards: the session finishes the response once it returns.
TEST_P(HttpServerTest, HandlerMayReadItsRequestAfterAnswering) {
  CreateServer();
  std::mutex mutex;
  std::vector<std::string> seen;
  server_->Route(http::verb::post, "/answer-first", [&](const HttpRequest& req, Responder respond) {
    respond(Text(200, "answered"));
    std::lock_guard lock(mutex);
    seen.push_back(std::string(req.target) + " " + std::string(req.body));
  });
  StartServer();
  TestConnection conn(server_->port());
  // One after another, then pipelined.
  for (int i = 0; i < 3; ++i) {
    std::optional<TestResponse> r = conn.RoundTrip(
        PostRequest("/answer-first?n=" + std::to_string(i), "body" + std::to_string(i)));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->body, "answered");
  }
  ASSERT_TRUE(conn.Send(PostRequest("/answer-first?n=3", "body3") +
                        PostRequest("/answer-first?n=4", "body4")));
  ASSERT_TRUE(conn.Read().has_value());
  ASSERT_TRUE(conn.Read().has_value());
  // The last answer can reach us before its handler has returned.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < give_up) {
    {
      std::lock_guard lock(mutex);
      if (seen.size() >= 5) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::lock_guard lock(mutex);
  EXPECT_EQ(seen, (std::vector<std::string>{"/answer-first?n=0 body0", "/answer-first?n=1 body1",
                                            "/answer-first?n=2 body2", "/answer-first?n=3 body3",
                                            "/answer-first?n=4 body4"}));
}

TEST_P(HttpServerTest, ManyConnectionsAreServedConcurrently) {
  SetUpServer();
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      TestConnection conn(server_->port());
      for (int i = 0; i < 20; ++i) {
        const std::string body = std::to_string(t) + ":" + std::to_string(i);
        auto r = conn.RoundTrip(PostRequest("/echo", body));
        if (r && r->status == 200 && r->body == body) ++ok;
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 160);
}

TEST_P(HttpServerTest, ChunkedBodyIsAssembled) {
  SetUpServer();
  TestConnection conn(server_->port());
  auto r = conn.RoundTrip(
      "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
  EXPECT_EQ(r->body, "hello world");
}

TEST_P(HttpServerTest, GzipBodyIsInflatedBeforeTheHandler) {
  SetUpServer();
  std::string json = "{\"id\":\"req-1\",\"imp\":[";
  for (int i = 0; i < 200; ++i) json += "{\"id\":\"" + std::to_string(i) + "\"},";
  json += "{}]}";
  const std::string gz = Compress(json, true);
  ASSERT_LT(gz.size(), json.size());
  TestConnection conn(server_->port());
  auto r = conn.RoundTrip(PostRequest("/echo", gz, "Content-Encoding: gzip\r\n"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
  EXPECT_EQ(r->body, json);
  EXPECT_EQ(r->Header("x-wire-bytes"), std::to_string(gz.size()));

  // HTTP's "deflate" (zlib format) works the same, on the same connection.
  auto d =
      conn.RoundTrip(PostRequest("/echo", Compress(json, false), "Content-Encoding: deflate\r\n"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, 200u);
  EXPECT_EQ(d->body, json);
}

TEST_P(HttpServerTest, GzipBombIsRefusedWith413) {
  SetUpServer();
  // 8 MiB of zeros compress to a few KiB: well under max_body_bytes, far
  // over max_inflated_body_bytes.
  const std::string bomb = Compress(std::string(8 << 20, '\0'), true);
  ASSERT_LT(bomb.size(), static_cast<size_t>(config_.max_body_bytes));
  TestConnection conn(server_->port());
  auto r = conn.RoundTrip(PostRequest("/echo", bomb, "Content-Encoding: gzip\r\n"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413u);
  EXPECT_EQ(handled_.load(), 0);
  // The whole body was read, so the connection stays usable.
  auto next = conn.RoundTrip(GetRequest("/hello"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200u);
  EXPECT_NE(Exposition().find("bidder_http_request_errors_total{reason=\"inflated_too_large\"} 1"),
            std::string::npos);
}

TEST_P(HttpServerTest, CorruptGzipIs400AndUnknownEncodingIs415) {
  SetUpServer();
  std::string gz = Compress("{\"id\":\"x\"}", true);
  std::string corrupt = gz;
  corrupt[corrupt.size() / 2] ^= 0x5a;
  TestConnection conn(server_->port());
  auto bad = conn.RoundTrip(PostRequest("/echo", corrupt, "Content-Encoding: gzip\r\n"));
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400u);
  auto truncated = conn.RoundTrip(
      PostRequest("/echo", gz.substr(0, gz.size() - 6), "Content-Encoding: gzip\r\n"));
  ASSERT_TRUE(truncated);
  EXPECT_EQ(truncated->status, 400u);
  EXPECT_NE(truncated->body.find("truncated"), std::string::npos) << truncated->body;
  auto br = conn.RoundTrip(PostRequest("/echo", "xyz", "Content-Encoding: br\r\n"));
  ASSERT_TRUE(br);
  EXPECT_EQ(br->status, 415u);
  EXPECT_EQ(handled_.load(), 0);
}

TEST_P(HttpServerTest, OversizedHeaderIs431AndCloses) {
  SetUpServer();
  TestConnection conn(server_->port());
  const std::string big(8000, 'a');
  auto r = conn.RoundTrip(GetRequest("/hello", "X-Big: " + big + "\r\n"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 431u);
  EXPECT_EQ(r->Header("connection"), "close");
  EXPECT_TRUE(conn.WaitForClose());
}

TEST_P(HttpServerTest, OversizedBodyIs413BeforeTheBodyIsRead) {
  SetUpServer();
  TestConnection conn(server_->port());
  const std::string body(static_cast<size_t>(config_.max_body_bytes) + 1, 'x');
  auto r = conn.RoundTrip(PostRequest("/echo", body));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413u);
  EXPECT_EQ(r->Header("connection"), "close");
  EXPECT_TRUE(conn.WaitForClose());
  EXPECT_EQ(handled_.load(), 0);
}

TEST_P(HttpServerTest, OversizedChunkedBodyIs413) {
  SetUpServer();
  TestConnection conn(server_->port());
  std::string request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string chunk(4096, 'y');
  for (int i = 0; i < 5; ++i) request += "1000\r\n" + chunk + "\r\n";
  request += "0\r\n\r\n";
  auto r = conn.RoundTrip(request);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413u);
  EXPECT_EQ(handled_.load(), 0);
}

TEST_P(HttpServerTest, MalformedRequestIs400AndCloses) {
  SetUpServer();
  TestConnection conn(server_->port());
  auto r = conn.RoundTrip("THIS IS NOT HTTP\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400u);
  EXPECT_TRUE(conn.WaitForClose());

  TestConnection conn2(server_->port());
  auto r2 = conn2.RoundTrip("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n");
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->status, 400u);
  EXPECT_NE(Exposition().find("bidder_http_requests_total{code=\"400\",path=\"invalid\"} 2"),
            std::string::npos);
}

TEST_P(HttpServerTest, UnknownPathIs404AndWrongMethodIs405) {
  SetUpServer();
  TestConnection conn(server_->port());
  auto missing = conn.RoundTrip(GetRequest("/nope"));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404u);
  auto wrong = conn.RoundTrip(GetRequest("/echo"));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405u);
  EXPECT_EQ(wrong->Header("allow"), "POST");
  // Both keep the connection.
  auto ok = conn.RoundTrip(GetRequest("/hello"));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200u);
  const std::string text = Exposition();
  EXPECT_NE(text.find("bidder_http_requests_total{code=\"404\",path=\"unmatched\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("bidder_http_requests_total{code=\"405\",path=\"/echo\"} 1"),
            std::string::npos);
}

TEST_P(HttpServerTest, LongestPrefixRouteWins) {
  SetUpServer();
  TestConnection conn(server_->port());
  auto a = conn.RoundTrip(GetRequest("/static/app.js?v=2"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->body, "static:/static/app.js");
  auto b = conn.RoundTrip(GetRequest("/static/deep/x"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->body, "deep");
  auto c = conn.RoundTrip(GetRequest("/static"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, 404u);
  EXPECT_NE(Exposition().find("path=\"/static/*\""), std::string::npos);
}

TEST_P(HttpServerTest, ConnectionCloseAndHttp10AreHonoured) {
  SetUpServer();
  TestConnection conn(server_->port());
  auto r = conn.RoundTrip("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->Header("connection"), "close");
  EXPECT_TRUE(conn.WaitForClose());

  TestConnection old(server_->port());
  auto a = old.RoundTrip("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->Header("connection"), "keep-alive");
  auto b = old.RoundTrip("GET /hello HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->Header("connection"), "close");
  EXPECT_TRUE(old.WaitForClose());
}

TEST_P(HttpServerTest, ExpectContinueGetsAnInterimResponse) {
  SetUpServer();
  TestConnection conn(server_->port());
  ASSERT_TRUE(conn.Send(
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  auto interim = conn.Read();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100u);
  ASSERT_TRUE(conn.Send("hello"));
  auto r = conn.Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
  EXPECT_EQ(r->body, "hello");
}

TEST_P(HttpServerTest, ResponderMayBeCalledFromAnotherThread) {
  boost::asio::thread_pool pool(1);
  CreateServer();
  server_->Route(http::verb::get, "/async", [&pool](const HttpRequest& req, Responder respond) {
    auto executor = req.executor;
    boost::asio::post(pool, [executor, respond = std::move(respond)]() mutable {
      // Mostly posted back to the request's executor by the caller, but a
      // call from elsewhere is re-posted by the server.
      respond(Text(200, "later"));
    });
  });
  StartServer();
  TestConnection conn(server_->port());
  for (int i = 0; i < 3; ++i) {
    auto r = conn.RoundTrip(GetRequest("/async"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "later");
  }
  server_->Shutdown(std::chrono::milliseconds(100));
  pool.join();
}

TEST_P(HttpServerTest, HandlerFaultsAnswer500AndKeepTheConnection) {
  CreateServer();
  server_->Route(http::verb::get, "/dropped", [](const HttpRequest&, Responder) {});
  server_->Route(http::verb::get, "/throws",
                 [](const HttpRequest&, Responder) { throw std::runtime_error("handler bug"); });
  server_->Route(http::verb::get, "/split", [](const HttpRequest&, Responder respond) {
    HttpResponse response = Text(302, "");
    response.headers.emplace_back("Location", "/a\r\nSet-Cookie: evil=1");
    respond(std::move(response));
  });
  server_->Route(http::verb::get, "/twice", [](const HttpRequest&, Responder respond) {
    respond(Text(200, "first"));
    respond(Text(200, "second"));
  });
  StartServer();
  TestConnection conn(server_->port());
  for (const char* path : {"/dropped", "/throws", "/split"}) {
    auto r = conn.RoundTrip(GetRequest(path));
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 500u) << path;
    EXPECT_EQ(r->Header("set-cookie"), "") << path;
  }
  auto twice = conn.RoundTrip(GetRequest("/twice"));
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->body, "first");
  auto next = conn.RoundTrip(GetRequest("/hello"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "hello");
  EXPECT_NE(Exposition().find("bidder_http_request_errors_total{reason=\"handler_fault\"} 3"),
            std::string::npos);
}

TEST_P(HttpServerTest, NoContentResponsesCarryNoBody) {
  CreateServer();
  server_->Route(http::verb::post, "/bid", [](const HttpRequest&, Responder respond) {
    HttpResponse response;
    response.status = 204;
    response.headers.emplace_back("x-openrtb-version", "2.6");
    respond(std::move(response));
  });
  StartServer();
  TestConnection conn(server_->port());
  auto r = conn.RoundTrip(PostRequest("/bid", "{}"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 204u);
  EXPECT_EQ(r->Header("content-length"), "");
  EXPECT_EQ(r->Header("x-openrtb-version"), "2.6");
  auto again = conn.RoundTrip(PostRequest("/bid", "{}"));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 204u);
}

TEST_P(HttpServerTest, ServerMetricsAreExposed) {
  SetUpServer();
  TestConnection conn(server_->port());
  ASSERT_TRUE(conn.RoundTrip(PostRequest("/echo", "abc")).has_value());
  const std::string text = Exposition();
  for (const char* expected : {
           "bidder_http_requests_total{code=\"200\",path=\"/echo\"} 1",
           "bidder_http_open_connections 1",
           "bidder_http_accepted_connections_total 1",
           "bidder_http_rejected_connections_total{reason=\"max_connections\"} 0",
           "bidder_http_rejected_connections_total{reason=\"peer_limit\"} 0",
           "bidder_http_accept_errors_total 0",
           "bidder_http_request_duration_seconds_count{path=\"/echo\"} 1",
           "bidder_http_request_bytes_count 1",
           "bidder_http_response_bytes_count 1",
       }) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
}

TEST_P(HttpServerTest, GracefulShutdownFinishesInFlightSlowHandler) {
  std::promise<void> entered;
  CreateServer();
  server_->Route(http::verb::post, "/slow", [&entered](const HttpRequest& req, Responder respond) {
    auto timer = std::make_shared<boost::asio::steady_timer>(req.executor);
    timer->expires_after(std::chrono::milliseconds(300));
    timer->async_wait([timer, respond = std::move(respond)](boost::system::error_code) {
      respond(Text(200, "finished"));
    });
    entered.set_value();
  });
  StartServer();
  const uint16_t port = server_->port();
  TestConnection slow(port);
  TestConnection idle(port);
  ASSERT_TRUE(idle.RoundTrip(GetRequest("/hello")).has_value());
  ASSERT_TRUE(slow.Send(PostRequest("/slow", "{}")));
  entered.get_future().wait();

  auto shutdown = std::async(std::launch::async,
                             [this] { server_->Shutdown(std::chrono::milliseconds(5000)); });
  auto r = slow.Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200u);
  EXPECT_EQ(r->body, "finished");
  EXPECT_EQ(r->Header("connection"), "close");
  EXPECT_TRUE(slow.WaitForClose());
  // The idle keep-alive connection was closed at once, not kept to the end.
  EXPECT_TRUE(idle.WaitForClose());
  shutdown.get();
  EXPECT_TRUE(server_->draining());
  TestConnection after(port);
  EXPECT_FALSE(after.connected() && after.RoundTrip(GetRequest("/hello")).has_value());
}

TEST_P(HttpServerTest, ShutdownClosesRequestsThatOutlastTheGrace) {
  std::mutex mu;
  std::vector<Responder> held;
  CreateServer();
  server_->Route(http::verb::get, "/never", [&](const HttpRequest&, Responder respond) {
    std::lock_guard<std::mutex> lock(mu);
    held.push_back(std::move(respond));
  });
  StartServer();
  TestConnection conn(server_->port());
  ASSERT_TRUE(conn.Send(GetRequest("/never")));
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!held.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  server_->Shutdown(std::chrono::milliseconds(100));
  EXPECT_TRUE(conn.WaitForClose());
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(held.size(), 1u);
  held.clear();  // before the server goes: a Responder may not outlive it
}

TEST_P(HttpServerTest, StartFailsWhenThePortIsTaken) {
  SetUpServer();
  prometheus::Registry other_registry;
  config::ServerConfig same = config_;
  same.port = server_->port();
  HttpServerTuning tuning;
  // Without SO_REUSEPORT a second listener cannot share the port.
  tuning.accept_mode = AcceptMode::kRoundRobin;
  auto second = HttpServer::Create(same, other_registry, tuning);
  ASSERT_TRUE(second.ok());
  absl::Status s = (*second)->Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("cannot listen on 127.0.0.1:"), std::string::npos) << s;
}

INSTANTIATE_TEST_SUITE_P(AcceptModes, HttpServerTest,
                         ::testing::Values(AcceptMode::kRoundRobin, AcceptMode::kReusePort),
                         [](const ::testing::TestParamInfo<AcceptMode>& info) {
                           return info.param == AcceptMode::kRoundRobin ? "RoundRobin"
                                                                        : "ReusePort";
                         });

TEST(HttpServerCreateTest, RejectsAHostNameAsListenAddress) {
  prometheus::Registry registry;
  config::ServerConfig config = SmallConfig();
  config.listen_address = "localhost";
  auto server = HttpServer::Create(config, registry);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(std::string(server.status().message()).find("server.listen_address"),
            std::string::npos);
}

}  // namespace
}  // namespace rtb::bidder

// Raw client bytes into one HTTP session of bidder/http, with no network:
// the session is the server's own (internal/http_session.h) on a worker of a
// ServerCore built here, and its socket is one end of a Unix socketpair; the
// fuzz target plays the client on the other end, on the same thread.
//
// Input: the first byte picks how the rest is cut into writes (all at once,
// or pieces of 1 to 64 bytes, with the session running between them), the
// rest is what the client sends; then the client shuts down its side. The
// session must end (peer EOF), every byte it wrote must parse as a sequence
// of complete HTTP/1.1 responses with a status the server can give, and
// afterwards no connection slot, peer count or idle-list entry may be left.
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "bidder/http/http_server.h"
#include "bidder/http/internal/http_session.h"
#include "bidder/http/internal/server_core.h"
#include "boost/asio/buffer.hpp"
#include "boost/asio/post.hpp"
#include "boost/beast/http/empty_body.hpp"
#include "boost/beast/http/error.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/string_body.hpp"
#include "prometheus/registry.h"
#include "tests/bidder/http/socket_pair_session.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rtb::fuzz {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using bidder::HttpRequest;
using bidder::HttpResponse;
using bidder::Responder;
using bidder::internal::PeerKeyOf;
using bidder::internal::ServerCore;
using bidder::internal::StartSocketPairSession;
using bidder::internal::Worker;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "http_request fuzz target: %s\n", what);
  std::abort();
}

HttpResponse Text(unsigned status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "text/plain";
  response.body = std::move(body);
  return response;
}

// A ServerCore with one worker, run by the fuzzing thread, and routes that
// answer in each way a handler can: at once, later from the executor, with
// no body, not at all (dropped), by throwing, and with a bad header.
class Harness {
 public:
  Harness() {
    config::ServerConfig config;
    config.port = 0;
    config.io_threads = 1;
    config.max_header_bytes = 4096;
    config.max_body_bytes = 16 << 10;
    config.max_inflated_body_bytes = 64 << 10;
    config.max_connections = 4;
    config.max_connections_per_peer = 4;
    bidder::HttpServerTuning tuning;
    tuning.linger = std::chrono::milliseconds(50);
    core_ = std::make_unique<ServerCore>(config, tuning, asio::ip::make_address("127.0.0.1"),
                                         registry_);
    Route(http::verb::post, "/openrtb2/bid", false, [](const HttpRequest& req, Responder r) {
      if (req.body.empty()) return r(Text(400, "empty\n"));
      HttpResponse response = Text(200, std::string(req.body.substr(0, 64)));
      response.headers.emplace_back("x-openrtb-version", "2.6");
      r(std::move(response));
    });
    Route(http::verb::get, "/healthz", false,
          [](const HttpRequest&, Responder r) { r(Text(200, "ok\n")); });
    Route(http::verb::post, "/async", false, [](const HttpRequest& req, Responder r) {
      asio::post(req.executor, [r = std::move(r), size = req.body.size()]() mutable {
        r(Text(200, std::to_string(size)));
      });
    });
    Route(http::verb::get, "/empty", false, [](const HttpRequest&, Responder r) {
      HttpResponse response;
      response.status = 204;
      r(std::move(response));
    });
    Route(http::verb::get, "/dropped", false, [](const HttpRequest&, Responder) {});
    Route(http::verb::get, "/throws", false,
          [](const HttpRequest&, Responder) { throw std::runtime_error("handler bug"); });
    Route(http::verb::get, "/split", false, [](const HttpRequest&, Responder r) {
      HttpResponse response = Text(302, "");
      response.headers.emplace_back("Location", "/a\r\nSet-Cookie: x=1");
      r(std::move(response));
    });
    Route(http::verb::get, "/static/", true,
          [](const HttpRequest& req, Responder r) { r(Text(200, std::string(req.path))); });
    core_->FreezeRoutes();
    core_->workers.push_back(std::make_unique<Worker>(*core_, 0, /*intake=*/false));
    worker_ = core_->workers.back().get();
  }

  ~Harness() {
    // As HttpServer's destructor: workers before the rest of the core.
    core_->workers.clear();
  }

  void Run(const uint8_t* data, size_t size) {
    const size_t piece = size == 0 ? 0 : PieceSize(data[0]);
    std::string_view input;
    if (size > 0) input = std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1);

    absl::StatusOr<int> started = StartSocketPairSession(*core_, *worker_, peer_);
    if (!started.ok()) Fail(std::string(started.status().message()).c_str());
    const int client = *started;

    std::string output;
    while (!input.empty()) {
      const size_t n = piece == 0 ? input.size() : std::min(piece, input.size());
      const ssize_t sent = ::send(client, input.data(), n, MSG_NOSIGNAL);
      if (sent > 0) {
        input.remove_prefix(static_cast<size_t>(sent));
      } else if (errno != EAGAIN) {
        break;  // the session closed its end (e.g. after an error response)
      }
      Poll();
      Drain(client, &output);
    }
    ::shutdown(client, SHUT_WR);
    // The session ends once it reads EOF (after lingering when it closes
    // first); a bounded number of turns, each at most 5 ms of waiting.
    for (int turn = 0; !worker_->sessions.empty(); ++turn) {
      if (turn > 2000) Fail("the session did not end after the client's EOF");
      if (Poll() == 0) RunFor(std::chrono::milliseconds(5));
      Drain(client, &output);
    }
    Drain(client, &output);
    ::close(client);

    if (core_->open_connections() != 0) Fail("a connection slot is still held");
    if (core_->peer_connections(PeerKeyOf(peer_)) != 0) Fail("a peer count is still held");
    if (!worker_->fresh.empty() || !worker_->idle.empty()) Fail("an idle-list entry remains");
    CheckResponses(output);
  }

 private:
  void Route(http::verb method, std::string path, bool prefix, bidder::HttpHandler handler) {
    if (!core_->router.Add(method, std::move(path), prefix, std::move(handler))) {
      Fail("route registered twice");
    }
  }

  static size_t PieceSize(uint8_t choice) {
    static constexpr size_t kPieces[] = {0, 0, 0, 0, 1, 2, 3, 7, 16, 64};
    return kPieces[choice % (sizeof(kPieces) / sizeof(kPieces[0]))];
  }

  size_t Poll() {
    if (worker_->ioc->stopped()) worker_->ioc->restart();
    return worker_->ioc->poll();
  }

  void RunFor(std::chrono::milliseconds d) {
    if (worker_->ioc->stopped()) worker_->ioc->restart();
    worker_->ioc->run_for(d);
  }

  static void Drain(int fd, std::string* out) {
    char buffer[16384];
    for (;;) {
      const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
      if (n <= 0) return;
      out->append(buffer, static_cast<size_t>(n));
    }
  }

  // What the server wrote: complete responses back to back, nothing else.
  static void CheckResponses(std::string_view output) {
    while (!output.empty()) {
      http::response_parser<http::string_body> parser;
      parser.body_limit(1 << 20);
      parser.header_limit(1 << 16);
      parser.eager(true);
      beast::error_code ec;
      const size_t used = parser.put(asio::buffer(output.data(), output.size()), ec);
      if (ec || !parser.is_done()) Fail("the server wrote a malformed or incomplete response");
      output.remove_prefix(used);
      const unsigned status = parser.get().result_int();
      switch (status) {
        case 100:
        case 200:
        case 204:
        case 400:
        case 404:
        case 405:
        case 413:
        case 415:
        case 431:
        case 500:
          break;
        default:
          Fail("the server answered with an unexpected status");
      }
    }
  }

  prometheus::Registry registry_;
  std::unique_ptr<ServerCore> core_;
  Worker* worker_ = nullptr;
  const asio::ip::address peer_ = asio::ip::make_address("192.0.2.1");
};

}  // namespace

int FuzzHttpRequest(const uint8_t* data, size_t size) {
  static Harness* harness = new Harness();
  harness->Run(data, size);
  return 0;
}

}  // namespace rtb::fuzz

// The bidder's HTTP/1.1 server: Boost.Beast on Asio, one io_context per I/O
// thread, keep-alive connections.
//
// Each connection is a session that owns its buffers (reused from request to
// request) and walks read -> handle -> write: the next request is not read
// before the previous response has been written, so a slow handler or a slow
// client holds back only its own connection. Every phase has a limit:
//   - first_byte_timeout_ms from accept to a new connection's first byte,
//     idle_timeout_ms between later requests, and read_timeout_ms from the
//     first byte of a request to its last; each closes the connection;
//   - max_header_bytes (431), max_body_bytes as received (413) and
//     max_inflated_body_bytes after gzip/deflate inflation (413);
//   - max_connections in all and max_connections_per_peer from one remote
//     address: further connections are accepted and closed at once, and
//     counted by reason; from 15/16 of max_connections on, each new
//     connection first closes a connection of its I/O thread that waits for a
//     request (never-used ones first, then keep-alive ones idle for at least
//     the first-byte timeout, longest-waiting first), so idle connections
//     give way to new ones.
// With intake_thread (and round-robin accepting), new connections are held by
// an intake thread, at a priority lowered by intake_nice, until their first
// request is complete; then the connection moves to an I/O thread, where the
// request and every later one are handled. Connections that never make a
// request cost the intake's time, not the I/O threads'.
// Malformed HTTP gets 400, an unknown path 404, a known path with another
// method 405 (with Allow), an unknown Content-Encoding 415. Errors at the
// Asio/Beast edge are error_codes; nothing on the request path throws.
//
// Handlers run on the I/O thread of their connection and must not block it:
// slow work (storage) goes elsewhere and its result is posted back to
// HttpRequest::executor, where the Responder is called. A Responder that is
// dropped without being called answers 500, so a lost request cannot hang a
// connection.
//
// Server metrics (bidder_http_*) are declared in bidder/http_metrics.h.
//
// Thread-safety: Route/RoutePrefix before Start(); Start, port and Shutdown
// from one controlling thread. Handlers are called concurrently from all I/O
// threads.
#ifndef RTB_BIDDER_HTTP_HTTP_SERVER_H_
#define RTB_BIDDER_HTTP_HTTP_SERVER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bidder/http/header_arena.h"
#include "boost/asio/any_io_executor.hpp"
#include "boost/beast/http/fields.hpp"
#include "boost/beast/http/verb.hpp"
#include "config/config.h"
#include "prometheus/registry.h"

namespace rtb::bidder {

// A request's header fields, in their connection's header arena.
using HttpHeaders = boost::beast::http::basic_fields<HeaderAllocator<char>>;

struct HttpRequest {
  boost::beast::http::verb method;
  std::string_view target;                        // path and query, as received
  std::string_view path;                          // target without the query
  std::string_view body;                          // already inflated when Content-Encoding: gzip
  const HttpHeaders* headers;                     // valid until the responder is called
  std::chrono::steady_clock::time_point arrival;  // when the first byte of this request was read
  boost::asio::any_io_executor executor;          // the connection's io_context executor
  std::string_view remote_address;                // peer IP address, no port
  // Bytes of the body as received (before inflation).
  size_t wire_body_bytes = 0;
};

struct HttpResponse {
  unsigned status = 200;
  std::string content_type;  // empty: no body
  std::string body;
  // Extra headers, e.g. x-openrtb-version, Location, Set-Cookie. The server
  // writes Date, Content-Length and Connection itself; a handler that sets
  // one of those, or a name or value that could split the response (CR, LF,
  // NUL, a non-token name), gets a 500 instead.
  std::vector<std::pair<std::string, std::string>> headers;
};

// Must be called exactly once, on request.executor; the request's views stay
// valid until then. Calls after the first are ignored.
using Responder = std::function<void(HttpResponse)>;

// An empty string with the room of a response body this thread wrote last
// (up to 64 KiB), or a new one: a handler that builds its body in it saves
// the allocation of a large buffer per request, and glibc's sweep of its fast
// bins that comes with one.
std::string RecycledResponseBody();
using HttpHandler = std::function<void(const HttpRequest&, Responder)>;

// How connections are spread over the I/O threads.
enum class AcceptMode {
  // One listening socket on the first I/O thread hands accepted sockets to
  // the threads in turn. A second process cannot bind the same port.
  kRoundRobin,
  // One SO_REUSEPORT listening socket per I/O thread; the kernel spreads
  // connections by hash. Another process of the same user could bind the
  // same port and take a share of the traffic.
  kReusePort,
};

struct HttpServerTuning {
  // Default round-robin: on this project's 2-core box both modes served the
  // same closed-loop load (32 keep-alive connections, 1 or 2 I/O threads,
  // with and without reconnects) within run-to-run noise, and round-robin
  // keeps connections evenly spread and the port exclusive.
  AcceptMode accept_mode = AcceptMode::kRoundRobin;
  // Largest response a handler may return, bytes; larger ones are replaced
  // by a 500. Default 16 MiB.
  size_t max_response_bytes = size_t{16} << 20;
  // After the server decides to close a connection it keeps reading (and
  // discarding) what the client still sends for at most this long, so that
  // an early error response is not destroyed by a TCP reset. Default 1000 ms.
  std::chrono::milliseconds linger = std::chrono::milliseconds(1000);
};

namespace internal {
class ServerCore;
}

class HttpServer {
 public:
  // Checks the configuration (listen address, thread count) and declares the
  // server metrics in `registry`, which must outlive the server. Does not
  // bind.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Create(const config::ServerConfig& config,
                                                            prometheus::Registry& registry);
  static absl::StatusOr<std::unique_ptr<HttpServer>> Create(const config::ServerConfig& config,
                                                            prometheus::Registry& registry,
                                                            const HttpServerTuning& tuning);

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  // Shuts down (with no grace) when still running. Responders must not
  // outlive the server.
  ~HttpServer();

  // Exact-path routes; a prefix route matches path.starts_with(prefix) (the
  // longest registered prefix wins; exact routes win over prefixes).
  // Register before Start(). Registering the same method and path twice, or
  // registering after Start(), is a programming error and aborts.
  void Route(boost::beast::http::verb method, std::string path, HttpHandler handler);
  void RoutePrefix(boost::beast::http::verb method, std::string prefix, HttpHandler handler);

  // Binds (port 0 = ephemeral) and starts the I/O threads. Fails with the
  // address and the system's reason when the port cannot be bound.
  absl::Status Start();
  // The bound port; 0 before Start().
  uint16_t port() const;
  // True from the moment Shutdown() begins.
  bool draining() const;
  // Stops accepting, closes idle keep-alive connections, lets requests in
  // flight finish and be answered (with Connection: close) for at most
  // `grace`, then closes what is left and stops the I/O threads. Returns
  // when they have stopped. Safe to call more than once.
  void Shutdown(std::chrono::milliseconds grace);

 private:
  explicit HttpServer(std::unique_ptr<internal::ServerCore> core);
  std::unique_ptr<internal::ServerCore> core_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_HTTP_HTTP_SERVER_H_

// A blocking HTTP/1.1 client on a raw loopback socket, for tests of the
// bidder's server. Every receive has a timeout, so a server that never
// answers fails the test instead of hanging it. Bytes are sent exactly as
// given, which lets tests send malformed or half-finished requests.
#ifndef RTB_TESTS_BIDDER_HTTP_TEST_CLIENT_H_
#define RTB_TESTS_BIDDER_HTTP_TEST_CLIENT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "boost/asio/buffer.hpp"
#include "boost/beast/http/error.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/string_body.hpp"

namespace rtb::bidder::testing {

struct TestResponse {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class TestConnection {
 public:
  // Connects to 127.0.0.1:`port`; from `source` (an address of 127.0.0.0/8,
  // e.g. "127.0.0.2") when given, so that tests can play several peers.
  explicit TestConnection(uint16_t port,
                          std::chrono::milliseconds timeout = std::chrono::seconds(5),
                          const char* source = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) return;
    if (source != nullptr) {
      sockaddr_in from{};
      from.sin_family = AF_INET;
      if (::inet_pton(AF_INET, source, &from.sin_addr) != 1 ||
          ::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
    }
    timeval tv{};
    tv.tv_sec = timeout.count() / 1000;
    tv.tv_usec = (timeout.count() % 1000) * 1000;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~TestConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  TestConnection(const TestConnection&) = delete;
  TestConnection& operator=(const TestConnection&) = delete;

  bool connected() const { return fd_ >= 0; }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // One response, or nullopt when the connection ends (or times out) first.
  std::optional<TestResponse> Read() {
    boost::beast::http::response_parser<boost::beast::http::string_body> parser;
    parser.body_limit(64 << 20);
    parser.header_limit(1 << 20);
    for (;;) {
      while (!pending_.empty() && !parser.is_done()) {
        boost::beast::error_code ec;
        const size_t used = parser.put(boost::asio::buffer(pending_), ec);
        pending_.erase(0, used);
        if (ec == boost::beast::http::error::need_more) break;
        if (ec) return std::nullopt;
      }
      if (parser.is_done()) break;
      if (!Receive()) return std::nullopt;
    }
    TestResponse response;
    const auto& message = parser.get();
    response.status = message.result_int();
    for (const auto& field : message) {
      response.headers[absl::AsciiStrToLower(absl::string_view(
          field.name_string().data(), field.name_string().size()))] = std::string(field.value());
    }
    response.body = message.body();
    return response;
  }

  enum class Ending { kOrderly, kReset, kNone };
  // How the server ends the connection: an orderly close (EOF), a reset, or
  // neither before the timeout; whatever it sends first is discarded.
  Ending WaitForEnding() {
    pending_.clear();
    for (int i = 0; i < 1000; ++i) {
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n == 0) return Ending::kOrderly;
      if (n < 0) return errno == ECONNRESET ? Ending::kReset : Ending::kNone;
    }
    return Ending::kNone;
  }

  // True when the server closes the connection (EOF or reset) before the
  // timeout.
  bool WaitForClose() { return WaitForEnding() != Ending::kNone; }

  // Sends `request` and reads its response.
  std::optional<TestResponse> RoundTrip(std::string_view request) {
    if (!Send(request)) return std::nullopt;
    return Read();
  }

 private:
  bool Receive() {
    char buf[16384];
    ssize_t n = 0;
    do {
      n = ::recv(fd_, buf, sizeof(buf), 0);
    } while (n < 0 && errno == EINTR);  // a signal to this process, not an answer
    if (n <= 0) return false;
    pending_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string pending_;
};

// A request without a body: "<method> <target> HTTP/1.1" and the headers.
inline std::string BodylessRequest(std::string_view method, std::string_view target,
                                   std::string_view extra_headers) {
  std::string r(method);
  r += ' ';
  r += target;
  r += " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (method != "GET") r += "Content-Length: 0\r\n";
  r += extra_headers;
  r += "\r\n";
  return r;
}

inline std::string GetRequest(std::string_view target, std::string_view extra_headers = "") {
  return BodylessRequest("GET", target, extra_headers);
}

inline std::string DeleteRequest(std::string_view target, std::string_view extra_headers = "") {
  return BodylessRequest("DELETE", target, extra_headers);
}

inline std::string PostRequest(std::string_view target, std::string_view body,
                               std::string_view extra_headers = "") {
  std::string r = "POST ";
  r += target;
  r += " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ";
  r += std::to_string(body.size());
  r += "\r\n";
  r += extra_headers;
  r += "\r\n";
  r += body;
  return r;
}

// `data` compressed with zlib: gzip wrapper when `gzip`, zlib's otherwise.
inline std::string Compress(std::string_view data, bool gzip = true) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, gzip ? 16 + MAX_WBITS : MAX_WBITS, 9,
               Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// `data` inflated from gzip (a response body with Content-Encoding: gzip),
// or "<corrupt>" when it is not one whole gzip member of at most 1 MiB.
inline std::string Gunzip(std::string_view data) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return "<corrupt>";
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = inflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return result == Z_STREAM_END ? out : "<corrupt>";
}

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_HTTP_TEST_CLIENT_H_

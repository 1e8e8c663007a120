// bare-responder: the yardstick for the bidder's HTTP throughput. The same
// architecture as bidder/http/http_server (one io_context per thread, one
// listening socket handing connections to the threads in turn, a Beast
// session per connection reading a request and writing its response before
// reading the next) with nothing else: every POST gets a fixed 204, anything
// else a fixed 404. Load tests drive it and the bidder in the same run.
//
//   bare-responder [--address 127.0.0.1] [--port 8090] [--threads 1] [--port-file <file>]
//
// Runs until SIGTERM or SIGINT, then exits 0.
#include <pthread.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/signal_set.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/core/basic_stream.hpp"
#include "boost/beast/core/bind_handler.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/http/read.hpp"
#include "boost/beast/http/string_body.hpp"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Acceptor = asio::basic_socket_acceptor<tcp, Executor>;

constexpr std::string_view kNoContent = "HTTP/1.1 204 No Content\r\n\r\n";
constexpr std::string_view kNotFound = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
constexpr std::string_view kNoContentClose = "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n";
constexpr std::string_view kNotFoundClose =
    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(Socket socket) : stream_(std::move(socket)) {
    beast::error_code ec;
    stream_.socket().set_option(tcp::no_delay(true), ec);
  }

  void Read() {
    parser_.emplace();
    parser_->body_limit(1 << 20);
    stream_.expires_after(std::chrono::seconds(60));
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

 private:
  void OnRead(beast::error_code ec, size_t) {
    if (ec) return Close();
    keep_alive_ = parser_->get().keep_alive();
    const bool post = parser_->get().method() == http::verb::post;
    const std::string_view& answer = post ? (keep_alive_ ? kNoContent : kNoContentClose)
                                          : (keep_alive_ ? kNotFound : kNotFoundClose);
    asio::async_write(stream_, asio::buffer(answer.data(), answer.size()),
                      beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
  }

  void OnWrite(beast::error_code ec, size_t) {
    if (ec || !keep_alive_) return Close();
    Read();
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.close();
  }

  beast::basic_stream<tcp, Executor, beast::unlimited_rate_policy> stream_;
  beast::flat_buffer buffer_{64 << 10};
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
};

struct Worker {
  asio::io_context ioc{1};
  std::thread thread;
};

void Accept(Acceptor& acceptor, std::vector<std::unique_ptr<Worker>>& workers, size_t next) {
  Worker& target = *workers[next % workers.size()];
  acceptor.async_accept(target.ioc.get_executor(),
                        [&acceptor, &workers, &target, next](beast::error_code ec, Socket socket) {
                          if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
                          if (!ec) {
                            asio::post(target.ioc, [s = std::move(socket)]() mutable {
                              std::make_shared<Session>(std::move(s))->Read();
                            });
                          }
                          Accept(acceptor, workers, next + 1);
                        });
}

bool ParseInt(std::string_view text, int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

int Usage(const char* problem) {
  std::fprintf(stderr,
               "bare-responder: %s\n"
               "usage: bare-responder [--address 127.0.0.1] [--port 8090] [--threads 1] "
               "[--port-file <file>]\n",
               problem);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string address = "127.0.0.1";
  int port = 8090;
  int threads = 1;
  std::string port_file;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return Usage("every flag needs a value");
    const std::string_view value = argv[++i];
    if (flag == "--address") {
      address = value;
    } else if (flag == "--port") {
      if (!ParseInt(value, port) || port < 0 || port > 65535) return Usage("bad --port");
    } else if (flag == "--threads") {
      if (!ParseInt(value, threads) || threads < 1 || threads > 256) return Usage("bad --threads");
    } else if (flag == "--port-file") {
      port_file = value;
    } else {
      return Usage("unknown flag");
    }
  }

  std::signal(SIGPIPE, SIG_IGN);
  beast::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(address, ec);
  if (ec) return Usage("--address is not an IP address");

  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < threads; ++i) workers.push_back(std::make_unique<Worker>());
  Acceptor acceptor(workers[0]->ioc.get_executor());
  const tcp::endpoint endpoint(ip, static_cast<uint16_t>(port));
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::fprintf(stderr, "bare-responder: cannot listen on %s:%d: %s\n", address.c_str(), port,
                 ec.message().c_str());
    return 1;
  }
  const uint16_t bound = acceptor.local_endpoint().port();
  if (!port_file.empty()) {
    {
      std::ofstream out(port_file + ".tmp");
      out << bound << "\n";
    }
    std::rename((port_file + ".tmp").c_str(), port_file.c_str());
  }
  std::fprintf(stderr, "bare-responder: listening on %s:%u (%d threads)\n", address.c_str(), bound,
               threads);

  asio::io_context signal_context(1);
  asio::signal_set signals(signal_context, SIGTERM, SIGINT);
  signals.async_wait([](const beast::error_code&, int) {});

  std::vector<asio::executor_work_guard<Executor>> guards;
  for (auto& w : workers) guards.emplace_back(w->ioc.get_executor());
  Accept(acceptor, workers, 0);
  for (auto& w : workers) {
    Worker* worker = w.get();
    w->thread = std::thread([worker] { worker->ioc.run(); });
  }
  signal_context.run();

  asio::post(workers[0]->ioc, [&acceptor] {
    beast::error_code close_ec;
    acceptor.close(close_ec);
  });
  guards.clear();
  for (auto& w : workers) w->ioc.stop();
  for (auto& w : workers) w->thread.join();
  std::fprintf(stderr, "bare-responder: stopped\n");
  return 0;
}

#include "loadtest/delay_proxy.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <future>
#include <list>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/write.hpp"

namespace rtb::loadtest {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

class DelayProxyImpl;

// One accepted connection and its connection to the target.
struct Link : std::enable_shared_from_this<Link> {
  struct Chunk {
    Clock::time_point due;
    std::vector<char> bytes;
  };
  // Bytes read from `from` on their way to `to`.
  struct Direction {
    explicit Direction(asio::io_context& io) : timer(io) {}
    tcp::socket* from = nullptr;
    tcp::socket* to = nullptr;
    std::array<char, 16384> buffer;
    std::deque<Chunk> queue;
    size_t buffered = 0;
    Clock::time_point last_due{};
    asio::steady_timer timer;
    bool reading = false;
    bool writing = false;
    bool read_done = false;   // the sender closed its side
    bool write_done = false;  // everything it sent was passed on, and the close
  };

  explicit Link(asio::io_context& io)
      : client(io), server(io), directions{{Direction(io), Direction(io)}} {}

  tcp::socket client;
  tcp::socket server;
  std::array<Direction, 2> directions;  // 0: client to server, 1: server to client
  bool closed = false;
};

class DelayProxyImpl final : public DelayProxy {
 public:
  explicit DelayProxyImpl(const DelayProxyOptions& options)
      : options_(options),
        acceptor_(io_),
        rng_(options.seed),
        min_delay_ms_(options.min_delay_ms),
        max_delay_ms_(options.max_delay_ms) {}

  ~DelayProxyImpl() override {
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

  absl::Status Listen() {
    boost::system::error_code ec;
    target_ = tcp::endpoint(asio::ip::make_address(options_.target_host, ec), options_.target_port);
    if (ec) return absl::InvalidArgumentError(absl::StrCat("target_host: ", ec.message()));
    const tcp::endpoint local(asio::ip::make_address("127.0.0.1"), options_.listen_port);
    acceptor_.open(local.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(local, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return absl::UnavailableError(
          absl::StrCat("listening on 127.0.0.1:", options_.listen_port, ": ", ec.message()));
    }
    port_ = acceptor_.local_endpoint().port();
    Accept();
    thread_ = std::thread([this] { io_.run(); });
    return absl::OkStatus();
  }

  uint16_t port() const override { return port_; }
  std::string endpoint() const override { return absl::StrCat("127.0.0.1:", port_); }

  void SetDelay(int min_delay_ms, int max_delay_ms) override {
    min_delay_ms_.store(min_delay_ms);
    max_delay_ms_.store(std::max(min_delay_ms, max_delay_ms));
  }

  void DropAll() override {
    std::promise<void> done;
    asio::post(io_, [&] {
      std::list<std::shared_ptr<Link>> links = std::move(links_);
      links_.clear();
      for (auto& link : links) Close(*link);
      done.set_value();
    });
    done.get_future().wait();
  }

  const DelayProxyStats& stats() const override { return stats_; }

 private:
  void Accept() {
    auto link = std::make_shared<Link>(io_);
    acceptor_.async_accept(link->client, [this, link](const boost::system::error_code& error) {
      if (error) {
        if (error != asio::error::operation_aborted) Accept();
        return;
      }
      ++stats_.connections;
      link->server.async_connect(target_, [this, link](const boost::system::error_code& e) {
        if (e) {
          ++stats_.connect_failures;
          Close(*link);
          return;
        }
        boost::system::error_code ignored;
        link->client.set_option(tcp::no_delay(true), ignored);
        link->server.set_option(tcp::no_delay(true), ignored);
        links_.push_back(link);
        link->directions[0].from = &link->client;
        link->directions[0].to = &link->server;
        link->directions[1].from = &link->server;
        link->directions[1].to = &link->client;
        Read(link, link->directions[0]);
        Read(link, link->directions[1]);
      });
      Accept();
    });
  }

  void Read(const std::shared_ptr<Link>& link, Link::Direction& d) {
    if (link->closed || d.reading || d.read_done || d.buffered >= options_.max_buffered_bytes) {
      return;
    }
    d.reading = true;
    d.from->async_read_some(
        asio::buffer(d.buffer), [this, link, &d](const boost::system::error_code& e, size_t n) {
          d.reading = false;
          if (link->closed) return;
          if (e) {
            if (e != asio::error::eof) {
              Close(*link);  // a reset or error: pass it on as one
              return;
            }
            d.read_done = true;
            Write(link, d);
            return;
          }
          const int lo = min_delay_ms_.load(), hi = max_delay_ms_.load();
          const int delay = std::uniform_int_distribution<int>(lo, std::max(lo, hi))(rng_);
          stats_.delay_ms_total += static_cast<uint64_t>(delay);
          d.last_due = std::max(d.last_due, Clock::now() + std::chrono::milliseconds(delay));
          d.queue.push_back(
              Link::Chunk{d.last_due, std::vector<char>(d.buffer.data(), d.buffer.data() + n)});
          d.buffered += n;
          Write(link, d);
          Read(link, d);
        });
  }

  void Write(const std::shared_ptr<Link>& link, Link::Direction& d) {
    if (link->closed || d.writing) return;
    if (d.queue.empty()) {
      if (d.read_done && !d.write_done) {
        d.write_done = true;
        boost::system::error_code ignored;
        d.to->shutdown(tcp::socket::shutdown_send, ignored);
        if (link->directions[0].write_done && link->directions[1].write_done) Close(*link);
      }
      return;
    }
    d.writing = true;
    d.timer.expires_at(d.queue.front().due);
    d.timer.async_wait([this, link, &d](const boost::system::error_code& e) {
      if (e || link->closed) {
        d.writing = false;
        return;
      }
      asio::async_write(*d.to, asio::buffer(d.queue.front().bytes),
                        [this, link, &d](const boost::system::error_code& w, size_t n) {
                          d.writing = false;
                          if (link->closed) return;
                          if (w) {
                            Close(*link);
                            return;
                          }
                          ++stats_.chunks;
                          stats_.bytes += n;
                          d.buffered -= d.queue.front().bytes.size();
                          d.queue.pop_front();
                          Write(link, d);
                          Read(link, d);
                        });
    });
  }

  void Close(Link& link) {
    if (link.closed) return;
    link.closed = true;
    boost::system::error_code ignored;
    // A reset rather than a graceful close: what a dying peer looks like.
    link.client.set_option(asio::socket_base::linger(true, 0), ignored);
    link.client.close(ignored);
    link.server.set_option(asio::socket_base::linger(true, 0), ignored);
    link.server.close(ignored);
    for (auto& d : link.directions) d.timer.cancel();
    links_.remove_if([&link](const std::shared_ptr<Link>& l) { return l.get() == &link; });
  }

  const DelayProxyOptions options_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  tcp::endpoint target_;
  uint16_t port_ = 0;
  std::mt19937_64 rng_;  // used on the proxy's thread only
  std::atomic<int> min_delay_ms_;
  std::atomic<int> max_delay_ms_;
  std::list<std::shared_ptr<Link>> links_;  // open links, on the proxy's thread only
  DelayProxyStats stats_;
  std::thread thread_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DelayProxy>> DelayProxy::Start(const DelayProxyOptions& options) {
  if (options.target_port == 0) return absl::InvalidArgumentError("target_port must be set");
  if (options.min_delay_ms < 0 || options.max_delay_ms < options.min_delay_ms) {
    return absl::InvalidArgumentError("delays must satisfy 0 <= min_delay_ms <= max_delay_ms");
  }
  if (options.max_buffered_bytes == 0) {
    return absl::InvalidArgumentError("max_buffered_bytes must be > 0");
  }
  auto proxy = std::make_unique<DelayProxyImpl>(options);
  if (absl::Status s = proxy->Listen(); !s.ok()) return s;
  return std::unique_ptr<DelayProxy>(std::move(proxy));
}

}  // namespace rtb::loadtest

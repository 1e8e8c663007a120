// rtb-load: an open-loop HTTP load generator for bid requests.
//
// Requests are due at a fixed arrival rate whatever the server does; each
// latency is measured from the request's intended send time, not from when a
// connection became free, so a stalled server shows up as latency instead of
// silently lowering the offered load (coordinated omission).
//
//   rtb-load --port 8080 --rate 5000 --duration 10 --requests tests/fixtures/openrtb/requests
//
// --requests takes JSON files and directories (their *.json files). Bodies
// are those requests with a fresh `id` and a device id drawn from
// a Zipf-distributed population (`--devices`, `--zipf`), so some devices are
// hot and most are rare, as on a real exchange. The report is one JSON object
// on stdout. Only loopback targets are accepted.
//
// With --win-rate F, a share F of the bids received get their win notice
// (nurl) and billing notice (burl) fired on their own keep-alive
// connections, macros substituted (loadtest/win_notice.h), so a run produces
// wins and spend; at most --notice-queue bids wait, the rest are dropped and
// counted in the report's "notices".
//
// A pooled connection the server closes while it waits (an idle or
// first-byte timeout) is noticed and reconnected before its next request, as
// an exchange's connection pool does; those closes are the report's
// "closed_while_idle", not errors. Connecting never blocks the generator's
// one thread: the other connections keep sending meanwhile.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "boost/asio/connect.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/tcp_stream.hpp"
#include "boost/beast/http.hpp"
#include "loadtest/latency_histogram.h"
#include "loadtest/load_options.h"
#include "loadtest/request_mix.h"
#include "loadtest/win_notice.h"
#include "nlohmann/json.hpp"

namespace rtb::loadtest {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Clock = std::chrono::steady_clock;
using tcp = asio::ip::tcp;

struct Stats {
  LatencyHistogram latency;
  std::map<unsigned, int64_t> status_counts;
  int64_t errors = 0;
  int64_t sent = 0;
  int64_t completed = 0;
  int64_t closed_while_idle = 0;
};

struct NoticeStats {
  int64_t bids_chosen = 0;  // bids picked by --win-rate
  int64_t dropped = 0;      // chosen with the queue full
  int64_t refused = 0;      // URLs not loopback HTTP
  int64_t sent = 0;
  int64_t errors = 0;  // connect, write or read failed
  int64_t unsent = 0;  // still queued at the end
  std::map<unsigned, int64_t> status_counts;
};

class Generator;

// One keep-alive connection carrying one request at a time.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(asio::io_context& io, Generator* generator) : stream_(io), generator_(generator) {}

  beast::tcp_stream& stream() { return stream_; }
  bool connected() const { return connected_; }
  void set_connected(bool c) { connected_ = c; }

  void Send(Clock::time_point intended, std::string body, const LoadOptions& options);
  // While the connection waits in the pool: a close (or any byte) from the
  // server takes it out of the pool instead of failing its next request.
  void WatchWhileIdle();

 private:
  void Done(beast::error_code ec);

  beast::tcp_stream stream_;
  Generator* generator_;
  bool connected_ = false;
  bool idle_ = false;
  Clock::time_point intended_;
  bool measured_ = false;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
  beast::flat_buffer buffer_;
};

// One keep-alive connection firing the notices of one bid at a time, in
// order (the billing notice after the win notice, as exchanges send them).
class NoticeConnection : public std::enable_shared_from_this<NoticeConnection> {
 public:
  NoticeConnection(asio::io_context& io, Generator* generator)
      : io_(io), stream_(io), generator_(generator) {}

  void Fire(BidNotices bid);
  void Close() {
    beast::error_code ec;
    stream_.socket().close(ec);
    connected_to_.clear();
  }

 private:
  // Sends bid_.notices[next_] (connecting first when it goes elsewhere), or
  // returns to the idle notice connections when none is left.
  void SendNext();
  // Sends bid_.notices[next_] on the connected stream.
  void Send();
  // Counts the notice as an error and gives up the bid's other notices.
  void Failed();
  void Done(beast::error_code ec);

  asio::io_context& io_;
  beast::tcp_stream stream_;
  Generator* generator_;
  std::string connected_to_;  // "host:port", "" when not connected
  bool reused_ = false;       // the notice in flight went on a kept-alive connection
  BidNotices bid_;
  size_t next_ = 0;
  http::request<http::empty_body> request_;
  http::response<http::string_body> response_;
  beast::flat_buffer buffer_;
};

class Generator {
 public:
  Generator(LoadOptions options, RequestMix mix)
      : options_(std::move(options)),
        mix_(std::move(mix)),
        timer_(io_),
        rng_(options_.seed),
        win_rng_(options_.seed ^ 0x9E3779B97F4A7C15ull),
        win_(options_.win_rate) {}

  int Run() {
    tcp::resolver resolver(io_);
    beast::error_code ec;
    endpoints_ = resolver.resolve(options_.host, std::to_string(options_.port), ec);
    if (ec) {
      std::cerr << "rtb-load: cannot resolve " << options_.host << ": " << ec.message() << "\n";
      return 1;
    }
    for (int i = 0; i < options_.connections; ++i) {
      auto conn = std::make_shared<Connection>(io_, this);
      conn->stream().connect(endpoints_, ec);
      if (ec) {
        std::cerr << "rtb-load: cannot connect: " << ec.message() << "\n";
        return 1;
      }
      conn->stream().socket().set_option(tcp::no_delay(true));
      conn->set_connected(true);
      connections_.push_back(conn);
      MakeIdle(conn.get());
    }
    if (options_.win_rate > 0) {
      for (int i = 0; i < options_.notice_connections; ++i) {
        notice_connections_.push_back(std::make_shared<NoticeConnection>(io_, this));
        idle_notices_.push_back(notice_connections_.back().get());
      }
    }
    start_ = Clock::now();
    measure_from_ =
        start_ + std::chrono::milliseconds(static_cast<int64_t>(options_.warmup_s * 1000));
    end_ = start_ + std::chrono::milliseconds(static_cast<int64_t>(options_.duration_s * 1000));
    interval_ = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / options_.rate));
    next_due_ = start_;
    Tick();
    io_.run();
    Report();
    return 0;
  }

  // A connection finished its request.
  void Completed(Connection* conn, Clock::time_point intended, bool measured, unsigned status,
                 bool error) {
    const auto now = Clock::now();
    --in_flight_;
    if (measured) {
      stats_.completed += error ? 0 : 1;
      if (error) {
        ++stats_.errors;
      } else {
        ++stats_.status_counts[status];
        stats_.latency.Record(
            std::chrono::duration_cast<std::chrono::microseconds>(now - intended).count());
      }
    }
    if (!conn->connected()) {
      Reconnect(conn);
      return;
    }
    MakeIdle(conn);
    Dispatch();
  }

  // The server closed a pooled connection that carried no request: it waits
  // for a fresh connection when a request needs it.
  void ClosedWhileIdle(Connection* conn) {
    idle_.erase(std::find(idle_.begin(), idle_.end(), conn));
    ++stats_.closed_while_idle;
    closed_.push_back(conn);
    Dispatch();
  }

  // A 200 answer: chooses its bids for notices.
  void BidAnswered(std::string_view body) {
    if (options_.win_rate <= 0 || closing_) return;
    ParsedNotices parsed = NoticesOfResponse(body);
    notices_.refused += parsed.refused;
    for (BidNotices& bid : parsed.bids) {
      if (!win_(win_rng_)) continue;
      ++notices_.bids_chosen;
      const size_t busy = notice_connections_.size() - idle_notices_.size();
      if (notice_queue_.size() + busy >= static_cast<size_t>(options_.notice_queue)) {
        ++notices_.dropped;
        continue;
      }
      notice_queue_.push_back(std::move(bid));
    }
    DispatchNotices();
  }

  void NoticeAnswered(unsigned status, bool error) {
    ++notices_.sent;
    if (error) {
      ++notices_.errors;
    } else {
      ++notices_.status_counts[status];
    }
  }

  void NoticeConnectionIdle(NoticeConnection* conn) {
    idle_notices_.push_back(conn);
    DispatchNotices();
  }

  bool closing() const { return closing_; }
  const LoadOptions& options() const { return options_; }

 private:
  void Tick() {
    const auto now = Clock::now();
    while (next_due_ <= now && next_due_ < end_) {
      pending_.push_back(next_due_);
      next_due_ += interval_;
    }
    Dispatch();
    if (next_due_ < end_) {
      timer_.expires_at(std::min(next_due_, now + std::chrono::milliseconds(1)));
      timer_.async_wait([this](beast::error_code ec) {
        if (!ec) Tick();
      });
    } else {
      // Requests still queued or in flight get a bounded drain.
      timer_.expires_at(end_ +
                        std::chrono::milliseconds(static_cast<int64_t>(options_.drain_s * 1000)));
      timer_.async_wait([this](beast::error_code) {
        unanswered_ = static_cast<int64_t>(pending_.size()) + in_flight_;
        pending_.clear();
        closing_ = true;
        notices_.unsent = static_cast<int64_t>(notice_queue_.size());
        notice_queue_.clear();
        for (auto& c : connections_) c->stream().socket().close();
        for (auto& c : notice_connections_) c->Close();
      });
    }
  }

  void Dispatch() {
    // As many connections as requests wait beyond those already on their
    // way back.
    while (pending_.size() > idle_.size() + reconnecting_ && !closed_.empty() && !closing_) {
      Connection* conn = closed_.back();
      closed_.pop_back();
      Reconnect(conn);
    }
    while (!pending_.empty() && !idle_.empty()) {
      Clock::time_point intended = pending_.front();
      pending_.pop_front();
      Connection* conn = idle_.back();
      idle_.pop_back();
      ++stats_.sent;
      ++in_flight_;
      conn->Send(intended, mix_.Next(rng_), options_);
    }
  }

  void DispatchNotices() {
    while (!closing_ && !notice_queue_.empty() && !idle_notices_.empty()) {
      NoticeConnection* conn = idle_notices_.back();
      idle_notices_.pop_back();
      BidNotices bid = std::move(notice_queue_.front());
      notice_queue_.pop_front();
      conn->Fire(std::move(bid));
    }
  }

  void MakeIdle(Connection* conn) {
    idle_.push_back(conn);
    conn->WatchWhileIdle();
  }

  // Connects again without waiting: the generator's one thread keeps
  // sending while the handshake runs (a blocking connect held every due
  // request up behind it). A connection that cannot connect stays out of
  // the pool.
  void Reconnect(Connection* conn) {
    if (closing_) return;
    beast::error_code ignored;
    conn->stream().socket().close(ignored);
    ++reconnecting_;
    conn->stream().expires_after(std::chrono::seconds(5));
    conn->stream().async_connect(endpoints_, [this, keep = conn->shared_from_this()](
                                                 beast::error_code ec, const tcp::endpoint&) {
      --reconnecting_;
      if (ec || closing_) return;
      keep->stream().socket().set_option(tcp::no_delay(true), ec);
      keep->set_connected(true);
      MakeIdle(keep.get());
      Dispatch();
    });
  }

  void Report() {
    const double measured_s = std::chrono::duration<double>(end_ - measure_from_).count();
    nlohmann::json out;
    out["target"] = options_.host + ":" + std::to_string(options_.port) + options_.path;
    out["offered_rate"] = options_.rate;
    out["duration_s"] = options_.duration_s;
    out["warmup_s"] = options_.warmup_s;
    out["connections"] = options_.connections;
    out["sent"] = stats_.sent;
    out["completed"] = stats_.completed;
    out["throughput_rps"] = measured_s > 0 ? stats_.completed / measured_s : 0;
    out["errors"] = stats_.errors;
    out["unanswered"] = unanswered_;
    out["closed_while_idle"] = stats_.closed_while_idle;
    nlohmann::json codes = nlohmann::json::object();
    for (auto& [code, n] : stats_.status_counts) codes[std::to_string(code)] = n;
    out["status"] = codes;
    if (options_.win_rate > 0) {
      nlohmann::json notice_codes = nlohmann::json::object();
      for (auto& [code, n] : notices_.status_counts) notice_codes[std::to_string(code)] = n;
      out["notices"] = {{"win_rate", options_.win_rate}, {"bids_chosen", notices_.bids_chosen},
                        {"dropped", notices_.dropped},   {"refused", notices_.refused},
                        {"sent", notices_.sent},         {"errors", notices_.errors},
                        {"unsent", notices_.unsent},     {"status", notice_codes}};
    }
    out["latency_us"] = {{"p50", stats_.latency.Quantile(0.5)},
                         {"p90", stats_.latency.Quantile(0.9)},
                         {"p99", stats_.latency.Quantile(0.99)},
                         {"p999", stats_.latency.Quantile(0.999)},
                         {"max", stats_.latency.max()}};
    std::cout << out.dump() << std::endl;
  }

  friend class Connection;
  bool Measured(Clock::time_point intended) const { return intended >= measure_from_; }

  LoadOptions options_;
  RequestMix mix_;
  asio::io_context io_;
  asio::steady_timer timer_;
  std::mt19937_64 rng_;
  // Apart from rng_, so the bodies sent do not depend on --win-rate.
  std::mt19937_64 win_rng_;
  std::bernoulli_distribution win_;
  std::vector<std::shared_ptr<Connection>> connections_;
  std::vector<Connection*> idle_;
  std::vector<Connection*> closed_;  // closed by the server while idle
  size_t reconnecting_ = 0;          // connects in flight
  tcp::resolver::results_type endpoints_;
  std::deque<Clock::time_point> pending_;
  Clock::time_point start_, measure_from_, end_, next_due_;
  std::chrono::nanoseconds interval_{0};
  Stats stats_;
  int64_t unanswered_ = 0;
  int64_t in_flight_ = 0;
  bool closing_ = false;
  std::vector<std::shared_ptr<NoticeConnection>> notice_connections_;
  std::vector<NoticeConnection*> idle_notices_;
  std::deque<BidNotices> notice_queue_;
  NoticeStats notices_;
};

// Sends `request` and reads its answer into `response`, 5 s at most, then
// calls `done`, which must keep the owner of the stream alive.
template <typename Request, typename Done>
void WriteThenRead(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                   http::response<http::string_body>& response, Request& request, Done done) {
  stream.expires_after(std::chrono::seconds(5));
  http::async_write(stream, request,
                    [&stream, &buffer, &response, done](beast::error_code ec, size_t) {
                      if (ec) return done(ec);
                      http::async_read(stream, buffer, response,
                                       [done](beast::error_code ec2, size_t) { done(ec2); });
                    });
}

void Connection::WatchWhileIdle() {
  idle_ = true;
  stream_.socket().async_wait(tcp::socket::wait_read,
                              [self = shared_from_this()](beast::error_code ec) {
                                if (ec == asio::error::operation_aborted || !self->idle_) return;
                                if (self->generator_->closing()) return;
                                self->idle_ = false;
                                self->connected_ = false;
                                self->generator_->ClosedWhileIdle(self.get());
                              });
}

void Connection::Send(Clock::time_point intended, std::string body, const LoadOptions& options) {
  idle_ = false;
  beast::error_code ignored;
  stream_.socket().cancel(ignored);  // the idle watch
  intended_ = intended;
  measured_ = generator_->Measured(intended);
  request_ = {};
  request_.method(http::verb::post);
  request_.target(options.path);
  request_.version(11);
  request_.set(http::field::host, options.host);
  request_.set(http::field::content_type, "application/json");
  request_.set("x-openrtb-version", "2.6");
  request_.keep_alive(true);
  request_.body() = std::move(body);
  request_.prepare_payload();
  response_ = {};
  WriteThenRead(stream_, buffer_, response_, request_,
                [self = shared_from_this()](beast::error_code ec) { self->Done(ec); });
}

void Connection::Done(beast::error_code ec) {
  if (ec || !response_.keep_alive()) connected_ = false;
  if (!ec && response_.result_int() == 200) generator_->BidAnswered(response_.body());
  generator_->Completed(this, intended_, measured_, response_.result_int(), static_cast<bool>(ec));
}

void NoticeConnection::Fire(BidNotices bid) {
  bid_ = std::move(bid);
  next_ = 0;
  SendNext();
}

void NoticeConnection::SendNext() {
  if (next_ >= bid_.notices.size() || generator_->closing()) {
    generator_->NoticeConnectionIdle(this);
    return;
  }
  const NoticeTarget& notice = bid_.notices[next_];
  std::string endpoint = notice.host + ":" + notice.port;
  if (endpoint == connected_to_) {
    reused_ = true;
    return Send();
  }
  Close();
  tcp::resolver resolver(io_);
  beast::error_code ec;
  auto endpoints = resolver.resolve(notice.host, notice.port, ec);
  if (ec) return Failed();
  // Without waiting, as the bid connections reconnect: the generator's one
  // thread keeps sending bid requests meanwhile.
  stream_.expires_after(std::chrono::seconds(5));
  stream_.async_connect(endpoints, [self = shared_from_this(), endpoint = std::move(endpoint)](
                                       beast::error_code ec, const tcp::endpoint&) mutable {
    if (ec) return self->Failed();
    self->stream_.socket().set_option(tcp::no_delay(true), ec);
    self->connected_to_ = std::move(endpoint);
    self->reused_ = false;
    self->Send();
  });
}

void NoticeConnection::Failed() {
  // The rest of this bid's notices go too; posted, so a dead beacon side
  // does not recurse through the whole queue.
  generator_->NoticeAnswered(0, /*error=*/true);
  next_ = bid_.notices.size();
  asio::post(io_, [self = shared_from_this()] { self->SendNext(); });
}

void NoticeConnection::Send() {
  const NoticeTarget& notice = bid_.notices[next_];
  request_ = {};
  request_.method(http::verb::get);
  request_.target(notice.target);
  request_.version(11);
  request_.set(http::field::host, notice.host);
  request_.keep_alive(true);
  response_ = {};
  WriteThenRead(stream_, buffer_, response_, request_,
                [self = shared_from_this()](beast::error_code ec) { self->Done(ec); });
}

void NoticeConnection::Done(beast::error_code ec) {
  // A kept-alive connection the server closed while it waited ends before
  // any answer: the notice goes again on a fresh connection, as an HTTP
  // client resends a GET after a stale connection, instead of counting as
  // an error. A fresh connection's failure is one.
  const bool stale =
      reused_ && (ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
                  ec == asio::error::broken_pipe || ec == asio::error::eof);
  if (stale && !generator_->closing()) {
    Close();
    return SendNext();
  }
  // At the end, notices cut short by the close are neither answers nor errors.
  if (!generator_->closing())
    generator_->NoticeAnswered(response_.result_int(), static_cast<bool>(ec));
  if (ec || !response_.keep_alive()) Close();
  ++next_;
  SendNext();
}

}  // namespace
}  // namespace rtb::loadtest

int main(int argc, char** argv) {
  using namespace rtb::loadtest;
  absl::StatusOr<LoadOptions> options = ParseLoadOptions(argc, argv);
  if (!options.ok()) {
    std::cerr << "rtb-load: " << options.status().message() << "\n" << LoadUsage();
    return 2;
  }
  absl::StatusOr<RequestMix> mix = RequestMix::Load(*options);
  if (!mix.ok()) {
    std::cerr << "rtb-load: " << mix.status().message() << "\n";
    return 2;
  }
  Generator generator(*std::move(options), *std::move(mix));
  return generator.Run();
}

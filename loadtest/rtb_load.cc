// rtb-load: an open-loop HTTP load generator for bid requests.
//
// Requests are due at a fixed arrival rate whatever the server does; each
// latency is measured from the request's intended send time, not from when a
// connection became free, so a stalled server shows up as latency instead of
// silently lowering the offered load (coordinated omission).
//
//   rtb-load --port 8080 --rate 5000 --duration 10 --requests ../shared/openrtb/iab-2.x
//
// Bodies are the sample requests with a fresh `id` and a device id drawn from
// a Zipf-distributed population (`--devices`, `--zipf`), so some devices are
// hot and most are rare, as on a real exchange. The report is one JSON object
// on stdout. Only loopback targets are accepted.
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
#include "boost/asio/steady_timer.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/tcp_stream.hpp"
#include "boost/beast/http.hpp"
#include "loadtest/latency_histogram.h"
#include "loadtest/load_options.h"
#include "loadtest/request_mix.h"
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

 private:
  void Done(beast::error_code ec);

  beast::tcp_stream stream_;
  Generator* generator_;
  bool connected_ = false;
  Clock::time_point intended_;
  bool measured_ = false;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
  beast::flat_buffer buffer_;
};

class Generator {
 public:
  Generator(LoadOptions options, RequestMix mix)
      : options_(std::move(options)), mix_(std::move(mix)), timer_(io_), rng_(options_.seed) {}

  int Run() {
    tcp::resolver resolver(io_);
    beast::error_code ec;
    auto endpoints = resolver.resolve(options_.host, std::to_string(options_.port), ec);
    if (ec) {
      std::cerr << "rtb-load: cannot resolve " << options_.host << ": " << ec.message() << "\n";
      return 1;
    }
    for (int i = 0; i < options_.connections; ++i) {
      auto conn = std::make_shared<Connection>(io_, this);
      conn->stream().connect(endpoints, ec);
      if (ec) {
        std::cerr << "rtb-load: cannot connect: " << ec.message() << "\n";
        return 1;
      }
      conn->stream().socket().set_option(tcp::no_delay(true));
      conn->set_connected(true);
      connections_.push_back(conn);
      idle_.push_back(conn.get());
    }
    start_ = Clock::now();
    measure_from_ = start_ + std::chrono::milliseconds(static_cast<int64_t>(options_.warmup_s * 1000));
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
    idle_.push_back(conn);
    Dispatch();
  }

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
      timer_.expires_at(end_ + std::chrono::milliseconds(static_cast<int64_t>(options_.drain_s * 1000)));
      timer_.async_wait([this](beast::error_code) {
        unanswered_ = static_cast<int64_t>(pending_.size()) +
                      static_cast<int64_t>(connections_.size() - idle_.size());
        pending_.clear();
        for (auto& c : connections_) c->stream().socket().close();
      });
    }
  }

  void Dispatch() {
    while (!pending_.empty() && !idle_.empty()) {
      Clock::time_point intended = pending_.front();
      pending_.pop_front();
      Connection* conn = idle_.back();
      idle_.pop_back();
      ++stats_.sent;
      conn->Send(intended, mix_.Next(rng_), options_);
    }
  }

  void Reconnect(Connection* conn) {
    tcp::resolver resolver(io_);
    beast::error_code ec;
    auto endpoints = resolver.resolve(options_.host, std::to_string(options_.port), ec);
    conn->stream().socket().close(ec);
    conn->stream().connect(endpoints, ec);
    if (ec) return;  // the connection stays out of the pool
    conn->set_connected(true);
    idle_.push_back(conn);
    Dispatch();
  }

  void Report() {
    const double measured_s =
        std::chrono::duration<double>(end_ - measure_from_).count();
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
    nlohmann::json codes = nlohmann::json::object();
    for (auto& [code, n] : stats_.status_counts) codes[std::to_string(code)] = n;
    out["status"] = codes;
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
  std::vector<std::shared_ptr<Connection>> connections_;
  std::vector<Connection*> idle_;
  std::deque<Clock::time_point> pending_;
  Clock::time_point start_, measure_from_, end_, next_due_;
  std::chrono::nanoseconds interval_{0};
  Stats stats_;
  int64_t unanswered_ = 0;
};

void Connection::Send(Clock::time_point intended, std::string body, const LoadOptions& options) {
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
  stream_.expires_after(std::chrono::seconds(5));
  auto self = shared_from_this();
  http::async_write(stream_, request_, [self](beast::error_code ec, size_t) {
    if (ec) return self->Done(ec);
    http::async_read(self->stream_, self->buffer_, self->response_,
                     [self](beast::error_code ec2, size_t) { self->Done(ec2); });
  });
}

void Connection::Done(beast::error_code ec) {
  if (ec || !response_.keep_alive()) connected_ = false;
  generator_->Completed(this, intended_, measured_, response_.result_int(), static_cast<bool>(ec));
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

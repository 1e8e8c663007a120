// Connection floods against bidder/http_server over loopback, with the
// server's default limits: 20,000 silent connections (and again under a
// cap of 1,000, where evictions and refusals decide), 3,000 from one
// address, and 1,000 slowloris connections. In each, a valid client keeps
// sending bid requests on a keep-alive connection and health checks on new
// connections, and its requests must be answered within their deadlines.
//
// The silent flood is opened by child processes of at most the descriptor
// limit less 100 connections each: two of 10,000 on this machine, whose hard
// limit (20,000) cannot hold both ends of 20,000 connections in one process.
// Each child holds its connections open until the end; the server closes
// them.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bidder/http/http_server.h"
#include "boost/beast/http/verb.hpp"
#include "gtest/gtest.h"
#include "metrics/sharded.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "tests/bidder/http_test_client.h"

namespace rtb::bidder {
namespace {

namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using testing::GetRequest;
using testing::PostRequest;
using testing::TestConnection;
using testing::TestResponse;

// A bid request is answered well within an exchange's tmax (100-120 ms) less
// the network; a health check within a Kubernetes probe's default timeout.
constexpr milliseconds kBidDeadline(100);
constexpr milliseconds kHealthDeadline(1000);

constexpr char kBidBody[] =
    R"({"id":"r1","imp":[{"id":"1","banner":{"w":300,"h":250}}],"tmax":120})";

// Raises the soft descriptor limit to the hard one; returns the soft limit.
int64_t RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  return static_cast<int64_t>(limit.rlim_cur);
}

// The server as the bidder runs it, with its default limits: an ephemeral
// port, two I/O threads, a bid route and a health route.
class FloodServer {
 public:
  explicit FloodServer(const config::ServerConfig& config) {
    auto server = HttpServer::Create(config, registry_);
    EXPECT_TRUE(server.ok()) << server.status();
    if (!server.ok()) return;
    server_ = *std::move(server);
    server_->Route(http::verb::post, "/openrtb2/bid", [](const HttpRequest& req, Responder r) {
      HttpResponse response;
      response.status = req.body.empty() ? 400 : 204;
      r(std::move(response));
    });
    server_->Route(http::verb::get, "/healthz", [](const HttpRequest&, Responder r) {
      HttpResponse response;
      response.content_type = "text/plain";
      response.body = "ok\n";
      r(std::move(response));
    });
    absl::Status started = server_->Start();
    EXPECT_TRUE(started.ok()) << started;
  }

  static config::ServerConfig Defaults() {
    config::ServerConfig config;
    config.port = 0;
    config.io_threads = 2;
    return config;
  }

  uint16_t port() const { return server_ == nullptr ? 0 : server_->port(); }

  // The value of one sample of the exposition ("name{labels}"), or -1.
  double Sample(const std::string& name) {
    const std::string text = prometheus::TextSerializer().Serialize(metrics::Collect(registry_));
    const std::string key = name + " ";
    size_t at = 0;
    while ((at = text.find(key, at)) != std::string::npos) {
      if (at == 0 || text[at - 1] == '\n') return std::stod(text.substr(at + key.size()));
      at += key.size();
    }
    return -1;
  }

  double OpenConnections() { return Sample("bidder_http_open_connections"); }
  double Closed(const std::string& reason) {
    return Sample("bidder_http_closed_connections_total{reason=\"" + reason + "\"}");
  }
  double Refused(const std::string& reason) {
    return Sample("bidder_http_rejected_connections_total{reason=\"" + reason + "\"}");
  }

  // Polls (bounded) until open connections are at most `most`.
  bool WaitForOpenConnectionsAtMost(double most, milliseconds within) {
    const auto deadline = Clock::now() + within;
    while (Clock::now() < deadline) {
      if (OpenConnections() <= most) return true;
      std::this_thread::sleep_for(milliseconds(20));
    }
    return OpenConnections() <= most;
  }

 private:
  prometheus::Registry registry_;
  std::unique_ptr<HttpServer> server_;
};

// A well-behaved client: a bid request every 2 ms on a keep-alive
// connection (reopened if the server closes it), as an exchange sends, and
// on a thread of its own a health check every 50 ms on a new connection, as
// a load balancer probes. Counts what was answered within its deadline.
class ValidClient {
 public:
  struct Stats {
    int bids = 0;
    int bids_late_or_lost = 0;
    int health_checks = 0;
    int health_late_or_lost = 0;
    int reconnects = 0;
    double max_bid_ms = 0;
    double max_health_ms = 0;
  };

  explicit ValidClient(uint16_t port) : port_(port) {
    bids_ = std::thread([this] { SendBids(); });
    probes_ = std::thread([this] { SendHealthChecks(); });
  }
  ~ValidClient() { Stop(); }

  Stats Stop() {
    stop_.store(true);
    if (bids_.joinable()) bids_.join();
    if (probes_.joinable()) probes_.join();
    return stats_;
  }

 private:
  void SendBids() {
    std::unique_ptr<TestConnection> conn;
    while (!stop_.load()) {
      if (conn == nullptr) {
        conn = std::make_unique<TestConnection>(port_, milliseconds(2000));
        if (stats_.bids > 0) ++stats_.reconnects;
      }
      const auto start = Clock::now();
      std::optional<TestResponse> r = conn->RoundTrip(PostRequest("/openrtb2/bid", kBidBody));
      const auto took = Clock::now() - start;
      ++stats_.bids;
      stats_.max_bid_ms = std::max(stats_.max_bid_ms, Ms(took));
      if (!r || r->status != 204 || took > kBidDeadline) ++stats_.bids_late_or_lost;
      if (!r) conn.reset();
      std::this_thread::sleep_for(milliseconds(2));
    }
  }

  void SendHealthChecks() {
    while (!stop_.load()) {
      const auto start = Clock::now();
      TestConnection probe(port_, milliseconds(2000));
      std::optional<TestResponse> h =
          probe.RoundTrip(GetRequest("/healthz", "Connection: close\r\n"));
      const auto took = Clock::now() - start;
      ++stats_.health_checks;
      stats_.max_health_ms = std::max(stats_.max_health_ms, Ms(took));
      if (!h || h->status != 200 || took > kHealthDeadline) ++stats_.health_late_or_lost;
      std::this_thread::sleep_until(start + milliseconds(50));
    }
  }

  static double Ms(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  }

  const uint16_t port_;
  std::atomic<bool> stop_{false};
  // Bid fields are written by the bid thread, health fields by the probe
  // thread; read after both are joined.
  Stats stats_;
  std::thread bids_;
  std::thread probes_;
};

void ExpectAllAnswered(const ValidClient::Stats& stats) {
  EXPECT_GT(stats.bids, 100);
  EXPECT_GT(stats.health_checks, 10);
  EXPECT_EQ(stats.bids_late_or_lost, 0) << "slowest bid " << stats.max_bid_ms << " ms";
  EXPECT_EQ(stats.health_late_or_lost, 0)
      << "slowest health check " << stats.max_health_ms << " ms";
  std::printf(
      "valid client: %d bids (slowest %.1f ms), %d health checks (slowest %.1f ms), %d "
      "reconnects\n",
      stats.bids, stats.max_bid_ms, stats.health_checks, stats.max_health_ms, stats.reconnects);
}

// A non-blocking connection from `source` (127.0.0.0/8) to 127.0.0.1:`port`
// that never sends: the descriptor, or -1.
int StartSilentConnection(uint16_t port, in_addr_t source) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int one = 1;
  // The port is chosen at connect, per destination, so 20,000 connections
  // do not exhaust a source address's ports at bind.
  ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
  sockaddr_in from{};
  from.sin_family = AF_INET;
  from.sin_addr.s_addr = source;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0 && errno != EINPROGRESS)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

in_addr_t LoopbackSource(int index) {
  // 127.0.0.10 upwards; 127.0.0.1 is the valid client's.
  return htonl(INADDR_LOOPBACK + 9 + static_cast<uint32_t>(index));
}

// What became of a flood's connections, from the client's side.
struct FloodCounts {
  int64_t started = 0;           // connect() begun
  int64_t failed = 0;            // socket or connect failed, or refused
  int64_t closed_by_server = 0;  // FIN or reset received
  int64_t open = 0;              // established, still open
  int64_t pending = 0;           // handshake not finished (SYN retransmits)
  double start_seconds = 0;      // time to begin all connects
};

enum class FloodEnd { kOpen, kPending, kClosedByServer, kFailed };

// The state of one flood connection. Reading SO_ERROR clears it, so a
// connection's first final answer (closed by the server, failed) is the one
// to keep, and the error is kept in `*error_seen` across calls: a reset that
// lands between the two reads below is reported by SO_ERROR while TCP_INFO
// still said established, and the next call sees the closed state alone.
FloodEnd Classify(int fd, int* error_seen) {
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return FloodEnd::kFailed;
  int error = 0;
  socklen_t error_len = sizeof(error);
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_len);
  if (error != 0) *error_seen = error;
  error = *error_seen;
  switch (info.tcpi_state) {
    case TCP_ESTABLISHED:
      return FloodEnd::kOpen;
    case TCP_SYN_SENT:
      return FloodEnd::kPending;
    case TCP_CLOSE_WAIT:
    case TCP_LAST_ACK:
      return FloodEnd::kClosedByServer;
    case TCP_CLOSE:
      return error == ECONNRESET || error == EPIPE ? FloodEnd::kClosedByServer : FloodEnd::kFailed;
    default:
      return FloodEnd::kOpen;
  }
}

void Count(FloodEnd state, FloodCounts* counts) {
  switch (state) {
    case FloodEnd::kOpen:
      ++counts->open;
      break;
    case FloodEnd::kPending:
      ++counts->pending;
      break;
    case FloodEnd::kClosedByServer:
      ++counts->closed_by_server;
      break;
    case FloodEnd::kFailed:
      ++counts->failed;
      break;
  }
}

bool ReadAll(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool WriteAll(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// A child process opening silent connections: told the port, it begins
// `count` connects from `sources` addresses at `rate` per second and reports
// when done; told to finish, it waits (at most 20 s) until the server has
// closed them all, reports what became of them and exits. It never closes a
// connection itself before that.
class FloodProcess {
 public:
  FloodProcess(int count, double rate, int first_source, int sources) {
    int command[2];
    int report[2];
    if (::pipe(command) != 0 || ::pipe(report) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(command[1]);
      ::close(report[0]);
      Child(command[0], report[1], count, rate, first_source, sources);
    }
    ::close(command[0]);
    ::close(report[1]);
    command_ = command[1];
    report_ = report[0];
  }
  ~FloodProcess() {
    if (command_ >= 0) ::close(command_);
    if (report_ >= 0) ::close(report_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  bool Begin(uint16_t port) { return pid_ > 0 && WriteAll(command_, &port, sizeof(port)); }
  // Blocks until the child has begun every connect.
  std::optional<FloodCounts> WaitStarted() {
    FloodCounts counts;
    if (!ReadAll(report_, &counts, sizeof(counts))) return std::nullopt;
    return counts;
  }
  std::optional<FloodCounts> Finish() {
    const char go = 'f';
    FloodCounts counts;
    if (!WriteAll(command_, &go, 1) || !ReadAll(report_, &counts, sizeof(counts))) {
      return std::nullopt;
    }
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    return counts;
  }

 private:
  [[noreturn]] static void Child(int command, int report, int count, double rate, int first_source,
                                 int sources) {
    uint16_t port = 0;
    if (!ReadAll(command, &port, sizeof(port))) ::_exit(1);
    std::vector<int> fds;
    fds.reserve(static_cast<size_t>(count));
    FloodCounts counts;
    const auto start = Clock::now();
    for (int i = 0; i < count; ++i) {
      if (i % 50 == 0) {
        std::this_thread::sleep_until(
            start + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(static_cast<double>(i) / rate)));
      }
      const int fd = StartSilentConnection(port, LoopbackSource(first_source + i % sources));
      ++counts.started;
      if (fd < 0) {
        ++counts.failed;
      } else {
        fds.push_back(fd);
      }
    }
    counts.start_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!WriteAll(report, &counts, sizeof(counts))) ::_exit(1);
    char go = 0;
    if (!ReadAll(command, &go, 1)) ::_exit(1);
    // Handshakes the kernel dropped while the server's accept queue was
    // full are retried by TCP (SYN retransmits at 1, 3, 7 and 15 s): wait,
    // bounded, until every connection has been closed or has failed.
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    std::vector<std::optional<FloodEnd>> settled(fds.size());
    std::vector<int> errors(fds.size(), 0);
    FloodCounts end;
    for (;;) {
      end = counts;
      for (size_t i = 0; i < fds.size(); ++i) {
        const FloodEnd state = settled[i] ? *settled[i] : Classify(fds[i], &errors[i]);
        if (state == FloodEnd::kClosedByServer || state == FloodEnd::kFailed) settled[i] = state;
        Count(state, &end);
      }
      if (end.open + end.pending == 0 || Clock::now() >= deadline) break;
      std::this_thread::sleep_for(milliseconds(100));
    }
    WriteAll(report, &end, sizeof(end));
    ::_exit(0);
  }

  pid_t pid_ = -1;
  int command_ = -1;
  int report_ = -1;
};

// 20,000 connections in 2 s: 1.5 times the rate of the flood that locked
// every client out before (10,000 in 1.5 s from one local client). Unpaced,
// the two children and the server share this machine's two cores with the
// valid client, whose deadlines then measure the scheduler more than the
// server (loadtest/run-flood-benchmark.sh measures that case).
constexpr double kFloodRate = 10000;

// Samples the server's open connections every 10 ms and keeps the largest.
class PeakMonitor {
 public:
  explicit PeakMonitor(FloodServer& server) : server_(server) {
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        peak_ = std::max(peak_, server_.OpenConnections());
        std::this_thread::sleep_for(milliseconds(10));
      }
    });
  }
  ~PeakMonitor() { Stop(); }
  double Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    return peak_;
  }

 private:
  FloodServer& server_;
  std::atomic<bool> stop_{false};
  double peak_ = 0;
  std::thread thread_;
};

struct SilentFloodResult {
  FloodCounts clients;
  ValidClient::Stats valid;
  bool drained = false;
  double peak_open = 0;
};

// Opens `connections` silent connections against `server` at `rate` per
// second from 40 source addresses (127.0.0.10 up), from child processes of
// at most the descriptor limit less 100 each (two at 20,000 here), which
// hold them to the end; waits until the server holds none of them; and
// reports.
SilentFloodResult RunSilentFlood(FloodServer& server, int connections, double rate) {
  SilentFloodResult result;
  const int64_t fd_limit = RaiseDescriptorLimit();
  const int most_per_child = static_cast<int>(std::min<int64_t>(connections, fd_limit - 100));
  EXPECT_GT(most_per_child, 1000) << "descriptor limit " << fd_limit;
  if (most_per_child <= 1000) return result;
  const int children = (connections + most_per_child - 1) / most_per_child;
  const int per_child = (connections + children - 1) / children;
  constexpr int kSources = 40;
  std::vector<std::unique_ptr<FloodProcess>> floods;
  for (int c = 0; c < children; ++c) {
    const int count = std::min(per_child, connections - c * per_child);
    floods.push_back(std::make_unique<FloodProcess>(count, rate / children, c * kSources / children,
                                                    kSources / children));
  }

  ValidClient client(server.port());
  PeakMonitor peak(server);
  std::this_thread::sleep_for(milliseconds(300));
  for (auto& flood : floods) EXPECT_TRUE(flood->Begin(server.port()));
  for (auto& flood : floods) {
    std::optional<FloodCounts> c = flood->WaitStarted();
    EXPECT_TRUE(c.has_value());
    if (c) result.clients.start_seconds = std::max(result.clients.start_seconds, c->start_seconds);
  }
  for (auto& flood : floods) {
    std::optional<FloodCounts> c = flood->Finish();
    EXPECT_TRUE(c.has_value());
    if (!c) continue;
    result.clients.started += c->started;
    result.clients.failed += c->failed;
    result.clients.closed_by_server += c->closed_by_server;
    result.clients.open += c->open;
    result.clients.pending += c->pending;
  }
  // The children still held their ends while the server closed its own.
  result.drained = server.WaitForOpenConnectionsAtMost(10, milliseconds(2000));
  result.valid = client.Stop();
  result.peak_open = peak.Stop();
  const FloodCounts& end = result.clients;
  std::printf(
      "flood: %lld connects begun in %.2f s by %d processes; at the end %lld closed by the "
      "server, %lld open, %lld handshakes pending, %lld failed\n",
      static_cast<long long>(end.started), end.start_seconds, children,
      static_cast<long long>(end.closed_by_server), static_cast<long long>(end.open),
      static_cast<long long>(end.pending), static_cast<long long>(end.failed));
  std::printf(
      "server: peak open %.0f; closed first_byte_timeout %.0f, evicted %.0f; refused "
      "max_connections %.0f, peer_limit %.0f; open now %.0f\n",
      result.peak_open, server.Closed("first_byte_timeout"), server.Closed("evicted"),
      server.Refused("max_connections"), server.Refused("peer_limit"), server.OpenConnections());
  return result;
}

TEST(ConnectionFloodTest, TwentyThousandSilentConnectionsDoNotLockOutValidClients) {
  const config::ServerConfig config = FloodServer::Defaults();
  ASSERT_EQ(config.first_byte_timeout_ms, 250);
  FloodServer server(config);
  ASSERT_NE(server.port(), 0);
  constexpr int kConnections = 20000;
  const SilentFloodResult result = RunSilentFlood(server, kConnections, kFloodRate);

  EXPECT_EQ(result.clients.started, kConnections);
  EXPECT_TRUE(result.drained) << "open connections: " << server.OpenConnections();
  // The server closed every flood connection, though the children held
  // their ends. (40 addresses of 500: the per-peer cap does not decide.)
  EXPECT_EQ(result.clients.closed_by_server, kConnections);
  EXPECT_EQ(server.Closed("first_byte_timeout") + server.Closed("evicted") +
                server.Refused("max_connections"),
            kConnections);
  EXPECT_EQ(server.Refused("peer_limit"), 0);
  ExpectAllAnswered(result.valid);
}

TEST(ConnectionFloodTest, SilentFloodOverACapOfOneThousandEvictsAndRefusesButValidClientsWin) {
  config::ServerConfig config = FloodServer::Defaults();
  // A cap the flood reaches: new connections evict the longest-waiting ones
  // from 938 on, and are refused at 1,000 when evictions lag.
  config.max_connections = 1000;
  FloodServer server(config);
  ASSERT_NE(server.port(), 0);
  constexpr int kConnections = 20000;
  const SilentFloodResult result = RunSilentFlood(server, kConnections, kFloodRate);

  EXPECT_EQ(result.clients.started, kConnections);
  EXPECT_TRUE(result.drained) << "open connections: " << server.OpenConnections();
  EXPECT_LE(result.peak_open, 1000);
  EXPECT_GT(server.Closed("evicted"), 0);
  EXPECT_EQ(result.clients.closed_by_server, kConnections);
  // Only never-used connections, and keep-alive ones idle for the first-byte
  // timeout, are evicted: the valid client's keep-alive connection, in
  // steady use, is never closed and every bid is answered in time.
  const ValidClient::Stats& valid = result.valid;
  EXPECT_EQ(valid.reconnects, 0);
  EXPECT_GT(valid.bids, 100);
  EXPECT_EQ(valid.bids_late_or_lost, 0) << "slowest bid " << valid.max_bid_ms << " ms";
  // A health check opens a new connection, which at the cap is one among
  // the flood's: refused when evictions on the other I/O thread lag behind
  // (a cushion of 62 connections here, 625 at the default cap). Most pass.
  EXPECT_LE(valid.health_late_or_lost * 10, valid.health_checks);
  std::printf("valid client: %d bids (slowest %.1f ms), %d of %d health checks late or refused\n",
              valid.bids, valid.max_bid_ms, valid.health_late_or_lost, valid.health_checks);
}

TEST(ConnectionFloodTest, SilentFloodFromOneAddressIsHeldToThePerPeerCap) {
  RaiseDescriptorLimit();
  config::ServerConfig config = FloodServer::Defaults();
  // A first-byte timeout longer than the test: the per-peer cap alone holds.
  config.first_byte_timeout_ms = 60000;
  ASSERT_EQ(config.max_connections_per_peer, 1000);
  FloodServer server(config);
  ASSERT_NE(server.port(), 0);
  ValidClient client(server.port());
  std::this_thread::sleep_for(milliseconds(200));

  constexpr int kConnections = 3000;
  std::vector<int> fds;
  for (int i = 0; i < kConnections; ++i) {
    const int fd = StartSilentConnection(server.port(), LoopbackSource(0));
    if (fd >= 0) fds.push_back(fd);
  }
  // Wait (bounded) until the server has decided on every connection.
  const auto deadline = Clock::now() + milliseconds(10000);
  while (Clock::now() < deadline &&
         server.Refused("peer_limit") + server.OpenConnections() < kConnections) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  std::this_thread::sleep_for(milliseconds(300));
  const ValidClient::Stats stats = client.Stop();
  const double open = server.OpenConnections();
  const double refused = server.Refused("peer_limit");
  for (int fd : fds) ::close(fd);

  std::printf("one address: %zu connects, server holds %.0f, refused %.0f (peer_limit)\n",
              fds.size(), open, refused);
  EXPECT_EQ(fds.size(), static_cast<size_t>(kConnections));
  EXPECT_LE(open, 1000 + 2);  // the cap, and the valid client's connections
  EXPECT_GE(refused, kConnections - 1000);
  EXPECT_EQ(server.Refused("max_connections"), 0);
  ExpectAllAnswered(stats);
}

// Slowloris: each connection sends a request one byte at a time, a byte
// every 100 ms, and is reopened when the server closes it.
TEST(ConnectionFloodTest, SlowlorisConnectionsAreClosedAndValidClientsAnswered) {
  RaiseDescriptorLimit();
  const config::ServerConfig config = FloodServer::Defaults();
  ASSERT_EQ(config.read_timeout_ms, 1000);
  FloodServer server(config);
  ASSERT_NE(server.port(), 0);
  ValidClient client(server.port());

  constexpr int kSlow = 1000;
  const std::string request =
      "POST /openrtb2/bid HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nX-Padding: " +
      std::string(4000, 'a');
  struct Slow {
    int fd = -1;
    size_t sent = 0;
    Clock::time_point opened;
  };
  std::vector<Slow> slow(kSlow);
  int64_t closed_by_server = 0;
  double longest_life_ms = 0;
  const auto open = [&](Slow& s) {
    s.fd = StartSilentConnection(server.port(), LoopbackSource(1 + (&s - slow.data()) % 20));
    s.sent = 0;
    s.opened = Clock::now();
  };
  for (Slow& s : slow) open(s);

  const auto end = Clock::now() + milliseconds(4000);
  while (Clock::now() < end) {
    const auto round = Clock::now();
    for (Slow& s : slow) {
      if (s.fd < 0) {
        open(s);
        continue;
      }
      const char byte = request[s.sent % request.size()];
      const ssize_t n = ::send(s.fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n == 1) {
        ++s.sent;
      } else if (errno != EAGAIN && errno != ENOTCONN) {
        // Closed by the server (EPIPE, ECONNRESET): count and reopen.
        ++closed_by_server;
        longest_life_ms =
            std::max(longest_life_ms,
                     std::chrono::duration<double, std::milli>(Clock::now() - s.opened).count());
        ::close(s.fd);
        s.fd = -1;
      }
    }
    std::this_thread::sleep_until(round + milliseconds(100));
  }
  const ValidClient::Stats stats = client.Stop();
  for (Slow& s : slow) {
    if (s.fd >= 0) ::close(s.fd);
  }
  std::printf(
      "slowloris: %d connections, %lld closed by the server (read timeout %.0f), "
      "longest life seen %.0f ms\n",
      kSlow, static_cast<long long>(closed_by_server), server.Closed("read_timeout"),
      longest_life_ms);
  // Every slow connection is closed about a second after its first byte; in
  // 4 s each is closed at least twice.
  EXPECT_GE(closed_by_server, 2 * kSlow);
  EXPECT_GE(server.Closed("read_timeout"), 2 * kSlow);
  EXPECT_LT(longest_life_ms, 2500);
  ExpectAllAnswered(stats);
}

// At max_connections, with every held connection in use (nothing the
// eviction may take): each connection beyond the cap is closed by the server
// before it sends anything, and every accepted connection keeps being
// answered, through the refusals and after them.
TEST(ConnectionFloodTest,
     ConnectionsBeyondMaxConnectionsAreRefusedAndTheAcceptedKeepBeingAnswered) {
  RaiseDescriptorLimit();
  config::ServerConfig config = FloodServer::Defaults();
  config.max_connections = 64;
  // Keep-alive connections become evictable only after idling this long.
  config.first_byte_timeout_ms = 60000;
  FloodServer server(config);
  ASSERT_NE(server.port(), 0);

  std::vector<std::unique_ptr<TestConnection>> accepted;
  for (int i = 0; i < config.max_connections; ++i) {
    accepted.push_back(std::make_unique<TestConnection>(server.port()));
    std::optional<TestResponse> r =
        accepted.back()->RoundTrip(PostRequest("/openrtb2/bid", kBidBody));
    ASSERT_TRUE(r.has_value()) << "connection " << i;
    ASSERT_EQ(r->status, 204u);
  }
  ASSERT_EQ(server.OpenConnections(), config.max_connections);

  constexpr int kBeyond = 200;
  std::vector<int> refused;
  for (int i = 0; i < kBeyond; ++i) {
    const int fd = StartSilentConnection(server.port(), LoopbackSource(i % 20));
    ASSERT_GE(fd, 0);
    refused.push_back(fd);
    // Accepted connections are answered while the refusals go on.
    if (i % 20 == 0) {
      std::optional<TestResponse> r = accepted[static_cast<size_t>(i) % accepted.size()]->RoundTrip(
          PostRequest("/openrtb2/bid", kBidBody));
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(r->status, 204u);
    }
  }
  // Each refused connection sees its end (EOF or reset) without sending a
  // byte: polled, bounded by 10 s in all.
  int closed = 0;
  const auto deadline = Clock::now() + milliseconds(10000);
  for (int fd : refused) {
    while (Clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) {
        char byte;
        const ssize_t n = ::recv(fd, &byte, 1, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN)) ++closed;
        break;
      }
    }
    ::close(fd);
  }
  EXPECT_EQ(closed, kBeyond);
  EXPECT_EQ(server.Refused("max_connections"), kBeyond);
  EXPECT_EQ(server.Closed("evicted"), 0);
  // Every accepted connection is still open and answered.
  for (size_t i = 0; i < accepted.size(); ++i) {
    std::optional<TestResponse> r = accepted[i]->RoundTrip(PostRequest("/openrtb2/bid", kBidBody));
    ASSERT_TRUE(r.has_value()) << "connection " << i;
    EXPECT_EQ(r->status, 204u);
  }
  EXPECT_EQ(server.OpenConnections(), config.max_connections);
}

}  // namespace
}  // namespace rtb::bidder

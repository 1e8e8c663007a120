#include "bidder/http/http_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bidder/http/internal/http_session.h"
#include "bidder/http/internal/server_core.h"
#include "boost/asio/detail/socket_option.hpp"
#include "boost/asio/post.hpp"
#include "threads/threads.h"

namespace rtb::bidder {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;

namespace internal {

// ---------------------------------------------------------------------------
// Worker

Worker::Worker(ServerCore& core, int index, bool intake)
    : core(core), index(index), intake(intake), ioc(std::make_unique<asio::io_context>(1)) {
  sweep_timer.emplace(*ioc);
}

Worker::~Worker() {
  // Acceptors and timers first, while their io_context exists; then the
  // io_context, whose queued handlers may own the last references to
  // sessions that unregister from this worker.
  listeners.clear();
  sweep_timer.reset();
  work.reset();
  ioc.reset();
}

metrics::ShardedCounter& Worker::RequestCounter(int route_id, unsigned code) {
  const uint32_t key = static_cast<uint32_t>(route_id) * 1000 + code;
  auto it = request_counters_.find(key);
  if (it == request_counters_.end()) {
    it = request_counters_
             .emplace(key, std::make_unique<metrics::ShardedCounter>(
                               core.metrics.requests,
                               metrics::Labels{{"path", core.router.labels()[route_id]},
                                               {"code", std::to_string(code)}}))
             .first;
  }
  return *it->second;
}

bool Worker::EvictOldestIdle() {
  if (!fresh.empty()) {
    fresh.front().session->Evict();
    return true;
  }
  if (!idle.empty() &&
      std::chrono::steady_clock::now() - idle.front().since >= core.limits.first_byte_timeout) {
    idle.front().session->Evict();
    return true;
  }
  return false;
}

namespace {

// Sessions a sweep closes before it lets the worker's other handlers run.
// Connections opened together time out together (a flood reconnects in
// waves), and closing hundreds in one go would hold up the bid requests
// queued behind them for milliseconds.
constexpr int kExpiriesPerTurn = 16;
// The shortest wait between two sweeps.
constexpr std::chrono::milliseconds kMinSweepGap{1};

// Times out the sessions at the front of `list` that entered it at or
// before `cutoff`, each leaving the list as it closes, while `budget`
// lasts.
void ExpireUntil(DeadlineList& list, std::chrono::steady_clock::time_point cutoff, int& budget) {
  while (budget > 0 && !list.empty() && list.front().since <= cutoff) {
    list.front().session->OnDeadline();
    --budget;
  }
}

}  // namespace

std::array<Worker::Phase, 5> Worker::Phases() {
  const ServerLimits& limits = core.limits;
  return {{{&fresh, limits.first_byte_timeout},
           {&idle, limits.idle_timeout},
           {&reading, limits.read_timeout},
           {&writing, limits.idle_timeout},
           {&lingering, limits.linger}}};
}

void Worker::Sweep() {
  const auto now = std::chrono::steady_clock::now();
  const std::array<Phase, 5> phases = Phases();
  int budget = kExpiriesPerTurn;
  for (const auto& [list, timeout] : phases) ExpireUntil(*list, now - timeout, budget);
  if (budget == 0) {
    // More may be due: go on after the handlers already waiting.
    asio::post(*ioc, [this] { Sweep(); });
    return;
  }
  // The next sweep comes at the earliest deadline on the lists, but no
  // sooner than a millisecond (a flood's deadlines are handled in small
  // groups, not one wake-up each) and no later than sweep_interval. A
  // session that joins a list later has a deadline at least the shortest
  // timeout away, which is no sooner than that, so it is never missed.
  auto next = now + core.limits.sweep_interval;
  for (const auto& [list, timeout] : phases) {
    if (!list->empty()) next = std::min(next, list->front().since + timeout);
  }
  sweep_timer->expires_at(std::max(next, now + kMinSweepGap));
  sweep_timer->async_wait([this](boost::system::error_code ec) {
    if (!ec) Sweep();
  });
}

std::string_view Worker::Date() {
  const std::time_t now = std::time(nullptr);
  if (now != date_second_) {
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::snprintf(date_, sizeof(date_), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                  kDays[tm.tm_wday % 7], tm.tm_mday, kMonths[tm.tm_mon % 12], tm.tm_year + 1900,
                  tm.tm_hour, tm.tm_min, tm.tm_sec);
    date_second_ = now;
  }
  return date_;
}

// ---------------------------------------------------------------------------
// ServerCore

void ConnectionSlot::Release() {
  if (core_ != nullptr) std::exchange(core_, nullptr)->Release(peer_);
}

PeerKey PeerKeyOf(const asio::ip::address& address) {
  const asio::ip::address_v6 v6 =
      address.is_v4() ? asio::ip::make_address_v6(asio::ip::v4_mapped, address.to_v4())
                      : address.to_v6();
  return v6.to_bytes();
}

namespace {

ServerLimits LimitsFrom(const config::ServerConfig& config, const HttpServerTuning& tuning) {
  ServerLimits limits;
  limits.max_header_bytes = static_cast<uint32_t>(config.max_header_bytes);
  limits.max_body_bytes = static_cast<uint64_t>(config.max_body_bytes);
  limits.max_inflated_body_bytes = static_cast<size_t>(config.max_inflated_body_bytes);
  limits.first_byte_timeout = std::chrono::milliseconds(config.first_byte_timeout_ms);
  limits.read_timeout = std::chrono::milliseconds(config.read_timeout_ms);
  limits.idle_timeout = std::chrono::milliseconds(config.idle_timeout_ms);
  limits.max_connections = config.max_connections;
  limits.max_connections_per_peer = config.max_connections_per_peer;
  limits.eviction_threshold = config.max_connections - config.max_connections / 16;
  limits.max_response_bytes = tuning.max_response_bytes;
  limits.linger = tuning.linger;
  const auto shortest = std::min(
      {limits.first_byte_timeout, limits.read_timeout, limits.idle_timeout, limits.linger});
  limits.sweep_interval = std::clamp<std::chrono::milliseconds>(
      shortest, std::chrono::milliseconds(1), std::chrono::milliseconds(50));
  return limits;
}

}  // namespace

ServerCore::ServerCore(const config::ServerConfig& config, const HttpServerTuning& tuning,
                       asio::ip::address address, prometheus::Registry& registry)
    : io_threads(config.io_threads),
      intake_thread(config.intake_thread && tuning.accept_mode == AcceptMode::kRoundRobin),
      intake_nice(config.intake_nice),
      address(std::move(address)),
      configured_port(static_cast<uint16_t>(config.port)),
      accept_mode(tuning.accept_mode),
      limits(LimitsFrom(config, tuning)),
      metrics(registry) {}

std::optional<ConnectionSlot> ServerCore::ReserveConnection(const PeerKey& peer,
                                                            RefuseReason* refused) {
  int open = open_.load(std::memory_order_relaxed);
  do {
    if (open >= limits.max_connections) {
      *refused = RefuseReason::kMaxConnections;
      return std::nullopt;
    }
  } while (!open_.compare_exchange_weak(open, open + 1, std::memory_order_acq_rel));
  {
    absl::MutexLock lock(&peers_mu_);
    int& count = peers_[peer];
    if (count < limits.max_connections_per_peer) {
      ++count;
      return ConnectionSlot(this, peer);
    }
  }
  ReleaseGlobal();
  *refused = RefuseReason::kPeerLimit;
  return std::nullopt;
}

int ServerCore::peer_connections(const PeerKey& peer) const {
  absl::MutexLock lock(&peers_mu_);
  auto it = peers_.find(peer);
  return it == peers_.end() ? 0 : it->second;
}

void ServerCore::Release(const PeerKey& peer) {
  {
    absl::MutexLock lock(&peers_mu_);
    auto it = peers_.find(peer);
    // An entry lives while its peer has a connection, so the map is bounded
    // by the open connections.
    if (it != peers_.end() && --it->second <= 0) peers_.erase(it);
  }
  ReleaseGlobal();
}

void ServerCore::ReleaseGlobal() {
  if (open_.fetch_sub(1, std::memory_order_acq_rel) == 1 &&
      draining.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(drain_mu_);
    drained_.notify_all();
  }
}

bool ServerCore::WaitForNoConnections(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(drain_mu_);
  return drained_.wait_until(lock, deadline, [this] { return open_connections() == 0; });
}

void ServerCore::FreezeRoutes() {
  router.Freeze();
  durations.clear();
  for (const std::string& label : router.labels()) {
    durations.push_back(std::make_unique<metrics::ShardedHistogram>(
        metrics.request_duration, metrics::Labels{{"path", label}},
        HttpMetrics::DurationBuckets()));
  }
}

Worker& ServerCore::NextWorker() {
  const uint32_t n = next_worker_.fetch_add(1, std::memory_order_relaxed);
  return *workers[n % static_cast<uint32_t>(io_threads)];
}

namespace {

// ---------------------------------------------------------------------------
// Accepting

// Connections taken from the accept queue per wakeup of a listener, the
// first by async_accept and the rest by non-blocking accepts: a burst of
// connections costs one trip through the reactor per batch instead of one
// each, so the kernel's queue drains faster than a flood fills it. Small,
// because the accepting thread serves requests too: each connection costs
// it tens of microseconds (accept, admission, the session's first read),
// and a batch of 64 held a bid request waiting behind it for milliseconds
// whenever a slowloris crowd reconnected.
constexpr int kAcceptBatch = 8;

void Serve(Worker& worker, Socket socket, const asio::ip::address& peer, ConnectionSlot slot) {
  std::make_shared<Session>(worker, std::move(socket), peer, std::move(slot))->Start();
}

// Near the cap, before a new connection joins `worker`: a connection that
// waits for a request gives way. The intake holds only never-used ones; when
// it has none, the longest-idle keep-alive connection of an I/O thread goes.
void EvictForNewConnection(Worker& worker) {
  if (worker.EvictOldestIdle() || !worker.intake) return;
  Worker& serving = worker.core.NextWorker();
  asio::post(*serving.ioc, [&serving] { serving.EvictOldestIdle(); });
}

// The worker that serves a connection accepted by `owner`'s listener.
Worker& AcceptTarget(Worker& owner) {
  const bool hand_out = owner.core.accept_mode == AcceptMode::kRoundRobin && !owner.intake;
  return hand_out ? owner.core.NextWorker() : owner;
}

// Decides on one accepted connection, on the accepting thread: refuse it, or
// hand it to `target` (after the eviction its arrival calls for).
void Admit(Worker& owner, Worker& target, Socket socket) {
  ServerCore& core = owner.core;
  boost::system::error_code peer_ec;
  const tcp::endpoint peer = socket.remote_endpoint(peer_ec);
  if (peer_ec) {
    // The peer is already gone: nothing to serve or count.
    socket.close(peer_ec);
    return;
  }
  const PeerKey key = PeerKeyOf(peer.address());
  RefuseReason refused = RefuseReason::kMaxConnections;
  std::optional<ConnectionSlot> slot = core.ReserveConnection(key, &refused);
  // At the cap, a connection of this thread that waits for a request gives
  // way at once (its slot is freed when it closes), so a new connection is
  // refused only when none waits here.
  if (!slot && refused == RefuseReason::kMaxConnections && owner.EvictOldestIdle()) {
    if (auto again = core.ReserveConnection(key, &refused)) slot.emplace(std::move(*again));
  }
  if (!slot) {
    core.metrics.Refused(refused).Increment();
    // Closed at once: a refusal costs the accepting thread one close and
    // keeps no descriptor.
    boost::system::error_code close_ec;
    socket.close(close_ec);
    return;
  }
  core.metrics.accepted_connections.Increment();
  // Near the cap the new connection's worker evicts, before the connection
  // joins its idle lists.
  const bool evict = core.NearConnectionLimit();
  if (&target == &owner) {
    if (evict) EvictForNewConnection(target);
    Serve(target, std::move(socket), peer.address(), std::move(*slot));
    return;
  }
  asio::post(*target.ioc, [&target, evict, address = peer.address(), socket = std::move(socket),
                           slot = std::move(*slot)]() mutable {
    if (evict) EvictForNewConnection(target);
    Serve(target, std::move(socket), address, std::move(slot));
  });
}

void Accept(Worker& owner, Listener& listener) {
  Worker& target = AcceptTarget(owner);
  listener.acceptor.async_accept(
      target.ioc->get_executor(),
      [&owner, &listener, &target](boost::system::error_code ec, Socket socket) {
        ServerCore& core = owner.core;
        if (ec == asio::error::operation_aborted || !listener.acceptor.is_open()) return;
        if (ec) {
          // Out of descriptors or memory, or the peer gave up before accept:
          // pause briefly instead of spinning on the error.
          core.metrics.accept_errors.Increment();
          listener.retry.expires_after(std::chrono::milliseconds(10));
          listener.retry.async_wait([&owner, &listener](boost::system::error_code wait_ec) {
            if (!wait_ec && listener.acceptor.is_open()) Accept(owner, listener);
          });
          return;
        }
        Admit(owner, target, std::move(socket));
        for (int i = 1; i < kAcceptBatch; ++i) {
          Worker& next = AcceptTarget(owner);
          boost::system::error_code batch_ec;
          Socket more = listener.acceptor.accept(next.ioc->get_executor(), batch_ec);
          // would_block ends the batch; other errors come back to the
          // asynchronous accept, which counts them and pauses.
          if (batch_ec) break;
          Admit(owner, next, std::move(more));
        }
        Accept(owner, listener);
      });
}

absl::Status Listen(Listener& listener, const tcp::endpoint& endpoint, bool reuse_port) {
  boost::system::error_code ec;
  Acceptor& acceptor = listener.acceptor;
  const auto fail = [&](const char* what) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", endpoint.address().to_string(),
                                               ":", endpoint.port(), ": ", what, ": ",
                                               ec.message()));
  };
  acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail("socket");
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR");
  if (reuse_port) {
    acceptor.set_option(asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>(true), ec);
    if (ec) return fail("SO_REUSEPORT");
  }
  acceptor.bind(endpoint, ec);
  if (ec) return fail("bind");
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen");
  // The accept batches' synchronous accepts must not block.
  acceptor.non_blocking(true, ec);
  if (ec) return fail("non-blocking mode");
  return absl::OkStatus();
}

}  // namespace
}  // namespace internal

// ---------------------------------------------------------------------------
// HttpServer

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Create(const config::ServerConfig& config,
                                                               prometheus::Registry& registry) {
  return Create(config, registry, HttpServerTuning{});
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Create(const config::ServerConfig& config,
                                                               prometheus::Registry& registry,
                                                               const HttpServerTuning& tuning) {
  boost::system::error_code ec;
  asio::ip::address address = asio::ip::make_address(config.listen_address, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "server.listen_address: not an IPv4 or IPv6 address: \"", config.listen_address, "\""));
  }
  if (config.port < 0 || config.port > 65535) {
    return absl::InvalidArgumentError("server.port: must be in [0, 65535]");
  }
  if (config.io_threads < 1) return absl::InvalidArgumentError("server.io_threads: must be >= 1");
  if (config.max_header_bytes < 1 || config.max_body_bytes < 1 ||
      config.max_inflated_body_bytes < 1) {
    return absl::InvalidArgumentError("server: header and body limits must be > 0");
  }
  if (config.first_byte_timeout_ms < 1 || config.read_timeout_ms < 1 ||
      config.idle_timeout_ms < 1) {
    return absl::InvalidArgumentError("server: first-byte, read and idle timeouts must be > 0");
  }
  if (config.max_connections < 1) {
    return absl::InvalidArgumentError("server.max_connections: must be >= 1");
  }
  if (config.max_connections_per_peer < 1) {
    return absl::InvalidArgumentError("server.max_connections_per_peer: must be >= 1");
  }
  return std::unique_ptr<HttpServer>(new HttpServer(
      std::make_unique<internal::ServerCore>(config, tuning, std::move(address), registry)));
}

HttpServer::HttpServer(std::unique_ptr<internal::ServerCore> core) : core_(std::move(core)) {}

HttpServer::~HttpServer() {
  Shutdown(std::chrono::milliseconds(0));
  // Workers go before the rest of the core: destroying their io_contexts
  // destroys the sessions still queued there, which use the core's metrics.
  core_->workers.clear();
}

namespace {

void AddRoute(internal::ServerCore& core, http::verb method, std::string path, bool prefix,
              HttpHandler handler) {
  const std::string shown = path;
  if (core.router.frozen() ||
      !core.router.Add(method, std::move(path), prefix, std::move(handler))) {
    std::fprintf(stderr, "HttpServer: route %s %s%s %s\n",
                 std::string(http::to_string(method)).c_str(), shown.c_str(), prefix ? "*" : "",
                 core.router.frozen() ? "added after Start()" : "registered twice");
    std::abort();
  }
}

}  // namespace

void HttpServer::Route(http::verb method, std::string path, HttpHandler handler) {
  AddRoute(*core_, method, std::move(path), false, std::move(handler));
}

void HttpServer::RoutePrefix(http::verb method, std::string prefix, HttpHandler handler) {
  AddRoute(*core_, method, std::move(prefix), true, std::move(handler));
}

absl::Status HttpServer::Start() {
  internal::ServerCore& core = *core_;
  if (core.started) return absl::FailedPreconditionError("HttpServer already started");
  core.FreezeRoutes();

  for (int i = 0; i < core.io_threads; ++i) {
    core.workers.push_back(std::make_unique<internal::Worker>(core, i, /*intake=*/false));
  }
  if (core.intake_thread) {
    core.workers.push_back(
        std::make_unique<internal::Worker>(core, core.io_threads, /*intake=*/true));
  }
  const bool reuse_port = core.accept_mode == AcceptMode::kReusePort;
  const int listener_count = reuse_port ? core.io_threads : 1;
  uint16_t port = core.configured_port;
  for (int i = 0; i < listener_count; ++i) {
    internal::Worker& worker = core.intake_thread ? *core.workers.back() : *core.workers[i];
    worker.listeners.push_back(std::make_unique<internal::Listener>(*worker.ioc));
    internal::Listener& listener = *worker.listeners.back();
    if (absl::Status s = internal::Listen(listener, tcp::endpoint(core.address, port), reuse_port);
        !s.ok()) {
      core.workers.clear();
      return s;
    }
    // Port 0: the first bind picks the port the other listeners share.
    port = listener.acceptor.local_endpoint().port();
  }
  core.bound_port = port;
  core.started = true;

  for (auto& worker_ptr : core.workers) {
    internal::Worker& worker = *worker_ptr;
    worker.work.emplace(worker.ioc->get_executor());
    for (auto& listener : worker.listeners) {
      asio::post(*worker.ioc, [&worker, &listener] { internal::Accept(worker, *listener); });
    }
    asio::post(*worker.ioc, [&worker] { worker.Sweep(); });
    worker.thread = std::thread([&worker] {
      const std::string name =
          worker.intake ? "rtb-intake" : "rtb-io-" + std::to_string(worker.index);
      threads::NameThisThread(name);
      if (worker.intake) threads::LowerThisThreadPriority(worker.core.intake_nice);
      worker.ioc->run();
    });
  }
  return absl::OkStatus();
}

uint16_t HttpServer::port() const { return core_->bound_port; }

bool HttpServer::draining() const { return core_->draining.load(std::memory_order_acquire); }

void HttpServer::Shutdown(std::chrono::milliseconds grace) {
  internal::ServerCore& core = *core_;
  core.draining.store(true, std::memory_order_release);
  if (!core.started || core.stopped) return;
  core.stopped = true;

  // Stop accepting and close idle connections; requests in flight go on.
  for (auto& worker_ptr : core.workers) {
    internal::Worker& worker = *worker_ptr;
    asio::post(*worker.ioc, [&worker] {
      for (auto& listener : worker.listeners) {
        boost::system::error_code ec;
        listener->acceptor.close(ec);
        listener->retry.cancel();
      }
      for (internal::Session* session : worker.sessions) session->Drain();
    });
  }
  core.WaitForNoConnections(std::chrono::steady_clock::now() + grace);

  // What is left after the grace period is closed, and the threads stop once
  // their last handlers have run (bounded: the sockets are closed).
  for (auto& worker_ptr : core.workers) {
    internal::Worker& worker = *worker_ptr;
    asio::post(*worker.ioc, [&worker] {
      for (internal::Session* session : worker.sessions) session->ForceClose();
      worker.sweep_timer->cancel();
    });
    worker.work.reset();
  }
  core.WaitForNoConnections(std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
  for (auto& worker : core.workers) worker->ioc->stop();
  for (auto& worker : core.workers) {
    if (worker->thread.joinable()) worker->thread.join();
  }
}

}  // namespace rtb::bidder

// State shared by the pieces of the HTTP server: limits, routes, metrics,
// the connection counts (all peers, and per remote address), and one Worker
// per I/O thread (its io_context, listening sockets, open sessions, the
// sessions of each phase in the order of their deadlines and the sweep that
// enforces them, inflater and per-thread metric handles), plus the intake's
// Worker when new connections have a thread of their own.
//
// Thread-safety: ServerCore's const parts are read by all I/O threads once
// the server has started; its atomics are shared, and the per-peer counts
// are behind a mutex taken once when a connection is accepted and once when
// it ends. A Worker is touched only by its own I/O thread while the server
// runs.
#ifndef RTB_BIDDER_HTTP_INTERNAL_SERVER_CORE_H_
#define RTB_BIDDER_HTTP_INTERNAL_SERVER_CORE_H_

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "bidder/http/http_server.h"
#include "bidder/http/internal/body_inflater.h"
#include "bidder/http/internal/http_metrics.h"
#include "bidder/http/internal/router.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/intrusive/list.hpp"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"

namespace rtb::bidder::internal {

using IoExecutor = boost::asio::io_context::executor_type;
using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, IoExecutor>;
using Acceptor = boost::asio::basic_socket_acceptor<boost::asio::ip::tcp, IoExecutor>;

struct ServerLimits {
  uint32_t max_header_bytes = 0;
  uint64_t max_body_bytes = 0;
  size_t max_inflated_body_bytes = 0;
  // From accept to the first byte of the first request.
  std::chrono::milliseconds first_byte_timeout{0};
  std::chrono::milliseconds read_timeout{0};
  // Between requests; also bounds the time a client may take to receive a
  // response.
  std::chrono::milliseconds idle_timeout{0};
  int max_connections = 0;
  int max_connections_per_peer = 0;
  // Open connections from which each new one evicts the connection of its
  // worker that has waited longest for a request: max_connections less a
  // sixteenth of it (nginx starts reusing idle connections at the same
  // point), so that evictions, which a worker runs a moment later, keep the
  // count under the cap while idle connections remain.
  int eviction_threshold = 0;
  size_t max_response_bytes = 0;
  std::chrono::milliseconds linger{0};
  // The longest a worker waits between two sweeps for sessions past their
  // deadline: the shortest timeout, within [1 ms, 50 ms] (Worker::Sweep).
  std::chrono::milliseconds sweep_interval{0};
};

class Session;
class ServerCore;

// A remote IP address as a key of the per-peer counts: IPv6 bytes, IPv4 as
// v4-mapped IPv6, so one client counts once on a dual-stack listener.
using PeerKey = std::array<uint8_t, 16>;
PeerKey PeerKeyOf(const boost::asio::ip::address& address);

// A session's place in one of its worker's deadline lists. A list holds the
// sessions in one phase (waiting for the first byte, idle between requests,
// reading a request, writing a response, lingering), which all share that
// phase's timeout; so the order in which they joined it is the order of
// their deadlines, and the worker's sweep looks only at the front. This
// costs a request two list moves and no timer operation, where a deadline
// per socket operation re-arms a timer for each read and write.
struct DeadlineEntry {
  boost::intrusive::list_member_hook<> hook;
  Session* session = nullptr;
  // When the session entered the phase.
  std::chrono::steady_clock::time_point since;
  // The list the entry is on, or null (while a handler runs).
  boost::intrusive::list<DeadlineEntry, boost::intrusive::member_hook<
                                            DeadlineEntry, boost::intrusive::list_member_hook<>,
                                            &DeadlineEntry::hook>>* list = nullptr;
};
using DeadlineList = std::remove_pointer_t<decltype(DeadlineEntry::list)>;

// A listening socket and the timer that paces retries after accept errors
// such as EMFILE.
struct Listener {
  explicit Listener(boost::asio::io_context& ioc) : acceptor(ioc.get_executor()), retry(ioc) {}
  Acceptor acceptor;
  boost::asio::steady_timer retry;
};

class Worker {
 public:
  Worker(ServerCore& core, int index, bool intake);
  ~Worker();

  ServerCore& core;
  const int index;
  // The intake: it accepts and holds each new connection until its first
  // request is complete, then hands the connection to an I/O thread.
  const bool intake;
  // Destroyed explicitly (before the rest of the worker), which destroys the
  // sessions its queued handlers still own while the worker is intact.
  std::unique_ptr<boost::asio::io_context> ioc;
  std::optional<boost::asio::executor_work_guard<IoExecutor>> work;
  std::vector<std::unique_ptr<Listener>> listeners;
  std::list<Session*> sessions;
  // Sessions by phase, each list longest-waiting first (see DeadlineEntry).
  // The first two are the sessions waiting for a request, which eviction
  // closes first.
  DeadlineList fresh;      // new, before their first byte
  DeadlineList idle;       // keep-alive, between requests
  DeadlineList reading;    // a request begun and not yet complete
  DeadlineList writing;    // a response being written
  DeadlineList lingering;  // closing, reading what the client still sends
  // Paces Sweep(); reset before the io_context is destroyed.
  std::optional<boost::asio::steady_timer> sweep_timer;
  BodyInflater inflater;
  std::thread thread;

  metrics::ShardedCounter& RequestCounter(int route_id, unsigned code);
  // Closes a session that waits for a request: the new one that has waited
  // longest for its first byte, else the keep-alive one idle longest if it
  // has been idle for first_byte_timeout at least (a connection that has
  // sent a request has shown it is a client, and one in steady use is about
  // to send the next). False when there is none.
  bool EvictOldestIdle();
  // A phase's deadline list and its timeout.
  struct Phase {
    DeadlineList* list;
    std::chrono::milliseconds timeout;
  };
  // Every phase with a timeout, the lists Sweep() enforces.
  std::array<Phase, 5> Phases();
  // Closes the sessions that have outlasted their phase's timeout, a few
  // at a time between the worker's other handlers, then waits for the next
  // deadline (at least 1 ms, at most limits.sweep_interval) and sweeps
  // again, until the timer is cancelled or the io_context stops.
  void Sweep();
  // The Date header value (IMF-fixdate), formatted once per second.
  std::string_view Date();

 private:
  absl::flat_hash_map<uint32_t, std::unique_ptr<metrics::ShardedCounter>> request_counters_;
  int64_t date_second_ = -1;
  char date_[32] = {};
};

// Holds one of the max_connections slots and one of its peer's
// max_connections_per_peer; both are released by Release() or when it is
// destroyed, unless moved from.
class ConnectionSlot {
 public:
  ConnectionSlot() = default;
  ConnectionSlot(ServerCore* core, const PeerKey& peer) : core_(core), peer_(peer) {}
  ConnectionSlot(ConnectionSlot&& other) noexcept
      : core_(std::exchange(other.core_, nullptr)), peer_(other.peer_) {}
  ConnectionSlot& operator=(ConnectionSlot&&) = delete;
  ~ConnectionSlot() { Release(); }
  void Release();

 private:
  ServerCore* core_ = nullptr;
  PeerKey peer_{};
};

class ServerCore {
 public:
  ServerCore(const config::ServerConfig& config, const HttpServerTuning& tuning,
             boost::asio::ip::address address, prometheus::Registry& registry);

  const int io_threads;
  // The server.intake_thread and server.intake_nice settings.
  const bool intake_thread;
  const int intake_nice;
  const boost::asio::ip::address address;
  const uint16_t configured_port;
  const AcceptMode accept_mode;
  const ServerLimits limits;
  HttpMetrics metrics;
  Router router;
  // Per route id, resolved when the server starts.
  std::vector<std::unique_ptr<metrics::ShardedHistogram>> durations;
  // The I/O threads' workers, then the intake's when there is one.
  std::vector<std::unique_ptr<Worker>> workers;

  std::atomic<bool> draining{false};
  bool started = false;
  bool stopped = false;
  uint16_t bound_port = 0;

  // A slot for a new connection from `peer`, or nothing (and the reason in
  // `refused`) when max_connections are open, or max_connections_per_peer
  // from `peer`.
  std::optional<ConnectionSlot> ReserveConnection(const PeerKey& peer, RefuseReason* refused);
  int open_connections() const { return open_.load(std::memory_order_acquire); }
  // Open connections from `peer`.
  int peer_connections(const PeerKey& peer) const;
  // True once open connections reach limits.eviction_threshold.
  bool NearConnectionLimit() const {
    return open_.load(std::memory_order_relaxed) >= limits.eviction_threshold;
  }
  // Waits until no connection is open or `deadline` passes; true when none is.
  bool WaitForNoConnections(std::chrono::steady_clock::time_point deadline);
  // Freezes the routes and resolves each route's duration histogram; once,
  // before the first session is served.
  void FreezeRoutes();
  // Round-robin choice of the I/O thread's worker that serves the next
  // connection (never the intake).
  Worker& NextWorker();

 private:
  friend class ConnectionSlot;
  void Release(const PeerKey& peer);
  void ReleaseGlobal();

  std::atomic<int> open_{0};
  mutable absl::Mutex peers_mu_;
  absl::flat_hash_map<PeerKey, int> peers_ ABSL_GUARDED_BY(peers_mu_);
  std::atomic<uint32_t> next_worker_{0};
  std::mutex drain_mu_;
  std::condition_variable drained_;
};

}  // namespace rtb::bidder::internal

#endif  // RTB_BIDDER_HTTP_INTERNAL_SERVER_CORE_H_

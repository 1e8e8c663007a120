#include "storage/hbase/transport.h"

#include <condition_variable>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "storage/hbase/errors.h"

namespace rtb::storage::hbase {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct Transport::Attempt {
  std::shared_ptr<const std::string> request;
  Deadline deadline;
  bool idempotent = false;
  bool failover = false;
  size_t endpoint = 0;
  size_t endpoints_tried = 1;
  bool resent = false;
  bool fresh = false;
  ReplyCallback done;
};

Transport::Transport(TransportSettings settings, std::shared_ptr<HBaseStoreStats> stats)
    : settings_(settings), stats_(std::move(stats)), work_(asio::make_work_guard(io_)) {}

absl::StatusOr<std::unique_ptr<Transport>> Transport::Start(
    const std::vector<HostPort>& endpoints, TransportSettings settings,
    std::shared_ptr<HBaseStoreStats> stats) {
  std::unique_ptr<Transport> t(new Transport(settings, std::move(stats)));
  tcp::resolver resolver(t->io_);
  for (const HostPort& hp : endpoints) {
    boost::system::error_code error;
    tcp::resolver::results_type results =
        resolver.resolve(hp.host, absl::StrCat(hp.port), tcp::resolver::numeric_service, error);
    if (error || results.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot resolve hbase gateway ", hp.host, ":",
                                                     hp.port, ": ", error.message()));
    }
    // Prefer IPv4, which is what the gateway binds by default.
    tcp::endpoint chosen = results.begin()->endpoint();
    for (const auto& entry : results) {
      if (entry.endpoint().address().is_v4()) {
        chosen = entry.endpoint();
        break;
      }
    }
    t->pools_.push_back(std::make_unique<EndpointPool>(
        t->io_, chosen, absl::StrCat(hp.host, ":", hp.port), settings.pool, t->stats_.get()));
  }
  for (int i = 0; i < settings.io_threads; ++i) {
    t->threads_.emplace_back([io = &t->io_] {
      // A handler that throws must not take the store down with it.
      while (true) {
        try {
          io->run();
          return;
        } catch (...) {
        }
      }
    });
  }
  return t;
}

Transport::~Transport() {
  stopping_.store(true, std::memory_order_release);
  for (auto& pool : pools_) {
    EndpointPool* p = pool.get();
    asio::post(p->strand(), [p] { p->Shutdown(); });
  }
  work_.reset();
  for (std::thread& t : threads_) t.join();
}

size_t Transport::PickEndpoint() {
  return next_endpoint_.fetch_add(1, std::memory_order_relaxed) % pools_.size();
}

void Transport::Send(std::shared_ptr<const std::string> request, Deadline deadline, bool idempotent,
                     std::optional<size_t> endpoint, ReplyCallback done) {
  if (stopping_.load(std::memory_order_acquire)) {
    done(absl::CancelledError("the store is shutting down"));
    return;
  }
  if (request->size() > settings_.pool.max_message_bytes) {
    done(absl::InvalidArgumentError(
        absl::StrCat("request of ", request->size(), " bytes exceeds max_message_bytes")));
    return;
  }
  auto attempt = std::make_shared<Attempt>();
  attempt->request = std::move(request);
  attempt->deadline = deadline;
  attempt->idempotent = idempotent;
  attempt->failover = !endpoint.has_value();
  attempt->endpoint = endpoint.value_or(PickEndpoint());
  attempt->done = std::move(done);
  Run(std::move(attempt));
}

void Transport::Run(std::shared_ptr<Attempt> a) {
  EndpointPool* pool = pools_[a->endpoint].get();
  asio::post(pool->strand(), [this, a, pool] {
    if (Clock::now() >= a->deadline) {
      a->done(absl::DeadlineExceededError("deadline passed before the request was sent"));
      return;
    }
    pool->Acquire(
        a->deadline, a->fresh, [this, a, pool](absl::StatusOr<std::shared_ptr<Connection>> c) {
          if (!c.ok()) {
            // Nothing was sent, so another gateway may take the request.
            if (a->failover && absl::IsUnavailable(c.status()) &&
                a->endpoints_tried < pools_.size() && Clock::now() < a->deadline) {
              ++a->endpoints_tried;
              a->endpoint = (a->endpoint + 1) % pools_.size();
              a->fresh = false;
              Run(a);
              return;
            }
            a->done(c.status());
            return;
          }
          std::shared_ptr<Connection> connection = *std::move(c);
          const bool reused = connection->exchanges() > 0;
          stats_->requests.fetch_add(1, std::memory_order_relaxed);
          connection->Exchange(
              a->request, a->deadline, [this, a, pool, connection, reused](ExchangeResult r) {
                pool->Release(connection, r.reusable);
                // A pooled connection the gateway had dropped: the request most
                // likely never reached it.
                if (!r.reply.ok() && r.nothing_received && reused && a->idempotent && !a->resent &&
                    absl::IsUnavailable(r.reply.status()) && Clock::now() < a->deadline) {
                  a->resent = true;
                  a->fresh = true;
                  stats_->retries.fetch_add(1, std::memory_order_relaxed);
                  Run(a);
                  return;
                }
                if (!r.reply.ok()) {
                  r.reply = absl::Status(r.reply.status().code(),
                                         absl::StrCat("hbase gateway ", pool->name(), ": ",
                                                      r.reply.status().message()));
                }
                a->done(std::move(r.reply));
              });
        });
  });
}

Reply Transport::Wait(Deadline deadline, const std::function<void(ReplyCallback)>& start) {
  struct State {
    std::mutex mutex;
    std::condition_variable ready;
    std::optional<Reply> reply;
  };
  auto state = std::make_shared<State>();
  start([state](Reply reply) {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->reply = std::move(reply);
    state->ready.notify_all();
  });
  std::unique_lock<std::mutex> lock(state->mutex);
  if (!state->ready.wait_until(lock, deadline, [&] { return state->reply.has_value(); })) {
    return absl::DeadlineExceededError("no answer from hbase before the deadline");
  }
  return std::move(*state->reply);
}

}  // namespace rtb::storage::hbase

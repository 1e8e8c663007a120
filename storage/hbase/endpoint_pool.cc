#include "storage/hbase/endpoint_pool.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "boost/asio/bind_executor.hpp"
#include "boost/asio/post.hpp"

namespace rtb::storage::hbase {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

EndpointPool::EndpointPool(asio::io_context& io, asio::ip::tcp::endpoint address, std::string name,
                           PoolSettings settings, HBaseStoreStats* stats)
    : strand_(asio::make_strand(io)),
      address_(std::move(address)),
      name_(std::move(name)),
      settings_(settings),
      stats_(stats) {}

void EndpointPool::Acquire(Clock::time_point deadline, bool fresh, AcquireCallback done) {
  if (shut_down_) {
    done(absl::CancelledError("the store is shutting down"));
    return;
  }
  while (!idle_.empty()) {
    std::shared_ptr<Connection> c = std::move(idle_.back());
    idle_.pop_back();
    if (!fresh && c->LooksAlive()) {
      done(std::move(c));
      return;
    }
    if (!fresh) stats_->broken_connections.fetch_add(1, std::memory_order_relaxed);
    c->Close();
    Forget(c);
    if (fresh) break;
  }
  if (static_cast<int>(open_.size()) < settings_.pool_size) {
    Open(deadline, std::move(done));
    return;
  }
  auto timer = std::make_unique<asio::steady_timer>(strand_);
  timer->expires_at(deadline);
  const uint64_t id = next_waiter_id_++;
  asio::steady_timer& waiting = *timer;
  waiters_.push_back(Waiter{id, deadline, std::move(done), std::move(timer)});
  waiting.async_wait(
      asio::bind_executor(strand_, [this, id](const boost::system::error_code& error) {
        if (error) return;  // served (or shut down) before the deadline
        // Served between the expiry and this handler: nothing to do.
        auto it = std::find_if(waiters_.begin(), waiters_.end(),
                               [id](const Waiter& w) { return w.id == id; });
        if (it == waiters_.end()) return;
        AcquireCallback expired = std::move(it->done);
        waiters_.erase(it);
        expired(absl::DeadlineExceededError(
            absl::StrCat("no free connection to ", name_, " before the deadline")));
      }));
}

void EndpointPool::Open(Clock::time_point deadline, AcquireCallback done) {
  auto c = std::make_shared<Connection>(strand_, settings_.framing, settings_.max_message_bytes);
  open_.push_back(c);
  c->Connect(address_, settings_.connect_timeout, deadline,
             [this, c, done = std::move(done)](absl::Status status) {
               if (status.ok() && shut_down_)
                 status = absl::CancelledError("the store is shutting down");
               if (!status.ok()) {
                 stats_->connect_failures.fetch_add(1, std::memory_order_relaxed);
                 c->Close();
                 Forget(c);
                 done(absl::Status(status.code(),
                                   absl::StrCat("hbase gateway ", name_, ": ", status.message())));
                 ServeWaiter();
                 return;
               }
               stats_->connects.fetch_add(1, std::memory_order_relaxed);
               done(c);
             });
}

void EndpointPool::Release(std::shared_ptr<Connection> connection, bool reusable) {
  if (!reusable || shut_down_) {
    if (!reusable) stats_->broken_connections.fetch_add(1, std::memory_order_relaxed);
    connection->Close();
    Forget(connection);
    ServeWaiter();
    return;
  }
  if (!waiters_.empty()) {
    Waiter w = std::move(waiters_.front());
    waiters_.pop_front();
    w.timer->cancel();
    w.done(std::move(connection));
    return;
  }
  idle_.push_back(std::move(connection));
}

void EndpointPool::ServeWaiter() {
  if (waiters_.empty() || shut_down_ || static_cast<int>(open_.size()) >= settings_.pool_size) {
    return;
  }
  Waiter w = std::move(waiters_.front());
  waiters_.pop_front();
  w.timer->cancel();
  Open(w.deadline, std::move(w.done));
}

void EndpointPool::Forget(const std::shared_ptr<Connection>& connection) {
  auto it = std::find(open_.begin(), open_.end(), connection);
  if (it != open_.end()) open_.erase(it);
}

void EndpointPool::Shutdown() {
  shut_down_ = true;
  std::list<Waiter> waiters = std::move(waiters_);
  waiters_.clear();
  for (Waiter& w : waiters) {
    w.timer->cancel();
    w.done(absl::CancelledError("the store is shutting down"));
  }
  idle_.clear();
  for (const std::shared_ptr<Connection>& c : open_) c->Close();
  open_.clear();
}

}  // namespace rtb::storage::hbase

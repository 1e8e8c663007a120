// The store's network side: its I/O threads, one EndpointPool per gateway,
// and request/reply exchanges with deadlines. Requests and replies are whole
// Thrift messages (see wire.h); what they mean is the caller's business.
#ifndef RTB_STORAGE_HBASE_TRANSPORT_H_
#define RTB_STORAGE_HBASE_TRANSPORT_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "storage/hbase/endpoint_pool.h"
#include "storage/hbase/options.h"
#include "storage/hbase_store.h"

namespace rtb::storage::hbase {

using Deadline = std::chrono::steady_clock::time_point;
using Reply = absl::StatusOr<std::string>;
using ReplyCallback = std::function<void(Reply)>;

struct TransportSettings {
  PoolSettings pool;
  int io_threads = 1;
};

class Transport {
 public:
  // Resolves every endpoint; fails when one does not resolve.
  static absl::StatusOr<std::unique_ptr<Transport>> Start(const std::vector<HostPort>& endpoints,
                                                          TransportSettings settings,
                                                          std::shared_ptr<HBaseStoreStats> stats);
  // Fails calls in flight with Cancelled and joins the I/O threads.
  ~Transport();

  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  size_t endpoint_count() const { return pools_.size(); }
  const std::string& endpoint_name(size_t endpoint) const { return pools_[endpoint]->name(); }
  // The next endpoint in round-robin order.
  size_t PickEndpoint();
  boost::asio::io_context& io() { return io_; }
  HBaseStoreStats& stats() { return *stats_; }

  // Sends `request` and calls `done` exactly once, on an I/O thread, with the
  // reply or an error, at the latest just after `deadline`.
  //   endpoint:   the gateway to use; nullopt picks one round-robin and moves
  //               on to the next when a gateway cannot be reached (the
  //               request never left, so that is safe for any request).
  //   idempotent: the request may be sent again on a fresh connection when a
  //               reused one turns out to be broken before any reply byte.
  void Send(std::shared_ptr<const std::string> request, Deadline deadline, bool idempotent,
            std::optional<size_t> endpoint, ReplyCallback done);

  // Runs `start` (which must call its callback exactly once) and waits for
  // its reply until `deadline`. Returns DeadlineExceeded at the deadline even
  // when the reply is still on its way; it is dropped when it arrives.
  static Reply Wait(Deadline deadline, const std::function<void(ReplyCallback)>& start);

 private:
  Transport(TransportSettings settings, std::shared_ptr<HBaseStoreStats> stats);

  struct Attempt;
  void Run(std::shared_ptr<Attempt> attempt);

  TransportSettings settings_;
  std::shared_ptr<HBaseStoreStats> stats_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::vector<std::unique_ptr<EndpointPool>> pools_;
  std::vector<std::thread> threads_;
  std::atomic<size_t> next_endpoint_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_TRANSPORT_H_

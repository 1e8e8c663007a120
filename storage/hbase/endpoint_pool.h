// The connections to one Thrift2 gateway: at most `pool_size` of them, idle
// ones reused newest first after a liveness check, broken ones replaced.
// Calls beyond the pool size wait, in arrival order, for a connection to come
// back or for their deadline.
#ifndef RTB_STORAGE_HBASE_ENDPOINT_POOL_H_
#define RTB_STORAGE_HBASE_ENDPOINT_POOL_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/steady_timer.hpp"
#include "storage/hbase/connection.h"
#include "storage/hbase_store.h"

namespace rtb::storage::hbase {

struct PoolSettings {
  ThriftTransport framing = ThriftTransport::kBuffered;
  std::chrono::milliseconds connect_timeout{1000};
  int pool_size = 8;
  size_t max_message_bytes = size_t{64} << 20;
};

class EndpointPool {
 public:
  using AcquireCallback = std::function<void(absl::StatusOr<std::shared_ptr<Connection>>)>;

  EndpointPool(boost::asio::io_context& io, boost::asio::ip::tcp::endpoint address,
               std::string name, PoolSettings settings, HBaseStoreStats* stats);

  // Everything below runs on strand(); callbacks are invoked on it.
  Strand& strand() { return strand_; }
  const std::string& name() const { return name_; }

  // A connection for one exchange, to be handed back through Release.
  // `fresh` skips idle connections (used after a reused one failed).
  void Acquire(std::chrono::steady_clock::time_point deadline, bool fresh, AcquireCallback done);
  void Release(std::shared_ptr<Connection> connection, bool reusable);
  // Fails waiting calls with Cancelled and closes every connection.
  void Shutdown();

 private:
  struct Waiter {
    uint64_t id;
    std::chrono::steady_clock::time_point deadline;
    AcquireCallback done;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };

  void Open(std::chrono::steady_clock::time_point deadline, AcquireCallback done);
  void Forget(const std::shared_ptr<Connection>& connection);
  void ServeWaiter();

  Strand strand_;
  boost::asio::ip::tcp::endpoint address_;
  std::string name_;
  PoolSettings settings_;
  HBaseStoreStats* stats_;
  std::vector<std::shared_ptr<Connection>> open_;  // idle, busy or connecting
  std::vector<std::shared_ptr<Connection>> idle_;
  std::list<Waiter> waiters_;
  uint64_t next_waiter_id_ = 0;
  bool shut_down_ = false;
};

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_ENDPOINT_POOL_H_

// One TCP connection to a Thrift2 gateway, driven by Asio on its pool's
// strand: connect, then one request/reply exchange at a time. Every step
// has a timer; when the deadline passes first the socket is closed, the
// step completes with DeadlineExceeded, and the connection is not reused.
#ifndef RTB_STORAGE_HBASE_CONNECTION_H_
#define RTB_STORAGE_HBASE_CONNECTION_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "storage/hbase/wire.h"
#include "storage/hbase_store.h"

namespace rtb::storage::hbase {

using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

struct ExchangeResult {
  absl::StatusOr<std::string> reply;
  // The connection can carry another exchange.
  bool reusable = false;
  // Failed before any byte of a reply arrived.
  bool nothing_received = false;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Strand strand, ThriftTransport framing, size_t max_message_bytes);

  // All members below must be called on the strand; callbacks run on it.
  // Connect fails with DeadlineExceeded when `deadline` passes first, with
  // Unavailable when `connect_timeout` does or the gateway refuses.
  void Connect(const boost::asio::ip::tcp::endpoint& address,
               std::chrono::milliseconds connect_timeout,
               std::chrono::steady_clock::time_point deadline,
               std::function<void(absl::Status)> done);
  void Exchange(std::shared_ptr<const std::string> request,
                std::chrono::steady_clock::time_point deadline,
                std::function<void(ExchangeResult)> done);
  // False when the gateway closed the idle connection or sent bytes nobody
  // asked for; cheap (one non-blocking peek).
  bool LooksAlive();
  void Close();
  // Exchanges completed on this connection.
  uint64_t exchanges() const { return exchanges_; }

 private:
  void ArmTimer(std::chrono::steady_clock::time_point when);
  void ReadFrameHeader();
  void ReadFrameBody(uint32_t size);
  void ReadUnframed();
  void Finish(ExchangeResult result);
  absl::Status FailureStatus(const boost::system::error_code& error, const char* step) const;

  Strand strand_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer timer_;
  ThriftTransport framing_;
  size_t max_message_bytes_;
  std::array<uint8_t, 4> header_{};
  std::string reply_;
  MessageScanner scanner_;  // finds the end of an unframed reply
  std::function<void(ExchangeResult)> done_;
  std::shared_ptr<const std::string> request_;
  uint64_t generation_ = 0;  // tells a stale timer from the current step's
  uint64_t exchanges_ = 0;
  bool timed_out_ = false;
  bool received_any_ = false;
};

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_CONNECTION_H_

// A loopback TCP proxy that delays what it forwards, for running the bidder
// against a slow store: every chunk read from one side is written to the other
// after a delay drawn uniformly from [min_delay_ms, max_delay_ms], separately
// per direction, without reordering (a chunk never leaves before the one read
// before it, so a short delay after a long one waits for it, as on a real
// congested link). Half-closes and resets are passed on; DropAll cuts every
// connection, as a restarting gateway would.
//
// It listens on 127.0.0.1 only and connects to one target. Used by the fault
// tests (tests/storage/faults/) and by the `rtb-delay-proxy` tool.
//
// Thread-safety: the proxy runs on its own thread; SetDelay, DropAll and the
// counters may be called from any thread.
#ifndef RTB_LOADTEST_DELAY_PROXY_H_
#define RTB_LOADTEST_DELAY_PROXY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace rtb::loadtest {

struct DelayProxyOptions {
  // Where connections go: an IPv4 or IPv6 address (no name lookup) and port.
  // Required.
  std::string target_host = "127.0.0.1";
  uint16_t target_port = 0;
  // Listening port on 127.0.0.1; 0 picks a free one. Default 0.
  uint16_t listen_port = 0;
  // Delay per chunk and direction, ms, uniform in [min, max]. Default 0..50.
  int min_delay_ms = 0;
  int max_delay_ms = 50;
  // Seed of the delays. Default 1.
  uint64_t seed = 1;
  // Bytes read but not yet written, per direction, past which reading pauses
  // until the writes catch up. Default 4 MiB.
  size_t max_buffered_bytes = size_t{4} << 20;
};

struct DelayProxyStats {
  std::atomic<uint64_t> connections{0};       // accepted
  std::atomic<uint64_t> connect_failures{0};  // accepted, but the target refused
  std::atomic<uint64_t> chunks{0};            // forwarded, both directions
  std::atomic<uint64_t> bytes{0};             // forwarded, both directions
  std::atomic<uint64_t> delay_ms_total{0};    // sum of the delays drawn
};

class DelayProxy {
 public:
  // Binds and starts forwarding; fails when the address cannot be bound or
  // the options are invalid.
  static absl::StatusOr<std::unique_ptr<DelayProxy>> Start(const DelayProxyOptions& options);
  virtual ~DelayProxy() = default;

  virtual uint16_t port() const = 0;
  // "127.0.0.1:<port>".
  virtual std::string endpoint() const = 0;
  // Takes effect for chunks read from now on.
  virtual void SetDelay(int min_delay_ms, int max_delay_ms) = 0;
  // Closes both sides of every open connection; new ones are still accepted.
  virtual void DropAll() = 0;
  virtual const DelayProxyStats& stats() const = 0;
};

}  // namespace rtb::loadtest

#endif  // RTB_LOADTEST_DELAY_PROXY_H_

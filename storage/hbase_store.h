// The hbase backend: a Store that talks to Apache HBase (2.x) through one or
// more of its Thrift2 gateways (service THBaseService, binary protocol).
//
// Every call, blocking or not, goes over a small non-blocking Thrift client on
// Boost.Asio sockets run by the store's own I/O threads: requests are
// serialized with the code generated from storage/thrift/hbase.thrift, and a
// call that misses its deadline returns DeadlineExceeded at the deadline
// whatever the network does. Connections are pooled per gateway, checked
// before reuse, and replaced when broken. A TIMELINE Get that has no answer
// within the hedge delay is also sent to the next gateway; the first answer
// wins.
//
// Mapping notes: the cell TTL of a Put or Increment travels as the mutation
// attribute `_ttl` (8-byte big-endian milliseconds); several row ranges travel
// as a serialized MultiRowRangeFilter; Flush and MajorCompact are
// Unimplemented because Thrift2 has no such calls; an Increment nonce is not
// transmitted (Thrift2 cannot carry one), so an Increment is never resent.
// HBase's own gateway reads binary map keys and split keys with
// ByteBuffer.array(), which is only safe on its buffered transport: create
// tables (REGION_REPLICATION, split keys) through a buffered gateway.
//
// Thread-safety: the returned Store is safe to call from any number of
// threads. Destroying it fails calls still in flight with Cancelled.
#ifndef RTB_STORAGE_HBASE_STORE_H_
#define RTB_STORAGE_HBASE_STORE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/store.h"
#include "storage/types.h"

namespace rtb::storage {

// Must match how the gateway was started (HBase's ThriftServer -f/--framed;
// the nonblocking and hsha servers are always framed).
enum class ThriftTransport { kBuffered, kFramed };

// Counters of one store, updated with relaxed atomics. Shared with the owner,
// which exports them as metrics.
struct HBaseStoreStats {
  std::atomic<uint64_t> requests{0};            // requests written to a gateway, hedges included
  std::atomic<uint64_t> errors{0};              // calls that ended in an error (not deadline)
  std::atomic<uint64_t> deadline_exceeded{0};   // calls that ended at their deadline
  std::atomic<uint64_t> connects{0};            // connections opened
  std::atomic<uint64_t> connect_failures{0};    // connection attempts that failed
  std::atomic<uint64_t> broken_connections{0};  // connections dropped after an error or timeout
  std::atomic<uint64_t> retries{0};             // requests resent on a fresh connection
  std::atomic<uint64_t> hedged_gets{0};         // TIMELINE Gets also sent to a second gateway
  std::atomic<uint64_t> hedge_wins{0};          // ... answered first by the second gateway
  std::atomic<uint64_t> primary_wins{0};        // ... answered first by the first gateway
  std::atomic<uint64_t> late_answers{0};        // answers dropped because another came first
  std::atomic<uint64_t> stale_results{0};       // rows served by a secondary region replica
};

struct HBaseStoreOptions {
  // Thrift2 gateways as "host:port" ("[v6addr]:port" for IPv6), resolved once
  // when the store opens. Required, at least one. Calls are spread round-robin.
  std::vector<std::string> endpoints;
  // Framing of the gateways. Default buffered (the gateway's default).
  ThriftTransport transport = ThriftTransport::kBuffered;
  // Time allowed to open a TCP connection, ms. Default 1000.
  int connect_timeout_ms = 1000;
  // Deadline of blocking data calls (Get, Put, Scan, ...), ms. Default 5000.
  int call_timeout_ms = 5000;
  // Deadline of admin calls (CreateTable, DeleteTable, TableExists), ms.
  // HBase creates and drops tables synchronously, which takes seconds.
  // Default 120000.
  int admin_timeout_ms = 120000;
  // Connections kept per gateway; further concurrent calls queue for one
  // until their deadline. Default 8.
  int pool_size_per_endpoint = 8;
  // Wait before a TIMELINE Get is also sent to the next gateway, ms. 0 turns
  // hedging off; it needs at least two endpoints. Default 10.
  int hedge_delay_ms = 10;
  // Durability of mutations that say kUseDefault. Default kUseDefault: the
  // table's own setting (SYNC_WAL unless the table says otherwise).
  Durability default_durability = Durability::kUseDefault;
  // I/O threads of the store. Default 1.
  int io_threads = 1;
  // Largest request or reply, bytes; a bigger one fails the call. Default
  // 64 MiB, at most 100 MiB (the Thrift library's limit).
  int64_t max_message_bytes = int64_t{64} << 20;
  // Where the store counts its calls. Optional; the store makes its own when
  // null.
  std::shared_ptr<HBaseStoreStats> stats;
};

// Checks `options` without connecting; the error names the bad field.
absl::Status ValidateHBaseStoreOptions(const HBaseStoreOptions& options);

// Opens the store. No connection is made here: a gateway that is down makes
// calls fail (Unavailable) until it is back, not the open.
absl::StatusOr<std::unique_ptr<Store>> OpenHBaseStore(const HBaseStoreOptions& options);

}  // namespace rtb::storage

#endif  // RTB_STORAGE_HBASE_STORE_H_

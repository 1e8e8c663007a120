// The storage server: a Store (in the storage-server binary, the embedded
// engine) served over HBase's Thrift2 protocol, so several bidder processes
// share one store through the hbase backend (storage/hbase_store.h), and
// HBase clients in any language, generated from HBase's own IDL, can talk to
// it.
//
// Protocol: service THBaseService (storage/thrift/hbase.thrift), binary
// protocol with strict version headers, buffered or framed transport. It
// runs on Thrift's TThreadPoolServer: each connection is served by one
// thread of the pool for as long as it stays open, so `threads` bounds the
// connections served at once; further ones wait in the listen backlog.
// Malformed input never takes the server down: a call Thrift cannot decode,
// an unknown method, a message beyond `max_message_bytes`, a bad frame
// size, or a client that stops mid-message gets a TApplicationException
// or has its connection closed, and every other connection carries on.
//
// Metrics (storage/server/server_metrics.h): with options.metrics, every call
// is counted on the way through (storage/server/metered_service.h) and
// metrics() is what a Prometheus endpoint serves.
//
// Thread-safety: Start, port, connections, metrics and Stop may be called
// from any thread.
#ifndef RTB_STORAGE_SERVER_STORAGE_SERVER_H_
#define RTB_STORAGE_SERVER_STORAGE_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "prometheus/collectable.h"
#include "storage/hbase_store.h"
#include "storage/server/server_metrics.h"
#include "storage/server/service_handler.h"
#include "storage/store.h"

namespace rtb::storage::server {

struct StorageServerOptions {
  // Address to listen on. Default 127.0.0.1; "0.0.0.0" or "::" for every
  // interface.
  std::string bind = "127.0.0.1";
  // TCP port; 0 picks a free one (see StorageServer::port). Default 9090,
  // HBase's Thrift port.
  int port = 9090;
  // Framing; clients must use the same. Default buffered, as HBase's gateway.
  ThriftTransport transport = ThriftTransport::kBuffered;
  // Connections served at once, one thread each. Default 64.
  int threads = 64;
  // Largest request, bytes: frame size, string and container sizes, and
  // message size are all held to it. Default 64 MiB, at most 1 GiB.
  int64_t max_message_bytes = int64_t{64} << 20;
  // A connection that sends nothing for this long is closed, and a reply
  // the client does not read for this long ends its connection, ms. 0 keeps
  // idle connections forever. Default 60000 (HBase's
  // hbase.thrift.server.socket.read.timeout).
  int idle_timeout_ms = 60000;
  // Scanner limits and clock, see ServiceHandlerOptions.
  ServiceHandlerOptions handler;
  // Count calls, rows and cells, and keep metrics(). Default true; a call
  // costs two clock reads and a few adds to its thread's own counters.
  bool metrics = true;
};

// Checks `options` without binding; the error names the bad field.
absl::Status ValidateStorageServerOptions(const StorageServerOptions& options);

class StorageServer {
 public:
  // Binds, listens, and serves `store` on background threads. Fails
  // (InvalidArgument, Unavailable when the address is taken) without
  // serving. `store` must outlive the server.
  static absl::StatusOr<std::unique_ptr<StorageServer>> Start(Store& store,
                                                              StorageServerOptions options);

  // Stop().
  ~StorageServer();

  // The port listened on, resolved when options.port was 0.
  int port() const { return port_; }

  // Connections open now.
  int64_t connections() const;

  // The server's and its store's metrics, for a Prometheus endpoint (see
  // storage/server/server_metrics.h); null when options.metrics was false.
  // Collecting reads the store, which must outlive every Collect.
  std::shared_ptr<prometheus::Collectable> metrics() const { return metrics_; }

  // Stops accepting, lets calls in progress finish, closes every
  // connection, and returns once no thread of the server runs. Idempotent.
  void Stop();

  StoreServiceHandler& handler() { return *handler_; }

 private:
  struct State;
  StorageServer(std::unique_ptr<State> state, std::shared_ptr<StoreServiceHandler> handler,
                std::shared_ptr<ServerMetrics> metrics, int port);

  std::unique_ptr<State> state_;
  std::shared_ptr<StoreServiceHandler> handler_;
  std::shared_ptr<ServerMetrics> metrics_;
  int port_ = 0;
};

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_STORAGE_SERVER_H_

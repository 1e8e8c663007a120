#include "storage/server/storage_server.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "storage/server/metered_service.h"
#include "storage/thrift/THBaseService.h"
#include "thrift/TConfiguration.h"
#include "thrift/concurrency/ThreadFactory.h"
#include "thrift/concurrency/ThreadManager.h"
#include "thrift/protocol/TBinaryProtocol.h"
#include "thrift/server/TThreadPoolServer.h"
#include "thrift/transport/TBufferTransports.h"
#include "thrift/transport/TServerSocket.h"
#include "thrift/transport/TTransportException.h"

namespace rtb::storage::server {
namespace {

namespace at = ::apache::thrift;
using at::TConfiguration;
using at::transport::TTransport;

constexpr int64_t kMaxMessageBytesLimit = int64_t{1} << 30;

class TransportFactory : public at::transport::TTransportFactory {
 public:
  TransportFactory(ThriftTransport framing, std::shared_ptr<TConfiguration> config)
      : framing_(framing), config_(std::move(config)) {}

  std::shared_ptr<TTransport> getTransport(std::shared_ptr<TTransport> socket) override {
    if (framing_ == ThriftTransport::kFramed) {
      return std::make_shared<at::transport::TFramedTransport>(std::move(socket), config_);
    }
    return std::make_shared<at::transport::TBufferedTransport>(std::move(socket), config_);
  }

 private:
  const ThriftTransport framing_;
  const std::shared_ptr<TConfiguration> config_;
};

// Listens when Start asks, so bind errors and the chosen port are known
// before serving; the server's own call to listen() then does nothing.
class ListeningSocket : public at::transport::TServerSocket {
 public:
  using TServerSocket::TServerSocket;
  void listen() override {
    if (listening_) return;
    TServerSocket::listen();
    listening_ = true;
  }

 private:
  bool listening_ = false;
};

// The metrics of a server being started; `server` is set before the first
// scrape can run (metrics() is reachable only once Start returns).
std::shared_ptr<ServerMetrics> MakeMetrics(
    Store& store, const StorageServerOptions& options,
    const std::shared_ptr<StoreServiceHandler>& handler,
    const std::shared_ptr<std::weak_ptr<at::server::TThreadPoolServer>>& server) {
  ServerMetricsSources sources;
  sources.store = &store;
  sources.connections = [server] {
    const std::shared_ptr<at::server::TThreadPoolServer> serving = server->lock();
    return serving == nullptr ? int64_t{0} : serving->getConcurrentClientCount();
  };
  sources.connection_limit = options.threads;
  // Held weakly, as the server is: a scrape once the server is gone reads 0.
  sources.open_scanners = [handler = std::weak_ptr<StoreServiceHandler>(handler)] {
    const std::shared_ptr<StoreServiceHandler> serving = handler.lock();
    return serving == nullptr ? int64_t{0} : static_cast<int64_t>(serving->open_scanners());
  };
  sources.open_scanner_limit = options.handler.max_open_scanners;
  return std::make_shared<ServerMetrics>(std::move(sources));
}

}  // namespace

struct StorageServer::State {
  std::shared_ptr<ListeningSocket> socket;
  std::shared_ptr<at::concurrency::ThreadManager> workers;
  // Shared so that the metrics' connection gauge can hold it weakly.
  std::shared_ptr<at::server::TThreadPoolServer> server;
  std::thread serving;
  std::thread sweeping;
  absl::Notification stop_sweeping;
  absl::Mutex stop_mutex;
  bool stopped ABSL_GUARDED_BY(stop_mutex) = false;
};

absl::Status ValidateStorageServerOptions(const StorageServerOptions& options) {
  if (options.bind.empty()) return absl::InvalidArgumentError("storage server: bind is empty");
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("storage server: port must be in [0, 65535], got ", options.port));
  }
  if (options.threads < 1 || options.threads > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("storage server: threads must be in [1, 4096], got ", options.threads));
  }
  if (options.max_message_bytes < 4096 || options.max_message_bytes > kMaxMessageBytesLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("storage server: max_message_bytes must be in [4096, ", kMaxMessageBytesLimit,
                     "], got ", options.max_message_bytes));
  }
  if (options.idle_timeout_ms < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "storage server: idle_timeout_ms must be >= 0, got ", options.idle_timeout_ms));
  }
  if (options.handler.max_open_scanners < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "storage server: max_open_scanners must be >= 1, got ", options.handler.max_open_scanners));
  }
  if (options.handler.scanner_idle_timeout_ms < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("storage server: scanner_idle_timeout_ms must be >= 1, got ",
                     options.handler.scanner_idle_timeout_ms));
  }
  if (options.handler.max_rows_per_call < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "storage server: max_rows_per_call must be >= 1, got ", options.handler.max_rows_per_call));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<StorageServer>> StorageServer::Start(Store& store,
                                                                    StorageServerOptions options) {
  if (absl::Status s = ValidateStorageServerOptions(options); !s.ok()) return s;
  auto state = std::make_unique<State>();
  const int limit = static_cast<int>(options.max_message_bytes);
  auto config = std::make_shared<TConfiguration>(limit, limit);
  try {
    state->socket = std::make_shared<ListeningSocket>(options.bind, options.port);
    if (options.idle_timeout_ms > 0) {
      state->socket->setRecvTimeout(options.idle_timeout_ms);
      state->socket->setSendTimeout(options.idle_timeout_ms);
    }
    state->socket->listen();
  } catch (const at::transport::TTransportException& e) {
    return absl::UnavailableError(absl::StrCat("storage server cannot listen on ", options.bind,
                                               ":", options.port, ": ", e.what()));
  }
  const int port = state->socket->getPort();
  // Region locations name the address clients reach this server at.
  options.handler.host = options.bind;
  options.handler.port = port;
  auto handler = std::make_shared<StoreServiceHandler>(store, options.handler);
  std::shared_ptr<thrift2::THBaseServiceIf> service = handler;
  std::shared_ptr<ServerMetrics> metrics;
  auto serving = std::make_shared<std::weak_ptr<at::server::TThreadPoolServer>>();
  if (options.metrics) {
    metrics = MakeMetrics(store, options, handler, serving);
    service = std::make_shared<MeteredService>(std::move(service), metrics);
  }

  state->workers =
      at::concurrency::ThreadManager::newSimpleThreadManager(static_cast<size_t>(options.threads));
  state->workers->threadFactory(std::make_shared<at::concurrency::ThreadFactory>());
  state->workers->start();
  auto protocols =
      std::make_shared<at::protocol::TBinaryProtocolFactoryT<at::transport::TBufferBase>>(
          limit, limit, /*strict_read=*/true, /*strict_write=*/true);
  state->server = std::make_shared<at::server::TThreadPoolServer>(
      std::make_shared<thrift2::THBaseServiceProcessor>(std::move(service)), state->socket,
      std::make_shared<TransportFactory>(options.transport, config), protocols, state->workers);
  *serving = state->server;
  // A connection holds its thread while open: accept no more than there are.
  state->server->setConcurrentClientLimit(options.threads);

  State* raw = state.get();
  raw->serving = std::thread([raw] {
    try {
      raw->server->serve();
    } catch (const std::exception& e) {
      at::GlobalOutput.printf("storage server stopped serving: %s", e.what());
    }
  });
  const auto sweep_every = std::chrono::milliseconds(
      std::clamp<int64_t>(options.handler.scanner_idle_timeout_ms / 4, 10, 1000));
  raw->sweeping = std::thread([raw, handler, sweep_every] {
    while (!raw->stop_sweeping.WaitForNotificationWithTimeout(absl::FromChrono(sweep_every))) {
      handler->ExpireIdleScanners();
    }
  });
  return std::unique_ptr<StorageServer>(
      new StorageServer(std::move(state), std::move(handler), std::move(metrics), port));
}

StorageServer::StorageServer(std::unique_ptr<State> state,
                             std::shared_ptr<StoreServiceHandler> handler,
                             std::shared_ptr<ServerMetrics> metrics, int port)
    : state_(std::move(state)),
      handler_(std::move(handler)),
      metrics_(std::move(metrics)),
      port_(port) {}

int64_t StorageServer::connections() const { return state_->server->getConcurrentClientCount(); }

StorageServer::~StorageServer() { Stop(); }

void StorageServer::Stop() {
  absl::MutexLock lock(&state_->stop_mutex);
  if (state_->stopped) return;
  state_->stopped = true;
  // Interrupts the accept and every connection's next read; a call in
  // progress finishes and its reply is written first.
  state_->server->stop();
  if (state_->serving.joinable()) state_->serving.join();
  state_->stop_sweeping.Notify();
  if (state_->sweeping.joinable()) state_->sweeping.join();
}

}  // namespace rtb::storage::server

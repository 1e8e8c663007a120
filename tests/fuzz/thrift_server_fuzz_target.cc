// Thrift2 calls into the storage server (storage/server), as a connection
// delivers them but without a socket: the input is what a client sent (binary
// protocol, strict, as the server reads it), fed through the server's
// THBaseServiceProcessor and StoreServiceHandler over an embedded store with
// the bidder's tables, one message after another until the bytes run out or
// a message cannot be decoded (where the server closes the connection).
// Every failure must reach the client as an exception its call declares
// (TIOError, TIllegalArgument) or, for what cannot be decoded, end the
// connection; an exception the call does not declare (which the processor
// would send as an opaque TApplicationException), one escaping the
// processor, or a crash, is a bug.
// The store keeps what earlier inputs wrote, as a server does.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>

#include "storage/server/service_handler.h"
#include "storage/thrift/THBaseService.h"
#include "tests/fuzz/fuzz_store.h"
#include "tests/fuzz/fuzz_targets.h"
#include "thrift/TConfiguration.h"
#include "thrift/TProcessor.h"
#include "thrift/Thrift.h"
#include "thrift/protocol/TBinaryProtocol.h"
#include "thrift/transport/TBufferTransports.h"

namespace rtb::fuzz {
namespace {

namespace at = ::apache::thrift;
using Protocol = at::protocol::TBinaryProtocolT<at::transport::TBufferBase>;

// The largest message, as StorageServerOptions::max_message_bytes (smaller
// here: inputs are small).
constexpr int kMaxMessageBytes = 1 << 20;

// The processor reports a handler exception that the call does not declare
// here, before it answers TApplicationException.
class UndeclaredExceptionIsABug : public at::TProcessorEventHandler {
 public:
  void handlerError(void*, const char* function) override {
    std::fprintf(stderr, "thrift_server fuzz target: %s threw an undeclared exception\n", function);
    std::abort();
  }
};

struct Harness {
  Harness() {
    storage::server::ServiceHandlerOptions options;
    options.max_open_scanners = 64;
    handler = std::make_shared<storage::server::StoreServiceHandler>(FuzzStore(), options);
    processor = std::make_shared<storage::thrift2::THBaseServiceProcessor>(handler);
    processor->setEventHandler(std::make_shared<UndeclaredExceptionIsABug>());
    config = std::make_shared<at::TConfiguration>(kMaxMessageBytes, kMaxMessageBytes);
  }

  std::shared_ptr<storage::server::StoreServiceHandler> handler;
  std::shared_ptr<storage::thrift2::THBaseServiceProcessor> processor;
  std::shared_ptr<at::TConfiguration> config;
};

Harness*& TheHarness() {
  static Harness* harness = nullptr;
  return harness;
}

// Registered after the fuzz store's own exit handler, so it runs first: the
// handler's open scanners are closed before the store is.
void DestroyHarness() {
  delete TheHarness();
  TheHarness() = nullptr;
}

Harness* MakeHarness() {
  TheHarness() = new Harness();
  std::atexit(DestroyHarness);
  return TheHarness();
}

}  // namespace

int FuzzThriftServer(const uint8_t* data, size_t size) {
  static Harness* harness = MakeHarness();
  if (size > kMaxMessageBytes) return 0;
  auto in = std::make_shared<at::transport::TMemoryBuffer>(
      const_cast<uint8_t*>(data), static_cast<uint32_t>(size),
      at::transport::TMemoryBuffer::OBSERVE, harness->config);
  auto out = std::make_shared<at::transport::TMemoryBuffer>(harness->config);
  auto in_protocol = std::make_shared<Protocol>(in, kMaxMessageBytes, kMaxMessageBytes, true, true);
  auto out_protocol =
      std::make_shared<Protocol>(out, kMaxMessageBytes, kMaxMessageBytes, true, true);
  try {
    // As TThreadPoolServer's connection loop: a message while bytes remain.
    for (int message = 0; message < 64 && in->available_read() > 0; ++message) {
      if (!harness->processor->process(in_protocol, out_protocol, nullptr)) break;
      out->resetBuffer();
    }
  } catch (const at::TException&) {
    // Undecodable input: the server closes the connection.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "thrift_server fuzz target: %s escaped the processor\n", e.what());
    std::abort();
  }
  harness->handler->ExpireIdleScanners();
  return 0;
}

}  // namespace rtb::fuzz

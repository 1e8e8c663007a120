// The HTTP server's own cost per request, with a handler that does nothing
// but answer: one keep-alive connection on 127.0.0.1 sends the request
// rtb-load sends (POST /openrtb2/bid with Host, Content-Type,
// x-openrtb-version and Content-Length, and a 1,000-byte body), and the
// server answers 204 with x-openrtb-version, as the bid handler's no-bid.
//
//   build/loadtest/bench/http_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
// Counters per request: allocs, the operator new calls of every thread (the
// client makes none); server_cpu_us, the process's CPU time (user and
// kernel) less the client thread's, i.e. the server's I/O thread with the
// kernel work of its own system calls. The time column is the round trip.
// For instruction counts (loadtest/callgrind-bid-path.sh with
// BENCH=http_bench), RTB_BENCH_ITERATIONS=<n> fixes the iterations.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "bidder/http/http_server.h"
#include "config/config.h"
#include "loadtest/bench/heap_allocations.h"
#include "prometheus/registry.h"

namespace rtb::bidder {
namespace {

double CpuSeconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A blocking keep-alive client that knows only bodiless answers.
class Client {
 public:
  ~Client() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool Connect(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) return false;
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return ::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  }

  // Sends `request` and reads one answer head; false on any failure or an
  // answer other than 204.
  bool RoundTrip(std::string_view request) {
    for (size_t sent = 0; sent < request.size();) {
      const ssize_t n = ::send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    size_t received = 0;
    while (true) {
      const ssize_t n = ::recv(fd_, answer_ + received, sizeof(answer_) - received, 0);
      if (n <= 0) return false;
      received += static_cast<size_t>(n);
      const std::string_view head(answer_, received);
      if (head.find("\r\n\r\n") != std::string_view::npos) return head.starts_with("HTTP/1.1 204");
      if (received == sizeof(answer_)) return false;
    }
  }

 private:
  int fd_ = -1;
  char answer_[1024];
};

void BM_NoBidRoundTrip(benchmark::State& state) {
  prometheus::Registry registry;
  config::ServerConfig config;
  config.listen_address = "127.0.0.1";
  config.port = 0;
  config.io_threads = 1;
  absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Create(config, registry);
  if (!server.ok()) return state.SkipWithError(std::string(server.status().message()).c_str());
  (*server)->Route(boost::beast::http::verb::post, "/openrtb2/bid",
                   [](const HttpRequest&, Responder respond) {
                     HttpResponse no_bid;
                     no_bid.status = 204;
                     no_bid.headers.emplace_back("x-openrtb-version", "2.6");
                     respond(std::move(no_bid));
                   });
  if (absl::Status started = (*server)->Start(); !started.ok()) {
    return state.SkipWithError(std::string(started.message()).c_str());
  }
  const std::string body(1000, 'x');
  const std::string request = absl::StrCat(
      "POST /openrtb2/bid HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
      "x-openrtb-version: 2.6\r\nContent-Length: ", body.size(), "\r\n\r\n", body);
  Client client;
  if (!client.Connect((*server)->port())) return state.SkipWithError("cannot connect");
  // Warm: the connection's buffers, the thread's pools, the metrics' labels.
  for (int i = 0; i < 1000; ++i) {
    if (!client.RoundTrip(request)) return state.SkipWithError("warm-up round trip failed");
  }

  const uint64_t allocations_before = bench::HeapAllocations();
  const double process_before = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  const double client_before = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  for (auto _ : state) {
    if (!client.RoundTrip(request)) {
      state.SkipWithError("round trip failed");
      break;
    }
  }
  const double client_cpu = CpuSeconds(CLOCK_THREAD_CPUTIME_ID) - client_before;
  const double process_cpu = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - process_before;
  const double requests = static_cast<double>(state.iterations());
  state.counters["allocs"] = benchmark::Counter(
      static_cast<double>(bench::HeapAllocations() - allocations_before) / requests);
  state.counters["server_cpu_us"] = benchmark::Counter((process_cpu - client_cpu) / requests * 1e6);
  (*server)->Shutdown(std::chrono::milliseconds(0));
}
BENCHMARK(BM_NoBidRoundTrip)->UseRealTime()->Apply([](benchmark::internal::Benchmark* b) {
  if (const char* n = std::getenv("RTB_BENCH_ITERATIONS"); n != nullptr && std::atoi(n) > 0) {
    b->Iterations(std::atoi(n));
  }
});

}  // namespace
}  // namespace rtb::bidder

BENCHMARK_MAIN();

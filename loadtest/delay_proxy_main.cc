// rtb-delay-proxy: a loopback TCP proxy that delays each direction by 0-50 ms
// (loadtest/delay_proxy.h), to run the bidder against a slow store by hand:
//
//   rtb-delay-proxy --target 127.0.0.1:9090 --port 9190 --min-delay-ms 0 --max-delay-ms 50
//
// and point storage.hbase.endpoints at 127.0.0.1:9190. Runs until SIGTERM or
// SIGINT, then prints what it forwarded and exits 0.
#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "loadtest/delay_proxy.h"

namespace {

constexpr char kUsage[] =
    "usage: rtb-delay-proxy --target HOST:PORT [--port N] [--min-delay-ms N] [--max-delay-ms N]\n"
    "                       [--seed N] [--port-file FILE]\n"
    "  --target HOST:PORT  where connections go (an address, no name lookup)\n"
    "  --port N            listening port on 127.0.0.1 (default 0: a free one)\n"
    "  --min-delay-ms N    least delay per chunk and direction (default 0)\n"
    "  --max-delay-ms N    most delay per chunk and direction (default 50)\n"
    "  --seed N            seed of the delays (default 1)\n"
    "  --port-file FILE    write the listening port there once listening\n";

bool ParseInt(std::string_view text, int* out) {
  return absl::SimpleAtoi(absl::string_view(text.data(), text.size()), out) && *out >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  rtb::loadtest::DelayProxyOptions options;
  std::string port_file;
  bool have_target = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "rtb-delay-proxy: %s needs a value\n%s", argv[i], kUsage);
      return 1;
    }
    const std::string_view value = argv[++i];
    int n = 0;
    bool ok = true;
    if (flag == "--target") {
      const size_t colon = value.rfind(':');
      ok = colon != std::string_view::npos && ParseInt(value.substr(colon + 1), &n) && n > 0 &&
           n < 65536;
      if (ok) {
        std::string host(value.substr(0, colon));
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
          host = host.substr(1, host.size() - 2);
        }
        options.target_host = host;
        options.target_port = static_cast<uint16_t>(n);
        have_target = true;
      }
    } else if (flag == "--port") {
      ok = ParseInt(value, &n) && n < 65536;
      options.listen_port = static_cast<uint16_t>(n);
    } else if (flag == "--min-delay-ms") {
      ok = ParseInt(value, &options.min_delay_ms);
    } else if (flag == "--max-delay-ms") {
      ok = ParseInt(value, &options.max_delay_ms);
    } else if (flag == "--seed") {
      ok = ParseInt(value, &n);
      options.seed = static_cast<uint64_t>(n);
    } else if (flag == "--port-file") {
      port_file = value;
    } else {
      std::fprintf(stderr, "rtb-delay-proxy: unknown flag %s\n%s", argv[i - 1], kUsage);
      return 1;
    }
    if (!ok) {
      std::fprintf(stderr, "rtb-delay-proxy: bad value for %s: %s\n%s", argv[i - 1], argv[i],
                   kUsage);
      return 1;
    }
  }
  if (!have_target) {
    std::fprintf(stderr, "rtb-delay-proxy: --target is required\n%s", kUsage);
    return 1;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before the proxy's thread starts

  auto proxy = rtb::loadtest::DelayProxy::Start(options);
  if (!proxy.ok()) {
    std::fprintf(stderr, "rtb-delay-proxy: %s\n", std::string(proxy.status().message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "rtb-delay-proxy: listening on %s, forwarding to %s:%u with %d-%d ms\n",
               (*proxy)->endpoint().c_str(), options.target_host.c_str(), options.target_port,
               options.min_delay_ms, options.max_delay_ms);
  if (!port_file.empty()) {
    std::ofstream out(port_file);
    out << (*proxy)->port() << "\n";
  }
  int received = 0;
  sigwait(&signals, &received);
  const auto& stats = (*proxy)->stats();
  std::fprintf(stderr, "rtb-delay-proxy: %llu connections, %llu chunks, %llu bytes forwarded\n",
               static_cast<unsigned long long>(stats.connections.load()),
               static_cast<unsigned long long>(stats.chunks.load()),
               static_cast<unsigned long long>(stats.bytes.load()));
  return 0;
}

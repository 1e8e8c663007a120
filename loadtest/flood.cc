// rtb-flood: hostile connections against an HTTP server on loopback, for
// loadtest/run-flood-benchmark.sh.
//
//   rtb-flood --port N --mode silent [--rate 10000] [--duration 2]
//       opens --rate connections per second for --duration seconds and sends
//       nothing on them; holds each until the server closes it.
//   rtb-flood --port N --mode slowloris [--connections 1000] [--interval-ms 100]
//             [--duration 10]
//       keeps --connections connections, each sending a request header one
//       byte per --interval-ms (spread evenly), and reopens each one the
//       server closes.
//
// Connections come from --sources addresses (default 10) from 127.0.0.10
// upwards, so that the flood is not one peer. At the end (after --duration
// and, for silent, up to --drain seconds more for the server to close what
// it holds) it prints one JSON line: connections opened, closed by the
// server, failed, still open, and how long the server let them live.
// Loopback only.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int port = 0;
  std::string mode;
  double rate = 10000;
  int connections = 1000;
  int interval_ms = 100;
  double duration_s = 2;
  double drain_s = 5;
  int sources = 10;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "rtb-flood: %s\nusage: rtb-flood --port N --mode silent|slowloris [--rate R] "
               "[--connections N] [--interval-ms MS] [--duration S] [--drain S] [--sources K]\n",
               why);
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) Usage("a flag without a value");
    const char* value = argv[++i];
    if (flag == "--port") {
      o.port = std::atoi(value);
    } else if (flag == "--mode") {
      o.mode = value;
    } else if (flag == "--rate") {
      o.rate = std::atof(value);
    } else if (flag == "--connections") {
      o.connections = std::atoi(value);
    } else if (flag == "--interval-ms") {
      o.interval_ms = std::atoi(value);
    } else if (flag == "--duration") {
      o.duration_s = std::atof(value);
    } else if (flag == "--drain") {
      o.drain_s = std::atof(value);
    } else if (flag == "--sources") {
      o.sources = std::atoi(value);
    } else {
      Usage("unknown flag");
    }
  }
  if (o.port < 1 || o.port > 65535) Usage("--port must be in [1, 65535]");
  if (o.mode != "silent" && o.mode != "slowloris") Usage("--mode must be silent or slowloris");
  if (o.rate <= 0 || o.connections < 1 || o.interval_ms < 1 || o.duration_s <= 0 || o.drain_s < 0 ||
      o.sources < 1 || o.sources > 200) {
    Usage("a value out of range");
  }
  return o;
}

// The request a slowloris connection sends, byte by byte, never ending.
constexpr std::string_view kSlowRequest =
    "POST /openrtb2/bid HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    "Content-Length: 100000\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

struct Connection {
  int fd = -1;
  Clock::time_point opened;
  size_t sent = 0;
};

class Flood {
 public:
  explicit Flood(const Options& options) : o_(options), epoll_(epoll_create1(EPOLL_CLOEXEC)) {
    rlimit limit{};
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
    max_open_ = static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 1 << 20)) - 64;
    slots_.resize(static_cast<size_t>(o_.mode == "slowloris" ? o_.connections : max_open_));
  }

  void Run() {
    const auto start = Clock::now();
    const auto end = start + Seconds(o_.duration_s);
    if (o_.mode == "slowloris") {
      for (size_t i = 0; i < slots_.size(); ++i) Open(i);
      size_t cursor = 0;
      auto last = Clock::now();
      while (Clock::now() < end) {
        Poll(1);
        // Each connection gets a byte per interval, spread evenly.
        const auto now = Clock::now();
        const double due = static_cast<double>(slots_.size()) *
                           std::chrono::duration<double, std::milli>(now - last).count() /
                           o_.interval_ms;
        if (due < 1) continue;
        last = now;
        for (int n = 0; n < static_cast<int>(due); ++n) {
          SendOneByte(cursor);
          cursor = (cursor + 1) % slots_.size();
        }
      }
    } else {
      int64_t started = 0;
      while (Clock::now() < end) {
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        const auto target = static_cast<int64_t>(elapsed * o_.rate);
        while (started < target && open_ < max_open_) {
          Open(FreeSlot());
          ++started;
        }
        Poll(1);
      }
      // The server closes what it holds; wait for it, bounded.
      const auto drained = Clock::now() + Seconds(o_.drain_s);
      while (open_ > 0 && Clock::now() < drained) Poll(10);
    }
    Report(std::chrono::duration<double>(Clock::now() - start).count());
  }

 private:
  static Clock::duration Seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }

  size_t FreeSlot() {
    while (slots_[next_free_].fd >= 0) next_free_ = (next_free_ + 1) % slots_.size();
    return next_free_;
  }

  void Open(size_t slot) {
    Connection& c = slots_[slot];
    c = Connection{};
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      ++failed_;
      return;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
    sockaddr_in from{};
    from.sin_family = AF_INET;
    from.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 9 + static_cast<uint32_t>(opened_ % o_.sources));
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(o_.port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
        (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0 &&
         errno != EINPROGRESS)) {
      ::close(fd);
      ++failed_;
      return;
    }
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.u64 = slot;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event);
    c.fd = fd;
    c.opened = Clock::now();
    ++opened_;
    ++open_;
  }

  void Closed(size_t slot) {
    Connection& c = slots_[slot];
    if (c.fd < 0) return;
    lives_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - c.opened).count());
    ::close(c.fd);
    c.fd = -1;
    --open_;
    ++closed_by_server_;
    if (o_.mode == "slowloris") Open(slot);
  }

  void SendOneByte(size_t slot) {
    Connection& c = slots_[slot];
    if (c.fd < 0) return Open(slot);
    const char byte = kSlowRequest[std::min(c.sent, kSlowRequest.size() - 1)];
    if (::send(c.fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1) {
      ++c.sent;
      ++bytes_sent_;
    } else if (errno == EPIPE || errno == ECONNRESET) {
      Closed(slot);
    }
  }

  void Poll(int timeout_ms) {
    epoll_event events[256];
    const int n = ::epoll_wait(epoll_, events, 256, timeout_ms);
    for (int i = 0; i < n; ++i) {
      const auto slot = static_cast<size_t>(events[i].data.u64);
      Connection& c = slots_[slot];
      if (c.fd < 0) continue;
      if (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        Closed(slot);
        continue;
      }
      char buffer[4096];
      const ssize_t got = ::recv(c.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (got == 0 || (got < 0 && errno != EAGAIN)) Closed(slot);
    }
  }

  void Report(double seconds) {
    std::sort(lives_ms_.begin(), lives_ms_.end());
    const auto quantile = [this](double q) {
      if (lives_ms_.empty()) return 0.0;
      return lives_ms_[static_cast<size_t>(q * static_cast<double>(lives_ms_.size() - 1))];
    };
    nlohmann::json out = {{"mode", o_.mode},
                          {"seconds", seconds},
                          {"opened", opened_},
                          {"closed_by_server", closed_by_server_},
                          {"failed", failed_},
                          {"open_at_end", open_},
                          {"life_ms", {{"p50", quantile(0.5)}, {"max", quantile(1.0)}}},
                          {"bytes_sent", bytes_sent_}};
    std::printf("%s\n", out.dump().c_str());
  }

  const Options o_;
  const int epoll_;
  int max_open_ = 0;
  std::vector<Connection> slots_;
  size_t next_free_ = 0;
  int64_t opened_ = 0;
  int64_t open_ = 0;
  int64_t closed_by_server_ = 0;
  int64_t failed_ = 0;
  int64_t bytes_sent_ = 0;
  std::vector<double> lives_ms_;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = Parse(argc, argv);
  Flood flood(options);
  flood.Run();
  return 0;
}

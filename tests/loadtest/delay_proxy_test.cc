// The delaying proxy (loadtest/delay_proxy.h): bytes arrive whole and in
// order, each direction later by a delay within the configured range, a
// half-close is passed on, and DropAll cuts connections.
#include "loadtest/delay_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace rtb::loadtest {
namespace {

using Clock = std::chrono::steady_clock;

int Listen(uint16_t* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::listen(fd, 16);
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

int Connect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

// Reads exactly `n` bytes within 5 s; what it got otherwise.
std::string ReadN(int fd, size_t n) {
  std::string out;
  const auto give_up = Clock::now() + std::chrono::seconds(5);
  while (out.size() < n && Clock::now() < give_up) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    const ssize_t got = ::read(fd, buf, std::min(sizeof(buf), n - out.size()));
    if (got <= 0) break;
    out.append(buf, static_cast<size_t>(got));
  }
  return out;
}

// True when the peer closed (EOF or reset) within 5 s.
bool ClosedByPeer(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 5000) <= 0) return false;
  char c;
  return ::read(fd, &c, 1) <= 0;
}

// An echo server for one connection at a time, on its own thread.
class EchoServer {
 public:
  EchoServer() : fd_(Listen(&port_)) {
    thread_ = std::thread([this] {
      for (;;) {
        int conn = ::accept(fd_, nullptr, nullptr);
        if (conn < 0) return;
        char buf[4096];
        ssize_t n;
        while ((n = ::read(conn, buf, sizeof(buf))) > 0) {
          if (::write(conn, buf, static_cast<size_t>(n)) != n) break;
        }
        ::close(conn);  // the client's half-close is answered with ours
      }
    });
  }
  ~EchoServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }

 private:
  uint16_t port_ = 0;
  int fd_;
  std::thread thread_;
};

std::unique_ptr<DelayProxy> StartProxy(uint16_t target, int min_ms, int max_ms) {
  DelayProxyOptions options;
  options.target_port = target;
  options.min_delay_ms = min_ms;
  options.max_delay_ms = max_ms;
  auto proxy = DelayProxy::Start(options);
  EXPECT_TRUE(proxy.ok()) << proxy.status();
  return proxy.ok() ? *std::move(proxy) : nullptr;
}

TEST(DelayProxyTest, EachRoundTripTakesTwoDelaysWithinTheRange) {
  EchoServer echo;
  auto proxy = StartProxy(echo.port(), 10, 30);
  ASSERT_NE(proxy, nullptr);
  const int fd = Connect(proxy->port());
  ASSERT_GE(fd, 0);
  double least = 1e9, most = 0;
  for (int i = 0; i < 10; ++i) {
    const std::string message = "ping-" + std::to_string(i);
    const auto start = Clock::now();
    ASSERT_EQ(::write(fd, message.data(), message.size()), static_cast<ssize_t>(message.size()));
    ASSERT_EQ(ReadN(fd, message.size()), message);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    least = std::min(least, ms);
    most = std::max(most, ms);
  }
  ::close(fd);
  EXPECT_GE(least, 20.0) << "two delays of at least 10 ms each";
  EXPECT_LT(most, 60.0 + 40.0) << "two delays of at most 30 ms, with room for a busy machine";
  EXPECT_EQ(proxy->stats().connections.load(), 1u);
}

TEST(DelayProxyTest, ManyChunksArriveWholeAndInOrderDespiteTheJitter) {
  EchoServer echo;
  auto proxy = StartProxy(echo.port(), 0, 20);
  ASSERT_NE(proxy, nullptr);
  const int fd = Connect(proxy->port());
  ASSERT_GE(fd, 0);
  std::string sent;
  for (int i = 0; i < 200; ++i) {
    const std::string chunk = std::to_string(i) + ",";
    ASSERT_EQ(::write(fd, chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
    sent += chunk;
    if (i % 20 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  EXPECT_EQ(ReadN(fd, sent.size()), sent);
  ::close(fd);
}

TEST(DelayProxyTest, AHalfCloseIsPassedOnAndTheEchoCloses) {
  EchoServer echo;
  auto proxy = StartProxy(echo.port(), 0, 5);
  ASSERT_NE(proxy, nullptr);
  const int fd = Connect(proxy->port());
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "bye", 3), 3);
  ::shutdown(fd, SHUT_WR);
  EXPECT_EQ(ReadN(fd, 3), "bye") << "written before the half-close, so still delivered";
  EXPECT_TRUE(ClosedByPeer(fd));
  ::close(fd);
}

TEST(DelayProxyTest, DropAllCutsOpenConnectionsAndNewOnesStillWork) {
  EchoServer echo;
  auto proxy = StartProxy(echo.port(), 0, 0);
  ASSERT_NE(proxy, nullptr);
  const int fd = Connect(proxy->port());
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "a", 1), 1);
  ASSERT_EQ(ReadN(fd, 1), "a");
  proxy->DropAll();
  EXPECT_TRUE(ClosedByPeer(fd));
  ::close(fd);
  const int again = Connect(proxy->port());
  ASSERT_GE(again, 0);
  ASSERT_EQ(::write(again, "b", 1), 1);
  EXPECT_EQ(ReadN(again, 1), "b");
  ::close(again);
}

TEST(DelayProxyTest, ARefusingTargetClosesTheClientAndIsCounted) {
  uint16_t port = 0;
  ::close(Listen(&port));  // a port nobody listens on
  auto proxy = StartProxy(port, 0, 0);
  ASSERT_NE(proxy, nullptr);
  const int fd = Connect(proxy->port());
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(ClosedByPeer(fd));
  ::close(fd);
  EXPECT_EQ(proxy->stats().connect_failures.load(), 1u);
}

TEST(DelayProxyTest, BadOptionsAreRefused) {
  DelayProxyOptions options;
  EXPECT_FALSE(DelayProxy::Start(options).ok()) << "no target";
  options.target_port = 1;
  options.min_delay_ms = 10;
  options.max_delay_ms = 5;
  EXPECT_FALSE(DelayProxy::Start(options).ok());
  options.max_delay_ms = 10;
  options.target_host = "not-an-address";
  EXPECT_FALSE(DelayProxy::Start(options).ok());
}

}  // namespace
}  // namespace rtb::loadtest

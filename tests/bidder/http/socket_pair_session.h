// A session served by a hand-driven worker (one the caller runs with
// poll/run_for, not an HttpServer's thread) over one end of a socket pair,
// admitted as the listener admits a connection from `peer`. The HTTP tests
// that run a worker late on purpose and the HTTP fuzz target feed sessions
// bytes this way, without a listener or the network.
#ifndef RTB_TESTS_BIDDER_HTTP_SOCKET_PAIR_SESSION_H_
#define RTB_TESTS_BIDDER_HTTP_SOCKET_PAIR_SESSION_H_

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bidder/http/internal/http_session.h"
#include "bidder/http/internal/server_core.h"

namespace rtb::bidder::internal {

// Starts the session on `worker` and returns the client's end (non-blocking;
// the caller closes it). Fails when no socket pair can be made or the core
// has no connection slot for `peer`.
inline absl::StatusOr<int> StartSocketPairSession(ServerCore& core, Worker& worker,
                                                  const boost::asio::ip::address& peer) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::InternalError("socketpair failed");
  }
  Socket socket(worker.ioc->get_executor());
  boost::system::error_code ec;
  socket.assign(boost::asio::ip::tcp::v4(), fds[0], ec);
  if (ec) {
    ::close(fds[0]);
    ::close(fds[1]);
    return absl::InternalError(absl::StrCat("assign: ", ec.message()));
  }
  RefuseReason refused;
  std::optional<ConnectionSlot> slot = core.ReserveConnection(PeerKeyOf(peer), &refused);
  if (!slot) {
    ::close(fds[1]);
    return absl::ResourceExhaustedError("no connection slot");
  }
  std::make_shared<Session>(worker, std::move(socket), peer, std::move(*slot))->Start();
  return fds[1];
}

// What the client end `client` has received once `expected` is among it, or
// after `turns` turns of `worker` of at most 5 ms each.
inline std::string ReceiveUntil(Worker& worker, int client, std::string_view expected, int turns) {
  std::string out;
  for (int turn = 0; turn < turns && out.find(expected) == std::string::npos; ++turn) {
    if (worker.ioc->stopped()) worker.ioc->restart();
    worker.ioc->run_for(std::chrono::milliseconds(5));
    char buffer[4096];
    for (ssize_t n; (n = ::recv(client, buffer, sizeof(buffer), 0)) > 0;) {
      out.append(buffer, static_cast<size_t>(n));
    }
  }
  return out;
}

}  // namespace rtb::bidder::internal

#endif  // RTB_TESTS_BIDDER_HTTP_SOCKET_PAIR_SESSION_H_

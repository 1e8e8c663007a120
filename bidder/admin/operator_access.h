// Operators' way in: the login and session routes of bidder/sessions/ on the
// bidder's HTTP server, the console's files, and the check every admin route
// makes before it answers.
//
//   POST /api/login, POST /api/logout, POST /api/logout-everywhere,
//   GET /api/session      bidder/sessions/session_routes.h, run on this
//                         component's own threads (argon2id and storage block)
//   GET /console[/<file>] the console (bidder/sessions/console_files.h),
//                         when server.console_enabled
//
// Logins in flight are bounded: argon2id takes tens of milliseconds and its
// configured memory per call, so a flood of logins gets 503 instead of a
// queue that grows without limit or eats the bidder's memory.
//
// Thread-safety: Register before the server starts; Authorize from any
// thread (it blocks on storage: call it off the I/O threads).
#ifndef RTB_BIDDER_ADMIN_OPERATOR_ACCESS_H_
#define RTB_BIDDER_ADMIN_OPERATOR_ACCESS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bidder/http/http_server.h"
#include "bidder/sessions/login.h"
#include "bidder/sessions/session_routes.h"
#include "config/config.h"
#include "prometheus/registry.h"
#include "storage/store.h"

namespace rtb::bidder {

// The address a login is counted under: `peer`, or when `peer` is one of
// `trusted_proxies`, the rightmost entry of `forwarded_for` (the
// X-Forwarded-For header) that is not itself a trusted proxy. Entries that
// are not IP addresses end the walk (the peer's view is kept). Addresses
// compare as parsed, so "::1" and "0:0::1" are one.
std::string ClientAddressOf(std::string_view peer, std::string_view forwarded_for,
                            const std::vector<std::string>& trusted_proxies);

// What the session checks read of a request, copied so that it can cross to
// a worker thread (HttpRequest's views end with the responder call).
struct OperatorRequest {
  // `remote_address` is ClientAddressOf the peer and its X-Forwarded-For.
  explicit OperatorRequest(const HttpRequest& request,
                           const std::vector<std::string>& trusted_proxies = {});
  sessions::SessionHttpRequest view() const;

  std::string method;
  std::string path;
  std::string cookie;
  std::string csrf_token;
  std::string content_type;
  std::string body;
  std::string remote_address;
};

HttpResponse ToHttpResponse(sessions::SessionHttpResponse response);

class OperatorAccess {
 public:
  // Logins that may wait or run at once; more get 503.
  static constexpr int kMaxLoginsInFlight = 32;

  // `config`, `store` (holding the bidder tables) and `registry` must
  // outlive this.
  OperatorAccess(const config::BidderConfig& config, storage::Store& store,
                 prometheus::Registry& registry);
  // Waits for the calls still running.
  ~OperatorAccess();
  OperatorAccess(const OperatorAccess&) = delete;
  OperatorAccess& operator=(const OperatorAccess&) = delete;

  void Register(HttpServer& server);

  // The caller's session, with the CSRF check when the call `changes_state`,
  // and `privilege` (empty: none needed) among the session's privileges. On failure,
  // ErrorResponse(status) is the answer: 401 without a live session, 403 for a missing CSRF token
  // or privilege, 503 when the session store fails. Blocks on storage.
  absl::StatusOr<sessions::AuthenticatedSession> Authorize(const OperatorRequest& request,
                                                           std::string_view privilege,
                                                           bool changes_state);
  static HttpResponse ErrorResponse(const absl::Status& status);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_ADMIN_OPERATOR_ACCESS_H_

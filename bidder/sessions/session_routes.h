// The HTTP face of operator sessions, as plain functions of a request
// description, so the bidder's HTTP server adapts them without this library
// depending on it:
//   POST /api/login              {"user":"..","password":".."} (JSON only:
//                                cross-site forms cannot send it without a
//                                CORS preflight) -> 200 {"user","session_id",
//                                "csrf_token"} + Set-Cookie; 401 one message
//                                for unknown user and wrong password; 429 +
//                                Retry-After when locked out
//   POST /api/logout             cookie + X-CSRF-Token -> 204 + clearing cookie
//   POST /api/logout-everywhere  cookie + X-CSRF-Token -> 204 + clearing cookie
//   GET  /api/session            cookie -> 200 {"user","session_id",
//                                "privileges","csrf_token","created_ms"}
// Other admin routes call Authorize first: it checks the cookie, and for
// methods other than GET/HEAD/OPTIONS the X-CSRF-Token header too.
//
// Every answer carries Cache-Control: no-store. Handle blocks (argon2id,
// storage): run it on a worker pool and post the response back.
//
// Thread-safety: safe for concurrent use.
#ifndef RTB_BIDDER_SESSIONS_SESSION_ROUTES_H_
#define RTB_BIDDER_SESSIONS_SESSION_ROUTES_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bidder/sessions/login.h"

namespace rtb::bidder::sessions {

struct SessionHttpRequest {
  std::string_view method;        // "GET", "POST", ...
  std::string_view path;          // without the query
  std::string_view cookie;        // the Cookie header, empty when absent
  std::string_view csrf_token;    // the X-CSRF-Token header
  std::string_view content_type;  // the Content-Type header
  std::string_view body;
  std::string_view remote_address;  // peer IP, no port
};

struct SessionHttpResponse {
  unsigned status = 200;
  std::string content_type;  // empty: no body
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

class SessionRoutes {
 public:
  static constexpr std::string_view kLoginPath = "/api/login";
  static constexpr std::string_view kLogoutPath = "/api/logout";
  static constexpr std::string_view kLogoutEverywherePath = "/api/logout-everywhere";
  static constexpr std::string_view kSessionPath = "/api/session";

  // `login` must outlive this.
  explicit SessionRoutes(LoginService& login) : login_(login) {}

  // True for the four paths above.
  static bool Handles(std::string_view path);
  // Answers one of the four paths (404 for another; 405 + Allow for the
  // wrong method).
  SessionHttpResponse Handle(const SessionHttpRequest& request);

  // The caller's session for another admin route; CSRF-checked unless the
  // method is GET, HEAD or OPTIONS. On failure ErrorResponse(status) is the
  // answer to send (401, 403, 503).
  absl::StatusOr<AuthenticatedSession> Authorize(const SessionHttpRequest& request);

  // The response for a failed call: 400, 401, 403, 409, 429 (+ Retry-After),
  // or 503 for storage failures (whose details are not shown).
  static SessionHttpResponse ErrorResponse(const absl::Status& status);

 private:
  SessionHttpResponse Login(const SessionHttpRequest& request);
  SessionHttpResponse Logout(const SessionHttpRequest& request, bool everywhere);
  SessionHttpResponse Current(const SessionHttpRequest& request);

  LoginService& login_;
};

}  // namespace rtb::bidder::sessions

#endif  // RTB_BIDDER_SESSIONS_SESSION_ROUTES_H_

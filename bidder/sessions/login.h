// Operator login: passwords checked against the argon2id hashes of
// config::SessionsConfig::operators, rate limits per user and per client
// address with doubling lockouts, and the session cookie.
//
// Security properties:
//   - one answer, Unauthenticated "invalid user or password", for an unknown
//     user and for a wrong password; an unknown user costs one argon2id
//     verification against a dummy hash of the same parameters, so the two
//     take the same time; user names are compared in constant time;
//   - a locked-out user or address is refused (ResourceExhausted, with the
//     seconds to wait in RetryAfterSeconds) before any password is checked;
//   - every login mints a new session (no fixation); the session the client
//     presented, if any, is revoked;
//   - the cookie is `__Host-rtb_session=<token>; Path=/; Max-Age=<lifetime>;
//     Secure; HttpOnly; SameSite=Strict`. With cookie_secure off (loopback
//     development only; config validation enforces it) it is `rtb_session`
//     without Secure, because browsers reject a `__Host-` cookie without it;
//   - state-changing calls carry the session's CSRF token (header
//     X-CSRF-Token), an HMAC of the session token that is never stored.
//
// Thread-safety: safe for concurrent use. Login runs argon2id (tens of ms
// and the configured memory) and every call blocks on storage: run them on
// a worker pool, never on an HTTP I/O thread.
#ifndef RTB_BIDDER_SESSIONS_LOGIN_H_
#define RTB_BIDDER_SESSIONS_LOGIN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bidder/sessions/session_store.h"
#include "config/config.h"
#include "prometheus/registry.h"
#include "storage/clock.h"

namespace rtb::bidder::sessions {

namespace internal {
class LoginRateLimiter;
struct LoginMetrics;
}  // namespace internal

inline constexpr std::string_view kSecureCookieName = "__Host-rtb_session";
inline constexpr std::string_view kLoopbackCookieName = "rtb_session";
inline constexpr std::string_view kCsrfHeader = "X-CSRF-Token";

// Privileges every configured operator's session gets.
inline const std::set<std::string>& OperatorPrivileges() {
  static const std::set<std::string> privileges = {"read", "erase"};
  return privileges;
}

struct LoginResult {
  // The Set-Cookie header value carrying the token.
  std::string set_cookie;
  // For the X-CSRF-Token header of later state-changing calls.
  std::string csrf_token;
  Session session;
};

// A request's session, authenticated by its cookie.
struct AuthenticatedSession {
  Session session;
  std::string csrf_token;
  // The bearer token from the cookie; needed to update or revoke the session.
  std::string token;
};

// Seconds a ResourceExhausted login refusal asks the client to wait.
std::optional<int64_t> RetryAfterSeconds(const absl::Status& status);

// Builds SessionStoreOptions from the config (clock shared).
SessionStoreOptions SessionStoreOptionsFrom(const config::SessionsConfig& config,
                                            std::shared_ptr<storage::Clock> clock);

class LoginService {
 public:
  // `sessions` must outlive this. `clock` defaults to the system clock.
  LoginService(SessionStore& sessions, const config::SessionsConfig& config,
               prometheus::Registry* registry = nullptr,
               std::shared_ptr<storage::Clock> clock = nullptr);
  ~LoginService();
  LoginService(const LoginService&) = delete;
  LoginService& operator=(const LoginService&) = delete;

  // Checks the password and creates a session. `cookie_header` is the
  // request's Cookie header (may be empty): a session named there is
  // revoked, so an identifier planted before login is worthless.
  absl::StatusOr<LoginResult> Login(std::string_view user, std::string_view password,
                                    std::string_view client_address,
                                    std::string_view cookie_header = {});

  // The session named by the Cookie header. Unauthenticated when there is
  // none, or it is unknown, revoked or expired.
  absl::StatusOr<AuthenticatedSession> Authenticate(std::string_view cookie_header);
  // Authenticate plus the CSRF check for a state-changing call:
  // PermissionDenied when `csrf_header` is missing or wrong.
  absl::StatusOr<AuthenticatedSession> AuthenticateForChange(std::string_view cookie_header,
                                                             std::string_view csrf_header);

  // Ends the session (cookie + CSRF required). Returns the Set-Cookie value
  // that clears the cookie.
  absl::StatusOr<std::string> Logout(std::string_view cookie_header, std::string_view csrf_header);
  // Ends every session of the caller's user; returns the clearing cookie.
  absl::StatusOr<std::string> LogoutEverywhere(std::string_view cookie_header,
                                               std::string_view csrf_header);

  std::string_view cookie_name() const;
  std::string SessionCookie(std::string_view token) const;
  std::string ClearingCookie() const;

 private:
  struct Operator {
    std::string user_digest;  // SHA-256 of the name, compared in constant time
    std::string password_hash;
  };
  // The token in `cookie_header` under this service's cookie name.
  std::optional<std::string> TokenFromCookie(std::string_view cookie_header) const;

  SessionStore& sessions_;
  const config::SessionsConfig config_;
  std::shared_ptr<storage::Clock> clock_;
  std::vector<Operator> operators_;
  std::string dummy_hash_;
  std::unique_ptr<internal::LoginRateLimiter> limiter_;
  std::unique_ptr<internal::LoginMetrics> metrics_;
};

}  // namespace rtb::bidder::sessions

#endif  // RTB_BIDDER_SESSIONS_LOGIN_H_

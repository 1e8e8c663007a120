#include "bidder/sessions/login.h"

#include <sodium.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bidder/sessions/internal/keys.h"
#include "bidder/sessions/internal/login_rate_limiter.h"
#include "bidder/sessions/internal/metrics.h"

namespace rtb::bidder::sessions {
namespace {

constexpr char kRetryAfterPayload[] = "rtb.sessions/retry-after-seconds";
constexpr char kInvalidCredentials[] = "invalid user or password";

std::string Digest(std::string_view text) {
  std::string out(crypto_hash_sha256_BYTES, '\0');
  crypto_hash_sha256(reinterpret_cast<unsigned char*>(out.data()),
                     reinterpret_cast<const unsigned char*>(text.data()), text.size());
  return out;
}

// The m (KiB) and t parameters of an argon2id hash string, so the dummy hash
// costs what a real one does.
void HashParameters(std::string_view hash, unsigned long long* opslimit, size_t* memlimit) {
  *opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
  *memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
  std::vector<absl::string_view> parts =
      absl::StrSplit(absl::string_view(hash.data(), hash.size()), '$');
  if (parts.size() < 4) return;
  uint64_t m = 0;
  uint64_t t = 0;
  for (absl::string_view p : absl::StrSplit(parts[3], ',')) {
    if (absl::ConsumePrefix(&p, "m=")) (void)absl::SimpleAtoi(p, &m);
    if (absl::ConsumePrefix(&p, "t=")) (void)absl::SimpleAtoi(p, &t);
  }
  if (m > 0 && t > 0) {
    *opslimit = t;
    *memlimit = static_cast<size_t>(m) * 1024;
  }
}

bool VerifyPassword(const std::string& hash, std::string_view password) {
  // crypto_pwhash_str_verify wants a NUL-terminated hash; the password is
  // passed with its length.
  return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

}  // namespace

std::optional<int64_t> RetryAfterSeconds(const absl::Status& status) {
  auto payload = status.GetPayload(kRetryAfterPayload);
  int64_t seconds = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &seconds)) return std::nullopt;
  return seconds;
}

SessionStoreOptions SessionStoreOptionsFrom(const config::SessionsConfig& config,
                                            std::shared_ptr<storage::Clock> clock) {
  SessionStoreOptions options;
  options.absolute_lifetime = std::chrono::seconds(config.absolute_lifetime_s);
  options.idle_timeout = std::chrono::seconds(config.idle_timeout_s);
  options.touch_debounce = std::chrono::seconds(config.touch_debounce_s);
  options.clock = std::move(clock);
  return options;
}

LoginService::LoginService(SessionStore& sessions, const config::SessionsConfig& config,
                           prometheus::Registry* registry, std::shared_ptr<storage::Clock> clock)
    : sessions_(sessions),
      config_(config),
      clock_(clock ? std::move(clock) : storage::SystemClock()),
      limiter_(std::make_unique<internal::LoginRateLimiter>(config.login_rate_limit)),
      metrics_(std::make_unique<internal::LoginMetrics>(registry)) {
  if (sodium_init() < 0) std::abort();
  for (const config::OperatorConfig& op : config_.operators) {
    operators_.push_back({Digest(op.user), op.password_hash});
  }
  unsigned long long opslimit = 0;
  size_t memlimit = 0;
  HashParameters(operators_.empty() ? std::string_view() : operators_[0].password_hash, &opslimit,
                 &memlimit);
  std::string random_password = internal::NewToken();
  char hash[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(hash, random_password.data(), random_password.size(), opslimit, memlimit) !=
      0) {
    std::abort();  // out of memory at start-up
  }
  dummy_hash_ = hash;
}

LoginService::~LoginService() = default;

std::string_view LoginService::cookie_name() const {
  return config_.cookie_secure ? kSecureCookieName : kLoopbackCookieName;
}

std::string LoginService::SessionCookie(std::string_view token) const {
  return absl::StrCat(std::string(cookie_name()), "=", std::string(token),
                      "; Path=/; Max-Age=", config_.absolute_lifetime_s,
                      config_.cookie_secure ? "; Secure" : "", "; HttpOnly; SameSite=Strict");
}

std::string LoginService::ClearingCookie() const {
  return absl::StrCat(std::string(cookie_name()), "=; Path=/; Max-Age=0",
                      config_.cookie_secure ? "; Secure" : "", "; HttpOnly; SameSite=Strict");
}

std::optional<std::string> LoginService::TokenFromCookie(std::string_view cookie_header) const {
  const std::string_view name = cookie_name();
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(cookie_header.data(), cookie_header.size()), ';')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.size() > name.size() && part[name.size()] == '=' &&
        std::string_view(part.data(), name.size()) == name) {
      return std::string(part.substr(name.size() + 1));
    }
  }
  return std::nullopt;
}

absl::StatusOr<LoginResult> LoginService::Login(std::string_view user, std::string_view password,
                                                std::string_view client_address,
                                                std::string_view cookie_header) {
  const int64_t now = clock_->NowMillis();
  if (int64_t locked_ms = limiter_->LockedForMs(user, client_address, now); locked_ms > 0) {
    metrics_->locked_out->Increment();
    const int64_t seconds = (locked_ms + 999) / 1000;
    absl::Status status = absl::ResourceExhaustedError(
        absl::StrCat("too many failed logins; retry in ", seconds, " s"));
    status.SetPayload(kRetryAfterPayload, absl::Cord(absl::StrCat(seconds)));
    return status;
  }
  // Every operator is compared, so the time does not depend on which matched.
  const std::string digest = Digest(user);
  const std::string* hash = &dummy_hash_;
  bool known = false;
  for (const Operator& op : operators_) {
    const bool match = internal::ConstantTimeEquals(digest, op.user_digest);
    if (match) hash = &op.password_hash;
    known |= match;
  }
  const bool password_ok = VerifyPassword(*hash, password);
  if (!known || !password_ok) {
    limiter_->RecordFailure(user, client_address, now);
    metrics_->refused->Increment();
    return absl::UnauthenticatedError(kInvalidCredentials);
  }
  limiter_->RecordSuccess(user);
  if (std::optional<std::string> previous = TokenFromCookie(cookie_header)) {
    // Best effort: the new session does not depend on it.
    (void)sessions_.Revoke(*previous);
  }
  absl::StatusOr<CreatedSession> created = sessions_.Create(user, OperatorPrivileges());
  if (!created.ok()) return created.status();
  metrics_->succeeded->Increment();
  LoginResult result;
  result.set_cookie = SessionCookie(created->token);
  std::optional<std::string> raw = internal::DecodeToken(created->token);
  result.csrf_token = internal::CsrfTokenOf(*raw);
  sodium_memzero(raw->data(), raw->size());
  result.session = std::move(created->session);
  return result;
}

absl::StatusOr<AuthenticatedSession> LoginService::Authenticate(std::string_view cookie_header) {
  std::optional<std::string> token = TokenFromCookie(cookie_header);
  if (!token) return absl::UnauthenticatedError("no valid session");
  absl::StatusOr<Session> session = sessions_.Authenticate(*token);
  if (!session.ok()) return session.status();
  AuthenticatedSession result;
  std::optional<std::string> raw = internal::DecodeToken(*token);
  result.csrf_token = internal::CsrfTokenOf(*raw);
  sodium_memzero(raw->data(), raw->size());
  result.session = *std::move(session);
  result.token = *std::move(token);
  return result;
}

absl::StatusOr<AuthenticatedSession> LoginService::AuthenticateForChange(
    std::string_view cookie_header, std::string_view csrf_header) {
  absl::StatusOr<AuthenticatedSession> session = Authenticate(cookie_header);
  if (!session.ok()) return session.status();
  if (csrf_header.empty() || !internal::ConstantTimeEquals(csrf_header, session->csrf_token)) {
    return absl::PermissionDeniedError("missing or wrong CSRF token");
  }
  return session;
}

absl::StatusOr<std::string> LoginService::Logout(std::string_view cookie_header,
                                                 std::string_view csrf_header) {
  absl::StatusOr<AuthenticatedSession> session = AuthenticateForChange(cookie_header, csrf_header);
  if (!session.ok()) return session.status();
  if (absl::Status s = sessions_.Revoke(session->token); !s.ok()) return s;
  return ClearingCookie();
}

absl::StatusOr<std::string> LoginService::LogoutEverywhere(std::string_view cookie_header,
                                                           std::string_view csrf_header) {
  absl::StatusOr<AuthenticatedSession> session = AuthenticateForChange(cookie_header, csrf_header);
  if (!session.ok()) return session.status();
  // This session first, so the caller is logged out even if the sweep fails.
  if (absl::Status s = sessions_.Revoke(session->token); !s.ok()) return s;
  absl::StatusOr<int> revoked = sessions_.RevokeAll(session->session.state.user);
  if (!revoked.ok()) return revoked.status();
  return ClearingCookie();
}

}  // namespace rtb::bidder::sessions

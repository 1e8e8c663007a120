// Cookie and CSRF headers into the operator session checks
// (bidder/sessions/login.h) over an embedded store holding one live session.
//
// Input: the Cookie header, then after the first '\n' the X-CSRF-Token
// header. "%TOKEN%" and "%CSRF%" in either are replaced by the live
// session's token and CSRF token, so the fuzzer reaches the paths behind a
// valid cookie. Whatever the bytes: Unauthenticated or PermissionDenied, or
// the live session itself; a session is found only for the exact token (no
// other spelling of it), and a change is allowed only with its exact CSRF
// token. The token decoder accepts only the canonical 43-character base64url
// spelling of 32 bytes.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "bidder/sessions/internal/keys.h"
#include "bidder/sessions/login.h"
#include "bidder/sessions/session_store.h"
#include "config/config.h"
#include "tests/fuzz/fuzz_store.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rtb::fuzz {
namespace {

namespace sessions = bidder::sessions;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "session_cookie fuzz target: %s\n", what);
  std::abort();
}

struct Harness {
  Harness() : store(FuzzStore(), sessions::SessionStoreOptions{}) {
    config::SessionsConfig config;
    // The loopback cookie name (rtb_session); seeds use both names.
    config.cookie_secure = false;
    login = std::make_unique<sessions::LoginService>(store, config);
    absl::StatusOr<sessions::CreatedSession> created = store.Create("ops", {"read"});
    if (!created.ok()) Fail("cannot create the live session");
    token = created->token;
    absl::StatusOr<sessions::AuthenticatedSession> live =
        login->Authenticate(std::string(login->cookie_name()) + "=" + token);
    if (!live.ok()) Fail("the live session does not authenticate");
    csrf = live->csrf_token;
  }

  sessions::SessionStore store;
  std::unique_ptr<sessions::LoginService> login;
  std::string token;
  std::string csrf;
};

bool IsRefusal(const absl::Status& status) {
  return absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status);
}

}  // namespace

int FuzzSessionCookie(const uint8_t* data, size_t size) {
  static Harness* harness = new Harness();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const auto fill = [&](std::string_view text) {
    return absl::StrReplaceAll(absl::string_view(text.data(), text.size()),
                               {{"%TOKEN%", harness->token}, {"%CSRF%", harness->csrf}});
  };
  const std::string cookie = fill(input.substr(0, newline));
  const std::string csrf =
      newline == std::string_view::npos ? std::string() : fill(input.substr(newline + 1));

  absl::StatusOr<sessions::AuthenticatedSession> session = harness->login->Authenticate(cookie);
  if (!session.ok() && !IsRefusal(session.status())) Fail("an unexpected error");
  if (session.ok() && (session->token != harness->token || session->session.state.user != "ops")) {
    Fail("a session for a token that is not the live one");
  }
  absl::StatusOr<sessions::AuthenticatedSession> change =
      harness->login->AuthenticateForChange(cookie, csrf);
  if (!change.ok() && !IsRefusal(change.status())) Fail("an unexpected error on change");
  if (change.ok() && (!session.ok() || csrf != harness->csrf)) {
    Fail("a change allowed without the live session and its exact CSRF token");
  }

  std::optional<std::string> raw = sessions::internal::DecodeToken(cookie);
  if (raw.has_value() && sessions::internal::Base64Url(*raw) != cookie) {
    Fail("a token decoded from a spelling that is not canonical");
  }
  return 0;
}

}  // namespace rtb::fuzz

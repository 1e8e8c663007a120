// Operators for HTTP tests of a whole BidderApp: a configured operator with
// a cheap argon2id hash, a login over a TestConnection, and requests that
// carry the session cookie and CSRF token as the console sends them.
#ifndef RTB_TESTS_BIDDER_OPERATOR_LOGIN_H_
#define RTB_TESTS_BIDDER_OPERATOR_LOGIN_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "config/config.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/http_test_client.h"
#include "tests/bidder/sessions/test_password_hash.h"

namespace rtb::bidder::testing {

inline constexpr char kOperatorUser[] = "ops@example.test";
inline constexpr char kOperatorPassword[] = "correct horse battery staple";

// Adds kOperatorUser to `config`, with a cookie a plain-HTTP loopback test
// client may hold (cookie_secure off is allowed on loopback only).
inline void AddTestOperator(config::BidderConfig& config) {
  config.sessions.operators.push_back(
      {.user = kOperatorUser,
       .password_hash = sessions::testing::TestPasswordHash(kOperatorPassword)});
  config.sessions.cookie_secure = false;
  config.server.listen_address = "127.0.0.1";
}

struct OperatorSession {
  std::string cookie;      // "name=value", as a browser sends it back
  std::string csrf_token;  // for X-CSRF-Token
  int status = 0;          // of the login
};

inline OperatorSession LogIn(TestConnection& connection, std::string_view user = kOperatorUser,
                             std::string_view password = kOperatorPassword) {
  OperatorSession session;
  const std::optional<TestResponse> response = connection.RoundTrip(PostRequest(
      "/api/login",
      nlohmann::json{{"user", std::string(user)}, {"password", std::string(password)}}.dump()));
  if (!response.has_value()) return session;
  session.status = static_cast<int>(response->status);
  if (response->status != 200) return session;
  const std::string set_cookie = response->Header("set-cookie");
  session.cookie = set_cookie.substr(0, set_cookie.find(';'));
  session.csrf_token = nlohmann::json::parse(response->body)["csrf_token"];
  return session;
}

// Headers for GetRequest/PostRequest: the cookie, and the CSRF token when
// `with_csrf`.
inline std::string SessionHeaders(const OperatorSession& session, bool with_csrf = true) {
  std::string headers = absl::StrCat("Cookie: ", session.cookie, "\r\n");
  if (with_csrf) absl::StrAppend(&headers, "X-CSRF-Token: ", session.csrf_token, "\r\n");
  return headers;
}

}  // namespace rtb::bidder::testing

#endif  // RTB_TESTS_BIDDER_OPERATOR_LOGIN_H_

// Byte layouts of the session tables and the token encodings.
//
// Token (the bearer credential, only ever in the cookie):
//   32 bytes from randombytes_buf, base64url without padding (43 chars).
//
// sessions row key (what storage sees instead of the token):
//   +---------------------------+
//   | SHA-256(raw token) 32 B   |
//   +---------------------------+
//
// user_sessions row key (one row per login; the qualifier is the session key):
//   +-----------------------+------+-----+----------------------------------+
//   | salt: SHA-256(user)   | user | '|' | INT64_MAX - created ms, 8 B BE   |
//   |       first 2 bytes   |      |     | (newest first in a prefix scan)  |
//   +-----------------------+------+-----+----------------------------------+
//   Operator names are [A-Za-z0-9._@-], so '|' cannot occur inside one.
//
// CSRF token: HMAC-SHA256(key = raw token, "rtb-csrf-v1"), base64url. It is
// derived, never stored, and reveals nothing of the token it is bound to.
#ifndef RTB_BIDDER_SESSIONS_INTERNAL_KEYS_H_
#define RTB_BIDDER_SESSIONS_INTERNAL_KEYS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtb::bidder::sessions::internal {

inline constexpr size_t kTokenBytes = 32;
inline constexpr size_t kSessionKeyBytes = 32;

// A fresh random token, base64url encoded.
std::string NewToken();
// The raw token bytes when `token` is a well-formed encoded token.
std::optional<std::string> DecodeToken(std::string_view token);
// SHA-256 of the raw token bytes: the sessions row key.
std::string SessionKeyOf(std::string_view raw_token);
std::string CsrfTokenOf(std::string_view raw_token);

std::string UserIndexPrefix(std::string_view user);
std::string UserIndexRow(std::string_view user, int64_t created_ms);

// Byte-wise comparison whose time depends only on the lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

std::string Base64Url(std::string_view bytes);
std::optional<std::string> FromBase64Url(std::string_view text);
// First bytes of the session key in hex: an identifier safe to show and log.
std::string SessionIdOf(std::string_view session_key);

}  // namespace rtb::bidder::sessions::internal

#endif  // RTB_BIDDER_SESSIONS_INTERNAL_KEYS_H_

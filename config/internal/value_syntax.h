// Syntax checks of configuration values: identifiers, host names, URLs,
// addresses, codes, password hash strings, time zones. Each says whether a
// value is well formed; what to call the problem is up to the caller.
#ifndef RTB_CONFIG_INTERNAL_VALUE_SYNTAX_H_
#define RTB_CONFIG_INTERNAL_VALUE_SYNTAX_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace rtb::config::internal {

// 1..max_length characters, each an ASCII letter or digit or one of `extra`.
// With `lower_case_only`, letters must be lower case.
bool IsIdentifier(std::string_view text, size_t max_length, std::string_view extra,
                  bool lower_case_only = false);

// 1..max_length characters from '!' to '~' (printable ASCII, no space).
bool IsPrintableToken(std::string_view text, size_t max_length);

// Name of an environment variable: [A-Za-z_][A-Za-z0-9_]*, at most 128.
bool IsEnvironmentVariableName(std::string_view text);

// A lower-case DNS name of at least two labels ("example.com"): labels of
// [a-z0-9-], 1-63 long, not starting or ending with '-'; at most 253 in all.
bool IsLowerCaseDomain(std::string_view text);

// IAB Content Taxonomy 1.0 code: "IAB<1-2 digits>" optionally followed by
// "-<1-3 digits>" ("IAB3", "IAB3-1").
bool IsIabCategory(std::string_view text);

// ISO 639-1 alpha-2 language code, lower case ("de").
bool IsLanguageCode(std::string_view text);

// Base64 text, standard or web-safe alphabet, padding optional, of at least
// `min_bytes` bytes once decoded (the syntax only; nothing is decoded here).
bool IsBase64Key(std::string_view text, size_t min_bytes);

// "type/subtype" of RFC 6838 restricted-name characters ("video/mp4").
bool IsMimeType(std::string_view text);

// An absolute HTTP path: starts with '/', printable ASCII without '?', '#'
// or '%'; at most 256.
bool IsHttpPath(std::string_view text);

// IPv4 dotted quad or IPv6 literal (without brackets).
bool IsIpAddress(std::string_view text);

// "host:port" with a DNS name or IPv4 host, or "[v6addr]:port"; port 1-65535.
bool IsHostPort(std::string_view text);

// What is wrong with `url` as an absolute URL of the given schemes ("" when
// nothing): scheme "https" (or also "http" when `allow_http`), a host name or
// address, an optional port, then an optional path, query and fragment of
// printable ASCII without quotes, '<', '>', '\\' or whitespace. Without
// `allow_query_and_fragment` neither '?' nor '#' may appear, and the URL may
// not end with '/'. At most 2048 characters.
std::string UrlProblem(std::string_view url, bool allow_http, bool allow_query_and_fragment);

// libsodium crypto_pwhash_str form:
// "$argon2id$v=19$m=<n>,t=<n>,p=<n>$<salt>$<hash>" with base64 (no padding)
// salt of at least 8 bytes and hash of at least 16 bytes, at most 127 chars.
bool IsArgon2idHashString(std::string_view text);

// IANA zone name syntax ("America/New_York", "Etc/GMT+5", "UTC"): components
// of [A-Za-z0-9_+-] starting with a letter, separated by '/', at most 64.
bool IsTimeZoneName(std::string_view text);
// The zone exists in the time zone database absl reads ($TZDIR or
// /usr/share/zoneinfo). Call only with names that pass IsTimeZoneName, so
// no file outside the database is ever opened.
bool TimeZoneExists(const std::string& name);

}  // namespace rtb::config::internal

#endif  // RTB_CONFIG_INTERNAL_VALUE_SYNTAX_H_

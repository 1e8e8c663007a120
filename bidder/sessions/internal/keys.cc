#include "bidder/sessions/internal/keys.h"

#include <sodium.h>

#include <limits>

#include "absl/strings/ascii.h"
#include "storage/key_bytes.h"
#include "storage/types.h"

namespace rtb::bidder::sessions::internal {
namespace {

constexpr std::string_view kCsrfLabel = "rtb-csrf-v1";

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string Sha256(std::string_view bytes) {
  std::string out(crypto_hash_sha256_BYTES, '\0');
  crypto_hash_sha256(reinterpret_cast<unsigned char*>(out.data()), Bytes(bytes), bytes.size());
  return out;
}

}  // namespace

std::string Base64Url(std::string_view bytes) {
  const int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), Bytes(bytes), bytes.size(), variant);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

std::optional<std::string> FromBase64Url(std::string_view text) {
  // libsodium's decoder maps some bytes outside the alphabet (0xa8 found by
  // the session_cookie fuzz target) onto its characters, which would give
  // one token several spellings: only [A-Za-z0-9_-] get through.
  for (char c : text) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') {
      return std::nullopt;
    }
  }
  std::string out(text.size(), '\0');
  size_t length = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &length, &end,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  out.resize(length);
  return out;
}

std::string NewToken() {
  std::string raw(kTokenBytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  std::string token = Base64Url(raw);
  sodium_memzero(raw.data(), raw.size());
  return token;
}

std::optional<std::string> DecodeToken(std::string_view token) {
  if (token.size() != (kTokenBytes * 4 + 2) / 3) return std::nullopt;
  std::optional<std::string> raw = FromBase64Url(token);
  if (!raw || raw->size() != kTokenBytes) return std::nullopt;
  return raw;
}

std::string SessionKeyOf(std::string_view raw_token) { return Sha256(raw_token); }

std::string CsrfTokenOf(std::string_view raw_token) {
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, Bytes(raw_token), raw_token.size());
  crypto_auth_hmacsha256_update(&state, Bytes(kCsrfLabel), kCsrfLabel.size());
  crypto_auth_hmacsha256_final(&state, mac);
  sodium_memzero(&state, sizeof(state));
  return Base64Url(std::string_view(reinterpret_cast<const char*>(mac), sizeof(mac)));
}

std::string UserIndexPrefix(std::string_view user) {
  std::string prefix = Sha256(user).substr(0, 2);
  prefix.append(user);
  prefix.push_back('|');
  return prefix;
}

std::string UserIndexRow(std::string_view user, int64_t created_ms) {
  return UserIndexPrefix(user) +
         storage::EncodeCounter(std::numeric_limits<int64_t>::max() - created_ms);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string SessionIdOf(std::string_view session_key) {
  std::string_view head = session_key.substr(0, 8);
  return storage::Hex(head);
}

}  // namespace rtb::bidder::sessions::internal

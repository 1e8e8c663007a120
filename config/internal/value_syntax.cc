#include "config/internal/value_syntax.h"

#include <arpa/inet.h>

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "config/server_config.h"

namespace rtb::config::internal {
namespace {

bool IsDigits(std::string_view text, size_t min_length, size_t max_length) {
  if (text.size() < min_length || text.size() > max_length) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsPort(std::string_view text) {
  uint32_t port = 0;
  return IsDigits(text, 1, 5) &&
         absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &port) && port >= 1 &&
         port <= 65535;
}

// Host names in URLs and endpoints may use any case (DNS ignores it).
bool IsDnsName(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  for (absl::string_view label : absl::StrSplit(absl::string_view(text.data(), text.size()), '.')) {
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
    }
  }
  return true;
}

bool IsIpv4(const std::string& text) {
  in_addr address;
  return inet_pton(AF_INET, text.c_str(), &address) == 1;
}

bool IsIpv6(const std::string& text) {
  in6_addr address;
  return inet_pton(AF_INET6, text.c_str(), &address) == 1;
}

bool IsBase64NoPadding(std::string_view text, size_t min_length) {
  if (text.size() < min_length) return false;
  for (char c : text) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/') return false;
  }
  return true;
}

// "name=<digits>".
bool IsParameter(std::string_view text, std::string_view name) {
  if (text.size() <= name.size() + 1 || text.substr(0, name.size()) != name ||
      text[name.size()] != '=') {
    return false;
  }
  std::string_view digits = text.substr(name.size() + 1);
  return IsDigits(digits, 1, 10) && digits != "0";
}

}  // namespace

bool IsIdentifier(std::string_view text, size_t max_length, std::string_view extra,
                  bool lower_case_only) {
  if (text.empty() || text.size() > max_length) return false;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (absl::ascii_isdigit(u) || absl::ascii_islower(u)) continue;
    if (absl::ascii_isupper(u) && !lower_case_only) continue;
    if (extra.find(c) != std::string_view::npos) continue;
    return false;
  }
  return true;
}

bool IsPrintableToken(std::string_view text, size_t max_length) {
  if (text.empty() || text.size() > max_length) return false;
  for (char c : text) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

bool IsEnvironmentVariableName(std::string_view text) {
  if (text.empty() || absl::ascii_isdigit(static_cast<unsigned char>(text[0]))) return false;
  return IsIdentifier(text, 128, "_");
}

bool IsLowerCaseDomain(std::string_view text) {
  if (!IsDnsName(text) || text.find('.') == std::string_view::npos) return false;
  for (char c : text) {
    if (absl::ascii_isupper(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsIabCategory(std::string_view text) {
  if (text.substr(0, 3) != "IAB") return false;
  text.remove_prefix(3);
  size_t dash = text.find('-');
  if (dash == std::string_view::npos) return IsDigits(text, 1, 2);
  return IsDigits(text.substr(0, dash), 1, 2) && IsDigits(text.substr(dash + 1), 1, 3);
}

bool IsMimeType(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos || text.size() > 127) return false;
  constexpr std::string_view kRestricted = "!#$&-^_.+";
  return IsIdentifier(text.substr(0, slash), 63, kRestricted) &&
         IsIdentifier(text.substr(slash + 1), 63, kRestricted);
}

bool IsHttpPath(std::string_view text) {
  if (text.empty() || text.front() != '/' || text.size() > 256) return false;
  for (char c : text) {
    if (c < '!' || c > '~' || c == '?' || c == '#' || c == '%') return false;
  }
  return true;
}

bool IsIpAddress(std::string_view text) {
  std::string address(text);
  return IsIpv4(address) || IsIpv6(address);
}

bool IsHostPort(std::string_view text) {
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return false;
    }
    return IsIpv6(std::string(text.substr(1, close - 1))) && IsPort(text.substr(close + 2));
  }
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || text.find(':') != colon) return false;
  return IsDnsName(text.substr(0, colon)) && IsPort(text.substr(colon + 1));
}

std::string UrlProblem(std::string_view url, bool allow_http, bool allow_query_and_fragment) {
  if (url.empty()) return "required";
  if (url.size() > 2048) return "must be at most 2048 characters";
  std::string_view rest = url;
  if (rest.substr(0, 8) == "https://") {
    rest.remove_prefix(8);
  } else if (allow_http && rest.substr(0, 7) == "http://") {
    rest.remove_prefix(7);
  } else {
    return allow_http ? "must start with http:// or https://" : "must start with https://";
  }
  for (char c : url) {
    if (c <= ' ' || c > '~' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' ||
        c == '`') {
      return "must be printable ASCII without spaces, quotes, '<', '>', '\\' or '`' "
             "(percent-encode them)";
    }
  }
  size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos) return "must not contain user information";
  std::string_view host = authority;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos || !IsIpv6(std::string(host.substr(1, close - 1)))) {
      return "has an invalid IPv6 host";
    }
    std::string_view after = host.substr(close + 1);
    if (!after.empty() && (after.front() != ':' || !IsPort(after.substr(1)))) {
      return "has an invalid port";
    }
  } else {
    size_t colon = host.find(':');
    if (colon != std::string_view::npos) {
      if (!IsPort(host.substr(colon + 1))) return "has an invalid port";
      host = host.substr(0, colon);
    }
    if (host.empty()) return "has no host";
    if (!IsDnsName(host)) return "has an invalid host name";
  }
  if (!allow_query_and_fragment) {
    if (tail.find_first_of("?#") != std::string_view::npos) {
      return "must not have a query or fragment";
    }
    if (!tail.empty() && tail.back() == '/') return "must not end with '/'";
  }
  return "";
}

bool IsArgon2idHashString(std::string_view text) {
  constexpr std::string_view kPrefix = "$argon2id$v=19$";
  if (text.size() > 127 || text.substr(0, kPrefix.size()) != kPrefix) return false;
  std::vector<absl::string_view> parts = absl::StrSplit(
      absl::string_view(text.data() + kPrefix.size(), text.size() - kPrefix.size()), '$');
  if (parts.size() != 3) return false;
  std::vector<absl::string_view> parameters = absl::StrSplit(parts[0], ',');
  auto view = [](absl::string_view s) { return std::string_view(s.data(), s.size()); };
  return parameters.size() == 3 && IsParameter(view(parameters[0]), "m") &&
         IsParameter(view(parameters[1]), "t") && IsParameter(view(parameters[2]), "p") &&
         IsBase64NoPadding(view(parts[1]), 11) && IsBase64NoPadding(view(parts[2]), 22);
}

bool IsTimeZoneName(std::string_view text) {
  if (text.empty() || text.size() > 64) return false;
  for (absl::string_view part : absl::StrSplit(absl::string_view(text.data(), text.size()), '/')) {
    if (part.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(part.front()))) {
      return false;
    }
    if (!IsIdentifier(std::string_view(part.data(), part.size()), 64, "_+-")) return false;
  }
  return true;
}

bool TimeZoneExists(const std::string& name) {
  absl::TimeZone zone;
  return absl::LoadTimeZone(name, &zone);
}

bool IsLanguageCode(std::string_view text) {
  return text.size() == 2 && text[0] >= 'a' && text[0] <= 'z' && text[1] >= 'a' && text[1] <= 'z';
}

bool IsBase64Key(std::string_view text, size_t min_bytes) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '/' || c == '-' || c == '_';
    if (!ok) return false;
  }
  if (text.size() % 4 == 1) return false;
  return text.size() * 3 / 4 >= min_bytes;
}

}  // namespace rtb::config::internal

namespace rtb::config {

bool IsLoopbackAddress(std::string_view text) {
  std::string address(text);
  in_addr v4;
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, address.c_str(), &v6) != 1) return false;
  const uint8_t* b = v6.s6_addr;
  bool loopback_v6 = true;
  for (int i = 0; i < 15; ++i) loopback_v6 = loopback_v6 && b[i] == 0;
  if (loopback_v6 && b[15] == 1) return true;
  bool mapped = true;
  for (int i = 0; i < 10; ++i) mapped = mapped && b[i] == 0;
  return mapped && b[10] == 0xff && b[11] == 0xff && b[12] == 127;
}

}  // namespace rtb::config

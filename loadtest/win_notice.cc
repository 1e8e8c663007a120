#include "loadtest/win_notice.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "nlohmann/json.hpp"

namespace rtb::loadtest {
namespace {

// A query parameter value as an exchange puts it in: unreserved characters
// as they are, every other byte percent-encoded.
std::string PercentEncoded(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

}  // namespace

std::string SubstituteAuctionMacros(std::string_view url, const AuctionMacros& macros) {
  return absl::StrReplaceAll(absl::string_view(url.data(), url.size()),
                             {{"${AUCTION_ID}", PercentEncoded(macros.auction_id)},
                              {"${AUCTION_IMP_ID}", PercentEncoded(macros.imp_id)},
                              {"${AUCTION_BID_ID}", PercentEncoded(macros.bid_id)},
                              {"${AUCTION_PRICE}", PercentEncoded(macros.price)},
                              {"${AUCTION_CURRENCY}", PercentEncoded(macros.currency)}});
}

absl::StatusOr<NoticeTarget> ParseLoopbackUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.size() < kScheme.size() ||
      absl::AsciiStrToLower(absl::string_view(url.data(), kScheme.size())) != kScheme) {
    return absl::InvalidArgumentError("not an http:// URL");
  }
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  NoticeTarget out;
  out.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (!out.target.empty() && out.target[0] == '?') out.target.insert(0, "/");
  if (authority.find('@') != std::string_view::npos) {
    return absl::InvalidArgumentError("URL with user information");
  }
  std::string_view host = authority;
  std::string_view port = "80";
  if (!authority.empty() && authority[0] == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return absl::InvalidArgumentError("unclosed [ in host");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return absl::InvalidArgumentError("junk after ]");
      port = after.substr(1);
    }
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  int port_number = 0;
  if (!absl::SimpleAtoi(absl::string_view(port.data(), port.size()), &port_number) ||
      port_number <= 0 || port_number > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("bad port ", std::string(port)));
  }
  const std::string lower_host = absl::AsciiStrToLower(absl::string_view(host.data(), host.size()));
  if (lower_host != "127.0.0.1" && lower_host != "localhost" && lower_host != "::1") {
    return absl::InvalidArgumentError(absl::StrCat("not a loopback host: ", lower_host));
  }
  out.host = lower_host;
  out.port = std::to_string(port_number);
  return out;
}

ParsedNotices NoticesOfResponse(std::string_view body) {
  ParsedNotices out;
  const nlohmann::json response = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!response.is_object() || !response.contains("seatbid") || !response["seatbid"].is_array()) {
    return out;
  }
  auto text = [](const nlohmann::json& object, const char* key) -> std::string {
    if (!object.contains(key) || !object[key].is_string()) return "";
    return object[key].get<std::string>();
  };
  AuctionMacros macros;
  macros.auction_id = text(response, "id");
  macros.currency = text(response, "cur");
  if (macros.currency.empty()) macros.currency = "USD";  // OpenRTB's default
  for (const nlohmann::json& seat : response["seatbid"]) {
    if (!seat.is_object() || !seat.contains("bid") || !seat["bid"].is_array()) continue;
    for (const nlohmann::json& bid : seat["bid"]) {
      if (!bid.is_object()) continue;
      macros.imp_id = text(bid, "impid");
      macros.bid_id = text(bid, "id");
      macros.price = bid.contains("price") && bid["price"].is_number()
                         ? absl::StrCat(bid["price"].get<double>())
                         : "";
      BidNotices notices;
      for (const char* key : {"nurl", "burl"}) {
        const std::string url = text(bid, key);
        if (url.empty()) continue;
        absl::StatusOr<NoticeTarget> target =
            ParseLoopbackUrl(SubstituteAuctionMacros(url, macros));
        if (!target.ok()) {
          ++out.refused;
          continue;
        }
        notices.notices.push_back(*std::move(target));
      }
      if (!notices.notices.empty()) out.bids.push_back(std::move(notices));
    }
  }
  return out;
}

}  // namespace rtb::loadtest

// The win and billing notices rtb-load fires for a share of the bids it
// receives, as an exchange does for the bids it lets win: each bid's nurl,
// then its burl if present, with the OpenRTB auction macros (section 4.4)
// substituted. Only plain-HTTP loopback URLs are fired.
//
// Thread-safety: free functions, no shared state.
#ifndef RTB_LOADTEST_WIN_NOTICE_H_
#define RTB_LOADTEST_WIN_NOTICE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rtb::loadtest {

// Where one notice goes: host and port to connect to, and the request target.
struct NoticeTarget {
  std::string host;
  std::string port;
  std::string target;  // path and query
};

// What an exchange puts in for the auction macros of a won bid.
struct AuctionMacros {
  std::string auction_id;  // ${AUCTION_ID}: the request id
  std::string imp_id;      // ${AUCTION_IMP_ID}
  std::string bid_id;      // ${AUCTION_BID_ID}: the bid's id
  std::string price;       // ${AUCTION_PRICE}: the clearing price, CPM
  std::string currency;    // ${AUCTION_CURRENCY}
};

// `url` with every auction macro replaced by its value, percent-encoded
// (unknown ${...} stay as they are).
std::string SubstituteAuctionMacros(std::string_view url, const AuctionMacros& macros);

// The host, port (default 80) and target of an http:// URL; InvalidArgument
// for another scheme, a malformed URL or a host other than 127.0.0.1,
// localhost or [::1].
absl::StatusOr<NoticeTarget> ParseLoopbackUrl(std::string_view url);

// The notices of one bid, in firing order (nurl, then burl).
struct BidNotices {
  std::vector<NoticeTarget> notices;
};

struct ParsedNotices {
  std::vector<BidNotices> bids;  // one per bid that has a loopback nurl or burl
  int refused = 0;               // URLs skipped: not loopback HTTP, malformed
};

// The notices of every bid of a bid response body (the clearing price is the
// bid's own price, as in a first-price auction); no bids for a body that is
// not a bid response.
ParsedNotices NoticesOfResponse(std::string_view body);

}  // namespace rtb::loadtest

#endif  // RTB_LOADTEST_WIN_NOTICE_H_

// The EU Digital Services Act signal of a bid request (`regs.ext.dsa`, IAB
// Tech Lab "DSA Transparency" extension) and what it asks of one campaign's
// bid: whether the bid carries `ext.dsa` (behalf, paid, adrender and, when
// asked for, transparency), and whether the campaign may bid at all. A pure
// function of the request's three values and what the campaign can offer.
//
// Request values (each may be absent):
//   dsarequired  0 not required; 1 supported (bids with or without ext.dsa
//                are accepted); 2 required (bids without it are dropped);
//                3 required, the publisher is an online platform
//   pubrender    0 the publisher cannot render the transparency notice;
//                1 it could, depending on adrender; 2 it will
//   datatopub    0 do not send transparency data; 1 optional; 2 send
//
// Rules: under 2 or 3 a campaign without behalf/paid does not bid (both
// values drop a bid without ext.dsa); when the publisher cannot render, the
// creative must (adrender 1), else the campaign does not bid under 2 or 3
// and attaches nothing under 1; when the publisher will render, adrender is
// 0. A value outside its range is read as the strictest one (dsarequired 3,
// pubrender 0, datatopub 2).
//
// Thread-safety: pure function; safe from any thread.
#ifndef RTB_BIDDER_PRIVACY_DSA_H_
#define RTB_BIDDER_PRIVACY_DSA_H_

#include <cstdint>
#include <optional>

namespace rtb::bidder::privacy {

// What a campaign can put in ext.dsa.
struct DsaCampaign {
  // The campaign names on whose behalf the ad runs and who paid for it.
  bool has_behalf_and_paid = false;
  // The campaign's creatives render the transparency notice themselves.
  bool renders_notice = false;
};

enum class DsaNoBidReason : uint8_t {
  kNone,
  kMissingBehalfAndPaid,  // DSA required, the campaign has no behalf/paid
  kCannotRender,          // DSA required, nobody can render the notice
};

struct DsaDecision {
  bool may_bid = true;
  DsaNoBidReason no_bid_reason = DsaNoBidReason::kNone;
  bool attach = false;             // the bid carries ext.dsa
  int adrender = 0;                // ext.dsa.adrender, when attached
  bool send_transparency = false;  // ext.dsa.transparency, when attached
  bool operator==(const DsaDecision&) const = default;
};

DsaDecision DecideDsa(std::optional<int> dsarequired, std::optional<int> pubrender,
                      std::optional<int> datatopub, const DsaCampaign& campaign);

}  // namespace rtb::bidder::privacy

#endif  // RTB_BIDDER_PRIVACY_DSA_H_

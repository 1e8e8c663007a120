#include "bidder/privacy/dsa.h"

namespace rtb::bidder::privacy {
namespace {

constexpr int kDsaSupported = 1;
constexpr int kPublisherCannotRender = 0;
constexpr int kPublisherWillRender = 2;
constexpr int kDoNotSendTransparency = 0;

}  // namespace

DsaDecision DecideDsa(std::optional<int> dsarequired, std::optional<int> pubrender,
                      std::optional<int> datatopub, const DsaCampaign& campaign) {
  DsaDecision decision;
  const int required_value = dsarequired.value_or(0);
  // 2, 3, and anything unknown: a bid without ext.dsa would be dropped.
  const bool required = required_value < 0 || required_value > kDsaSupported;
  if (required_value == 0) return decision;

  int render = pubrender.value_or(1);
  if (render < kPublisherCannotRender || render > kPublisherWillRender) {
    render = kPublisherCannotRender;
  }
  const bool creative_must_render = render == kPublisherCannotRender;
  const bool can_attach =
      campaign.has_behalf_and_paid && (!creative_must_render || campaign.renders_notice);
  if (!can_attach) {
    if (required) {
      decision.may_bid = false;
      decision.no_bid_reason = campaign.has_behalf_and_paid ? DsaNoBidReason::kCannotRender
                                                            : DsaNoBidReason::kMissingBehalfAndPaid;
    }
    return decision;
  }
  decision.attach = true;
  decision.adrender =
      render == kPublisherWillRender ? 0 : (creative_must_render || campaign.renders_notice);
  const int data = datatopub.value_or(1);
  decision.send_transparency = data != kDoNotSendTransparency;
  return decision;
}

}  // namespace rtb::bidder::privacy

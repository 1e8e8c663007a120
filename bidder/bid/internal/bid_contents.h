// What a bid says about its creative, beyond price and beacons: the markup
// (the creative's own with the click and impression URLs filled in, or the
// native response built for the impression's native request) and the
// descriptive members (cat/cattax in the request's taxonomy, attr, adid,
// iurl, language, w/h, protocol and dur for video and audio, mtype).
//
// Thread-safety: pure functions.
#ifndef RTB_BIDDER_BID_INTERNAL_BID_CONTENTS_H_
#define RTB_BIDDER_BID_INTERNAL_BID_CONTENTS_H_

#include <string>
#include <string_view>

#include "bidder/bid/internal/campaign_index.h"
#include "bidder/bid/internal/categories.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::bidder {

// Whether the markup of `creative` carries the signed impression pixel
// (native markup always does, in its trackers).
bool MarkupHasImpressionPixel(const Creative& creative);

// The markup of `creative` for `imp` into `*adm`. False when a native
// creative cannot serve the impression's native request after all.
bool WriteMarkup(const Creative& creative, const openrtb::Imp& imp, std::string_view click_url,
                 std::string_view impression_url, std::string* adm);

// Sets the descriptive members of `*bid` (see the header comment).
void DescribeCreative(const Creative& creative, const RequestTaxonomy& taxonomy, openrtb::Bid* bid);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_BID_CONTENTS_H_

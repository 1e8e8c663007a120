// Whether a video or audio creative fits the impression's player: the rules
// OpenRTB's Video and Audio objects set (bidder/bid/internal/targeting.h
// calls them; battr and blocks are checked there).
//
// Video, each only when the impression says something about it:
//   - mimes: one in common (ASCII case ignored);
//   - duration: within [minduration, maxduration] (0 is no bound), one of
//     rqddurs when listed, and within poddur for a dynamic pod;
//   - protocols (and 2.5's single `protocol`): the creative's subtype is
//     listed; a creative whose subtype is unknown fits only where none is;
//   - placement: 2.6 plcmt, else 2.5 placement read as plcmt (1 in-stream ->
//     1; 5 interstitial/slider/floating -> 3; 2 in-banner, 3 in-article,
//     4 in-feed -> 2 or 4, accompanying content or standalone), must be one
//     the creative allows (any when it names none);
//   - linearity: the creative's;
//   - startdelay: 0 pre-roll, > 0 and -1 mid-roll, -2 post-roll, must be a
//     slot the creative allows (any when it names none; other values are
//     not read);
//   - skip: a creative that must not be skipped stays out where skip=1 and
//     it is longer than both skipmin and skipafter (then the user could
//     skip it);
//   - api: every API the creative needs is listed (nothing listed: none is
//     supported, as OpenRTB says);
//   - minbitrate/maxbitrate: the creative's bit rate, when known, within.
// Audio: mimes, duration (with rqddurs and poddur), protocols, startdelay,
// api and bit rate as for video.
//
// Thread-safety: pure functions.
#ifndef RTB_BIDDER_BID_INTERNAL_MEDIA_FIT_H_
#define RTB_BIDDER_BID_INTERNAL_MEDIA_FIT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bidder/bid/internal/campaign_index.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::bidder {

bool VideoFits(const Creative& creative, const openrtb::Video& video);
bool AudioFits(const Creative& creative, const openrtb::Audio& audio);

// Every API of `needed` is in `supported`.
bool ApisSupported(const std::vector<int32_t>& needed, const std::vector<int32_t>& supported);
// A MIME type in common, ASCII case ignored; any when `accepted` is empty.
bool MimeAccepted(const std::vector<std::string>& offered,
                  const std::vector<std::string>& accepted);
// Some attribute of `attr` is in `battr`.
bool AttributeBlocked(const std::vector<int32_t>& attr, const std::vector<int32_t>& battr);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_MEDIA_FIT_H_

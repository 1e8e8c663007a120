// A native creative against a Native Ad request (bidder/openrtb's
// NativeRequest): which of its assets serve which requested assets, and the
// native response markup built from them.
//
// Matching, per requested asset (one of title, img, data, video):
//   - title: the creative's title, at most `len` characters (UTF-8 code
//     points) when len is given;
//   - img: an image of the requested type (icon 1, main 3; any when none is
//     given), at least wmin x hmin when those are given, else exactly w x h
//     when those are, with its MIME type among `mimes` when they are listed
//     (an image of unknown type does not fit such a list);
//   - data: the creative's data asset of that type, at most `len` characters;
//   - video: the creative's VAST with a MIME type in common, its duration
//     within [minduration, maxduration] and its protocol listed.
// A required asset the creative cannot serve rules it out, and so does a
// request it serves nothing of. The impression beacon must travel: a
// request listing eventtrackers must accept an image pixel for impressions
// (event 1, method 1); one listing none gets the pixel in `imptrackers`.
//
// Markup: Native 1.2's response object {"ver", "assets", "link",
// "eventtrackers" or "imptrackers"}, the assets echoing the request's ids,
// the link going to the signed click URL with the creative's click
// trackers. A request in Native 1.0/1.1 (the {"native": ...} wrapper or ver
// "1.0"/"1.1") gets its response in the same wrapper, with imptrackers.
//
// Thread-safety: pure functions.
#ifndef RTB_BIDDER_BID_INTERNAL_NATIVE_MARKUP_H_
#define RTB_BIDDER_BID_INTERNAL_NATIVE_MARKUP_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bidder/bid/internal/campaign_index.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::bidder {

enum class NativeAssetKind { kTitle, kImage, kData, kVideo };

// The assets a creative serves for one native request.
struct NativeFill {
  struct Asset {
    size_t request_index = 0;  // in NativeRequest::assets
    NativeAssetKind kind = NativeAssetKind::kTitle;
    size_t creative_index = 0;  // images[] or data[] of the creative's native assets
  };
  std::vector<Asset> assets;
  // The impression pixel goes to eventtrackers (else imptrackers).
  bool event_trackers = false;
};

// nullopt when the creative cannot serve `request` (see the header comment).
std::optional<NativeFill> MatchNative(const Creative& creative,
                                      const openrtb::NativeRequest& request);

// The native response markup of `fill` into `*out` (replaced).
void WriteNativeMarkup(const Creative& creative, const openrtb::NativeRequest& request,
                       const NativeFill& fill, std::string_view click_url,
                       std::string_view impression_url, std::string* out);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_NATIVE_MARKUP_H_

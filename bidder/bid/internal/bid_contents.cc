#include "bidder/bid/internal/bid_contents.h"

#include <optional>

#include "bidder/bid/beacon_url.h"
#include "bidder/bid/internal/native_markup.h"

namespace rtb::bidder {

bool MarkupHasImpressionPixel(const Creative& creative) {
  return creative.has_impression_pixel || creative.media == MediaType::kNative;
}

bool WriteMarkup(const Creative& creative, const openrtb::Imp& imp, std::string_view click_url,
                 std::string_view impression_url, std::string* adm) {
  if (creative.media != MediaType::kNative) {
    adm->clear();
    AppendFilledMarkup(creative.adm, click_url, impression_url, adm);
    return true;
  }
  if (!imp.native.has_value() || !imp.native->request.has_value()) return false;
  const std::optional<NativeFill> fill = MatchNative(creative, *imp.native->request);
  if (!fill.has_value()) return false;
  WriteNativeMarkup(creative, *imp.native->request, *fill, click_url, impression_url, adm);
  return true;
}

void DescribeCreative(const Creative& creative, const RequestTaxonomy& taxonomy,
                      openrtb::Bid* bid) {
  BidCategories(creative.categories, taxonomy, &bid->cat, &bid->cattax);
  bid->attr = creative.attr;
  bid->adid = creative.adid;
  bid->iurl = creative.iurl;
  bid->language = creative.language;
  if (creative.w > 0 && creative.h > 0) {
    bid->w = creative.w;
    bid->h = creative.h;
  }
  if (creative.media == MediaType::kVideo || creative.media == MediaType::kAudio) {
    if (creative.protocol > 0) bid->protocol = creative.protocol;
    bid->dur = creative.duration_s;
  }
  bid->mtype = static_cast<int32_t>(creative.media);
}

}  // namespace rtb::bidder

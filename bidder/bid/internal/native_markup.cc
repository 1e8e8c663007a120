#include "bidder/bid/internal/native_markup.h"

#include <algorithm>

#include "bidder/bid/internal/media_fit.h"
#include "nlohmann/json.hpp"

namespace rtb::bidder {
namespace {

using Json = nlohmann::json;

constexpr int32_t kImpressionEvent = 1;
constexpr int32_t kImagePixelMethod = 1;

// UTF-8 code points of `text` (continuation bytes are not counted).
size_t Characters(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

bool WithinLength(std::string_view text, std::optional<int32_t> len) {
  return !len.has_value() || *len <= 0 || Characters(text) <= static_cast<size_t>(*len);
}

bool ImageFits(const config::NativeImageConfig& image, const openrtb::NativeImageRequest& wanted) {
  if (wanted.type.has_value() && *wanted.type != image.type) return false;
  if (wanted.wmin.has_value() || wanted.hmin.has_value()) {
    if (image.w < wanted.wmin.value_or(0) || image.h < wanted.hmin.value_or(0)) return false;
  } else if (wanted.w.has_value() || wanted.h.has_value()) {
    if ((wanted.w.has_value() && image.w != *wanted.w) ||
        (wanted.h.has_value() && image.h != *wanted.h)) {
      return false;
    }
  }
  if (wanted.mimes.empty()) return true;
  return !image.mime.empty() && MimeAccepted({image.mime}, wanted.mimes);
}

bool VideoFits(const config::NativeAssetsConfig& native,
               const openrtb::NativeVideoRequest& wanted) {
  if (native.video_vast.empty()) return false;
  if (!MimeAccepted(native.video_mimes, wanted.mimes)) return false;
  const int duration = native.video_duration_s;
  if (wanted.minduration.has_value() && *wanted.minduration > 0 && duration < *wanted.minduration) {
    return false;
  }
  if (wanted.maxduration.has_value() && *wanted.maxduration > 0 && duration > *wanted.maxduration) {
    return false;
  }
  return wanted.protocols.empty() || std::find(wanted.protocols.begin(), wanted.protocols.end(),
                                               native.video_protocol) != wanted.protocols.end();
}

// What serves one requested asset, if anything does.
std::optional<NativeFill::Asset> Serve(const config::NativeAssetsConfig& native,
                                       const openrtb::NativeAssetRequest& wanted, size_t index) {
  const int kinds = wanted.title.has_value() + wanted.img.has_value() + wanted.data.has_value() +
                    wanted.video.has_value();
  if (kinds != 1) return std::nullopt;
  if (wanted.title.has_value()) {
    if (native.title.empty() || !WithinLength(native.title, wanted.title->len)) return std::nullopt;
    return NativeFill::Asset{index, NativeAssetKind::kTitle, 0};
  }
  if (wanted.img.has_value()) {
    for (size_t i = 0; i < native.images.size(); ++i) {
      if (ImageFits(native.images[i], *wanted.img)) {
        return NativeFill::Asset{index, NativeAssetKind::kImage, i};
      }
    }
    return std::nullopt;
  }
  if (wanted.data.has_value()) {
    for (size_t i = 0; i < native.data.size(); ++i) {
      const config::NativeDataConfig& data = native.data[i];
      if (wanted.data->type.has_value() && *wanted.data->type == data.type &&
          WithinLength(data.value, wanted.data->len)) {
        return NativeFill::Asset{index, NativeAssetKind::kData, i};
      }
    }
    return std::nullopt;
  }
  if (!VideoFits(native, *wanted.video)) return std::nullopt;
  return NativeFill::Asset{index, NativeAssetKind::kVideo, 0};
}

// Native 1.0 and 1.1 wrap the response as they wrap the request.
bool Legacy(const openrtb::NativeRequest& request) {
  return request.wrapped || request.ver.starts_with("1.0") || request.ver.starts_with("1.1") ||
         request.ver == "1";
}

}  // namespace

std::optional<NativeFill> MatchNative(const Creative& creative,
                                      const openrtb::NativeRequest& request) {
  NativeFill fill;
  if (!request.eventtrackers.empty()) {
    const bool pixel =
        std::any_of(request.eventtrackers.begin(), request.eventtrackers.end(),
                    [](const openrtb::NativeEventTrackerRequest& tracker) {
                      return tracker.event == kImpressionEvent &&
                             std::find(tracker.methods.begin(), tracker.methods.end(),
                                       kImagePixelMethod) != tracker.methods.end();
                    });
    if (!pixel) return std::nullopt;
    fill.event_trackers = true;
  }
  for (size_t i = 0; i < request.assets.size(); ++i) {
    const openrtb::NativeAssetRequest& wanted = request.assets[i];
    std::optional<NativeFill::Asset> served = Serve(creative.native, wanted, i);
    if (served.has_value()) {
      fill.assets.push_back(*served);
    } else if (wanted.required) {
      return std::nullopt;
    }
  }
  if (fill.assets.empty()) return std::nullopt;
  return fill;
}

void WriteNativeMarkup(const Creative& creative, const openrtb::NativeRequest& request,
                       const NativeFill& fill, std::string_view click_url,
                       std::string_view impression_url, std::string* out) {
  const config::NativeAssetsConfig& native = creative.native;
  const bool legacy = Legacy(request);
  Json response = Json::object();
  response["ver"] = legacy ? (request.ver.empty() ? "1.1" : request.ver) : "1.2";
  Json assets = Json::array();
  for (const NativeFill::Asset& served : fill.assets) {
    Json asset = Json::object();
    if (const std::optional<int32_t> id = request.assets[served.request_index].id; id.has_value()) {
      asset["id"] = *id;
    }
    switch (served.kind) {
      case NativeAssetKind::kTitle:
        asset["title"] = {{"text", native.title}};
        break;
      case NativeAssetKind::kImage: {
        const config::NativeImageConfig& image = native.images[served.creative_index];
        asset["img"] = {{"url", image.url}, {"w", image.w}, {"h", image.h}};
        break;
      }
      case NativeAssetKind::kData:
        asset["data"] = {{"value", native.data[served.creative_index].value}};
        break;
      case NativeAssetKind::kVideo:
        asset["video"] = {{"vasttag", native.video_vast}};
        break;
    }
    assets.push_back(std::move(asset));
  }
  response["assets"] = std::move(assets);
  Json link = {{"url", click_url}};
  if (!native.click_trackers.empty()) link["clicktrackers"] = native.click_trackers;
  response["link"] = std::move(link);
  if (!impression_url.empty()) {
    if (fill.event_trackers && !legacy) {
      response["eventtrackers"] = Json::array(
          {{{"event", kImpressionEvent}, {"method", kImagePixelMethod}, {"url", impression_url}}});
    } else {
      response["imptrackers"] = Json::array({impression_url});
    }
  }
  // Config strings are valid UTF-8; replacing keeps dump() from throwing
  // whatever comes.
  const Json& document = legacy ? Json{{"native", std::move(response)}} : response;
  *out = document.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rtb::bidder

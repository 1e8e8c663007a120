#include "bidder/bid/internal/media_fit.h"

#include <algorithm>
#include <optional>

namespace rtb::bidder {
namespace {

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerAscii(a[i]) != LowerAscii(b[i])) return false;
  }
  return true;
}

bool Contains(const std::vector<int32_t>& list, int32_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool DurationFits(int duration_s, std::optional<int32_t> min, std::optional<int32_t> max,
                  const std::vector<int32_t>& required, std::optional<int32_t> poddur) {
  if (min.has_value() && *min > 0 && duration_s < *min) return false;
  if (max.has_value() && *max > 0 && duration_s > *max) return false;
  if (!required.empty() && !Contains(required, duration_s)) return false;
  if (poddur.has_value() && *poddur > 0 && duration_s > *poddur) return false;
  return true;
}

bool ProtocolFits(int32_t protocol, const std::vector<int32_t>& protocols,
                  std::optional<int32_t> single) {
  if (protocols.empty() && !single.has_value()) return true;
  if (protocol == 0) return false;
  return Contains(protocols, protocol) || single == protocol;
}

// The start slot bit of a startdelay; 0 for a value OpenRTB does not define.
uint8_t StartSlot(int32_t startdelay) {
  if (startdelay == 0) return kPreRoll;
  if (startdelay > 0 || startdelay == -1) return kMidRoll;
  if (startdelay == -2) return kPostRoll;
  return 0;
}

bool StartFits(uint8_t allowed, std::optional<int32_t> startdelay) {
  if (allowed == 0 || !startdelay.has_value()) return true;
  const uint8_t slot = StartSlot(*startdelay);
  return slot == 0 || (allowed & slot) != 0;
}

bool BitrateFits(int bitrate, std::optional<int32_t> min, std::optional<int32_t> max) {
  if (bitrate <= 0) return true;
  if (min.has_value() && *min > 0 && bitrate < *min) return false;
  if (max.has_value() && *max > 0 && bitrate > *max) return false;
  return true;
}

// The 2.6 plcmt values an impression offers, as PlacementBit()s; 0 when it
// says nothing.
uint8_t OfferedPlacements(const openrtb::Video& video) {
  if (video.plcmt.has_value()) return PlacementBit(*video.plcmt);
  if (!video.placement.has_value()) return 0;
  switch (*video.placement) {
    case 1:
      return PlacementBit(1);
    case 5:
      return PlacementBit(3);
    default:
      return PlacementBit(2) | PlacementBit(4);
  }
}

}  // namespace

bool MimeAccepted(const std::vector<std::string>& offered,
                  const std::vector<std::string>& accepted) {
  if (accepted.empty()) return true;
  for (const std::string& mime : offered) {
    for (const std::string& a : accepted) {
      if (EqualsIgnoreCase(mime, a)) return true;
    }
  }
  return false;
}

bool ApisSupported(const std::vector<int32_t>& needed, const std::vector<int32_t>& supported) {
  return std::all_of(needed.begin(), needed.end(),
                     [&](int32_t api) { return Contains(supported, api); });
}

bool AttributeBlocked(const std::vector<int32_t>& attr, const std::vector<int32_t>& battr) {
  if (battr.empty()) return false;
  return std::any_of(attr.begin(), attr.end(), [&](int32_t a) { return Contains(battr, a); });
}

bool VideoFits(const Creative& creative, const openrtb::Video& video) {
  if (!MimeAccepted(creative.mimes, video.mimes)) return false;
  if (!DurationFits(creative.duration_s, video.minduration, video.maxduration, video.rqddurs,
                    video.poddur)) {
    return false;
  }
  if (!ProtocolFits(creative.protocol, video.protocols, video.protocol)) return false;
  if (const uint8_t offered = OfferedPlacements(video);
      creative.placements != 0 && offered != 0 && (creative.placements & offered) == 0) {
    return false;
  }
  if (video.linearity.has_value() && *video.linearity != creative.linearity) return false;
  if (!StartFits(creative.start_slots, video.startdelay)) return false;
  if (!creative.skippable && video.skip.value_or(false) && creative.duration_s > video.skipmin &&
      creative.duration_s > video.skipafter) {
    return false;
  }
  if (!ApisSupported(creative.api, video.api)) return false;
  return BitrateFits(creative.bitrate_kbps, video.minbitrate, video.maxbitrate);
}

bool AudioFits(const Creative& creative, const openrtb::Audio& audio) {
  if (!MimeAccepted(creative.mimes, audio.mimes)) return false;
  if (!DurationFits(creative.duration_s, audio.minduration, audio.maxduration, audio.rqddurs,
                    audio.poddur)) {
    return false;
  }
  if (!ProtocolFits(creative.protocol, audio.protocols, std::nullopt)) return false;
  if (!StartFits(creative.start_slots, audio.startdelay)) return false;
  if (!ApisSupported(creative.api, audio.api)) return false;
  return BitrateFits(creative.bitrate_kbps, audio.minbitrate, audio.maxbitrate);
}

}  // namespace rtb::bidder

#include "bidder/bid/internal/request_privacy.h"

namespace rtb::bidder {

privacy::PrivacySignals SignalsOf(const openrtb::BidRequest& request) {
  privacy::PrivacySignals signals;
  if (request.regs.has_value()) {
    const openrtb::Regs& regs = *request.regs;
    signals.gdpr = regs.gdpr;
    signals.us_privacy = regs.us_privacy;
    signals.gpp = regs.gpp;
    signals.gpp_sid = regs.gpp_sid;
  }
  if (request.user.has_value()) signals.consent = request.user->consent;
  if (request.device.has_value() && request.device->geo.has_value()) {
    signals.device_country = request.device->geo->country;
  }
  return signals;
}

RequestPermissions PermissionsOf(const privacy::PrivacyDecision& d) {
  RequestPermissions p;
  p.bid = d.may_bid;
  p.read_segments = d.may_bid && d.may_read_profile && d.may_target_segments;
  p.read_history = p.read_segments;
  p.device_key = d.may_bid && d.may_use_device_key;
  p.precise_geo = d.may_bid && d.may_use_precise_geo;
  const bool caps = d.may_bid && d.may_count_frequency_caps;
  // Caps live under the device's profile row when the bid may name the
  // device in its URLs, else under cap-only keys.
  p.read_frequency_caps = caps && d.may_read_profile && p.device_key;
  p.frequency_cap_keys = caps && !p.device_key;
  // Counting needs the device named in the URL, by its key or a cap key;
  // say so in the URL too.
  p.beacons.count_frequency_cap = caps;
  p.beacons.measure = d.may_bid && d.may_measure;
  return p;
}

void DropPreciseGeo(openrtb::BidRequest* request) {
  if (!request->device.has_value() || !request->device->geo.has_value()) return;
  request->device->geo->lat.reset();
  request->device->geo->lon.reset();
}

}  // namespace rtb::bidder

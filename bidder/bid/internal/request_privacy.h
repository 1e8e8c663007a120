// The privacy step of the bid path: a request's privacy signals handed to
// bidder/privacy's DecidePrivacy, and its decision turned into what the bid
// for that request may do. The mapping, one decision field at a time:
//
//   may_bid                   false: no bid (nobid_privacy)
//   may_read_profile          false: no profile lookup at all
//   may_target_segments       the lookup reads `seg` (else campaigns with
//                             required segments find none and do not bid),
//                             and a device's engagement history is read for
//                             cpc and cpa values (personalised like a
//                             segment; else they use the campaign's rates)
//   may_count_frequency_caps  with the profile and the device key: the
//                             lookup reads `fc`; the beacons may write the
//                             device_impressions entry and the cap count.
//                             Without the device key in URLs (a US
//                             opt-out): the caps are read and counted under
//                             cap-only keys, one per campaign and day
//                             (DeviceKeyHasher::FrequencyCapKey), which the
//                             beacon URLs of capped bids carry in place of
//                             the device key; no device_impressions entry.
//   may_use_device_key        the device key is computed and put in beacon
//                             URLs (without it the beacons write nothing
//                             under the device)
//   may_measure               the beacons may record events
//   may_use_precise_geo       false: device.geo lat/lon are dropped from the
//                             parsed request before anything reads it
//
// The beacon side learns its part through BeaconPermissions, signed into the
// beacon URLs (bidder/bid/beacon_url.h).
//
// Thread-safety: pure functions.
#ifndef RTB_BIDDER_BID_INTERNAL_REQUEST_PRIVACY_H_
#define RTB_BIDDER_BID_INTERNAL_REQUEST_PRIVACY_H_

#include "bidder/bid/beacon_url.h"
#include "bidder/openrtb/openrtb.h"
#include "bidder/privacy/privacy_decision.h"

namespace rtb::bidder {

// The request's privacy values as bidder/privacy reads them; views into
// `request`, which must outlive the result.
privacy::PrivacySignals SignalsOf(const openrtb::BidRequest& request);

// What the bid path may do for one request.
struct RequestPermissions {
  bool bid = true;
  // The families the profile lookup may read; neither: no lookup.
  bool read_segments = true;
  bool read_frequency_caps = true;
  // Frequency caps are read and counted under cap-only keys instead (no
  // device key in URLs, caps allowed); the device key is computed for them
  // but used for nothing else.
  bool frequency_cap_keys = false;
  // The device's engagement history (event_rollups) may set cpc and cpa
  // values.
  bool read_history = true;
  // The device key is computed and sent in beacon URLs.
  bool device_key = true;
  bool precise_geo = true;
  // What the beacon side may do, signed into the URLs.
  BeaconPermissions beacons;

  bool lookup() const { return read_segments || read_frequency_caps; }
  // Whether the device key must be computed at all.
  bool needs_device_key() const { return lookup() || device_key || frequency_cap_keys; }
  bool operator==(const RequestPermissions&) const = default;
};

RequestPermissions PermissionsOf(const privacy::PrivacyDecision& decision);

// Clears device.geo.lat and lon, when present.
void DropPreciseGeo(openrtb::BidRequest* request);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_INTERNAL_REQUEST_PRIVACY_H_

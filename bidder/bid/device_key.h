// The device key: the row key of a device in the `profiles` table, and the id
// of a device in beacon URLs. It is the first 16 bytes of
// HMAC-SHA256(bid.device_key_secret, normalised device id), so rows spread
// evenly over the key space, a raw identifier never reaches storage or logs,
// and a deletion request finds the row by hashing the same id again.
//
// Normalisation (as the batch jobs that write `profiles:seg` do it): strip
// leading and trailing bytes <= 0x20 (Java's String.trim), then lower-case
// ASCII letters. Bytes >= 0x80 are kept as they are; advertising ids and our
// own user ids are ASCII.
//
// Which id, in this order; the first that is present and valid is used:
//   1. device.ifa      - the advertising id of apps and connected TV;
//   2. user.buyeruid   - our own user id, as the exchange's cookie sync maps it.
// Not used: user.id (the exchange's id for the user, different on every
// exchange, so it cannot meet the profiles our jobs write) and the hashed
// device ids (didsha1, dpidmd5, ...), which are deprecated and unsalted.
//
// Known-invalid ids never become keys, because they are shared by millions of
// devices and would make one hot row: an empty id, an id of only '0' and '-'
// (00000000-0000-0000-0000-000000000000 is what iOS reports under limited ad
// tracking) and the placeholders SDKs send for a missing id ("null", "(null)",
// "undefined", "unknown", "none").
//
// The secret is held only as hashed HMAC pad states and is never logged; a
// DeviceKey prints only as its hex digest.
//
// Thread-safety: DeviceKeyHasher is immutable after construction; Hash() may
// be called from any number of threads. DeviceKey is a value.
#ifndef RTB_BIDDER_BID_DEVICE_KEY_H_
#define RTB_BIDDER_BID_DEVICE_KEY_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "bidder/bid/internal/hmac_sha256.h"
#include "bidder/events/events.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::bidder {

class DeviceKey {
 public:
  // The 16 raw bytes: the `profiles` row key.
  std::string_view bytes() const { return std::string_view(bytes_.data(), bytes_.size()); }
  // 32 lower-case hex digits, for beacon URLs.
  std::string Hex() const;

  bool operator==(const DeviceKey&) const = default;

 private:
  friend class DeviceKeyHasher;
  // The device key is the events' user key: its width is declared there.
  std::array<char, events::kUserKeyBytes> bytes_{};
};

class DeviceKeyHasher {
 public:
  // `secret` is bid.device_key_secret; it is not kept.
  explicit DeviceKeyHasher(std::string_view secret);

  // The key of `id`, normalised first. The caller decides validity
  // (IsKnownInvalidDeviceId); this hashes whatever it is given.
  DeviceKey Hash(std::string_view id) const;

  // The cap-only key of `device` for one frequency-cap count: the first 16
  // bytes of HMAC-SHA256(secret, domain tag, device key, `qualifier`), where
  // `qualifier` is the count's FrequencyCapQualifier (campaign and day,
  // bidder/bid/frequency_cap.h). It names that one count and nothing else:
  // without the secret, two cap keys of one device (another campaign or
  // another day) cannot be linked to each other or to the device key, so a
  // beacon URL may carry it where the device key may not (a US opt-out).
  // The domain tag starts with a byte no normalised id starts with, so no
  // cap key is ever a device key.
  DeviceKey FrequencyCapKey(const DeviceKey& device, std::string_view qualifier) const;

 private:
  internal::HmacSha256 hmac_;
};

// `id` without leading and trailing bytes <= 0x20, ASCII letters lower-cased.
std::string NormaliseDeviceId(std::string_view id);

// True for ids that must not be looked up (see the header comment). `id` is
// normalised by the check itself.
bool IsKnownInvalidDeviceId(std::string_view id);

enum class DeviceIdSource { kNone, kIfa, kBuyerUid };

// Why the profile lookup is skipped; kNone when it is not.
enum class LookupSkipReason {
  kNone,
  kNoDeviceId,       // neither device.ifa nor user.buyeruid was sent
  kInvalidDeviceId,  // only known-invalid ids were sent
  kLimitAdTracking,  // device.lmt=1 and bid.skip_lookup_on_lmt
  kDoNotTrack,       // device.dnt=1 and bid.skip_lookup_on_dnt
  kCoppa,            // regs.coppa=1 and bid.coppa_policy "contextual"
  kPrivacy,          // the request's privacy signals allow no device data
};

struct DeviceKeyPolicy {
  bool skip_lookup_on_lmt = true;
  bool skip_lookup_on_dnt = true;
  // True when regs.coppa=1 requests are bid on contextually (no lookup).
  bool coppa_contextual = false;
};

struct DeviceIdentity {
  // Set exactly when skip == kNone.
  std::optional<DeviceKey> key;
  DeviceIdSource source = DeviceIdSource::kNone;
  LookupSkipReason skip = LookupSkipReason::kNone;
};

// Decides whether `request` gets a profile lookup and under which key. The
// policy checks (COPPA, lmt, dnt) come before the ids are even looked at, so
// no key is computed for a device that asked not to be tracked.
DeviceIdentity ResolveDeviceIdentity(const openrtb::BidRequest& request,
                                     const DeviceKeyPolicy& policy, const DeviceKeyHasher& hasher);

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_DEVICE_KEY_H_

// The IAB Europe TCF v2 Transparency & Consent string (TC string) as the
// bidder reads it from `user.consent` or from the TCF EU section of a GPP
// string: what the user consented to, per purpose and per vendor, and what the
// publisher restricted. The bit layout is drawn in tc_string.cc.
//
// Decoding is a pure function of the text. A string that is not a version 2
// TC string, that ends inside a field, or whose values break the format (a
// range that ends before it starts, a vendor beyond MaxVendorId, a letter
// outside a..z) is InvalidArgument, never a crash. Segments after the core
// (disclosed vendors, allowed vendors, publisher TC) are recognised by their
// type and skipped: the bidder decides on the core segment only.
//
// Thread-safety: TcString is a plain value.
#ifndef RTB_BIDDER_PRIVACY_TC_STRING_H_
#define RTB_BIDDER_PRIVACY_TC_STRING_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rtb::bidder::privacy {

namespace internal {
class TcStringDecoder;
}  // namespace internal

// Vendor ids first..last, inclusive, 1 <= first <= last.
struct VendorRange {
  uint16_t first = 0;
  uint16_t last = 0;
  bool operator==(const VendorRange&) const = default;
};

// The vendors of one vendor section (consents or legitimate interests), as
// the string encoded them: a bit per vendor, or sorted merged ranges. Either
// way Contains is a bit test or a short search.
class VendorSet {
 public:
  bool Contains(int vendor_id) const;
  // The MaxVendorId the section declared; no vendor above it is contained.
  int max_vendor_id() const { return max_vendor_id_; }
  // Whether the section used the range encoding (else a bit field).
  bool range_encoded() const { return range_encoded_; }
  // Every vendor id contained, ascending (tests and tools; allocates).
  std::vector<int> Ids() const;

 private:
  friend class internal::TcStringDecoder;

  uint16_t max_vendor_id_ = 0;
  bool range_encoded_ = false;
  // Bit field: vendor v is bit 63 - (v - 1) % 64 of word (v - 1) / 64.
  // 32 words hold vendor ids up to 2048 without touching the heap.
  absl::InlinedVector<uint64_t, 32> bits_;
  // Range encoding: sorted by `first`, overlapping and adjacent ranges merged;
  // 32 of them without touching the heap.
  absl::InlinedVector<VendorRange, 32> ranges_;
};

// What a publisher restriction demands of the vendors it names for one
// purpose (the 2-bit RestrictionType).
enum class RestrictionType : uint8_t {
  kNotAllowed = 0,                 // the purpose is flatly not allowed
  kRequireConsent = 1,             // only consent counts, not legitimate interest
  kRequireLegitimateInterest = 2,  // only legitimate interest counts
  kUndefined = 3,                  // reserved by the format; read as "not allowed"
};

// One vendor range of one publisher restriction entry (an entry naming three
// ranges becomes three of these).
struct PublisherRestriction {
  uint8_t purpose_id = 0;
  RestrictionType type = RestrictionType::kNotAllowed;
  VendorRange vendors;
  bool operator==(const PublisherRestriction&) const = default;
};

// Types of the segments that may follow the core segment after a '.'.
enum class TcSegmentType : uint8_t {
  kDisclosedVendors = 1,
  kAllowedVendors = 2,  // dropped by TCF v2.2, still recognised
  kPublisherTc = 3,
};

// The core segment of a TC string. Purposes are numbered 1..24 and special
// features 1..12 as in the Global Vendor List.
struct TcString {
  int version = 0;              // 2
  int64_t created_ds = 0;       // deciseconds since the Unix epoch
  int64_t last_updated_ds = 0;  // deciseconds since the Unix epoch
  int cmp_id = 0;
  int cmp_version = 0;
  int consent_screen = 0;
  std::string consent_language;  // ISO 639-1, upper case ("EN")
  int vendor_list_version = 0;
  int policy_version = 0;  // TcfPolicyVersion: 4 and up for TCF v2.2
  bool is_service_specific = false;
  bool use_non_standard_texts = false;        // UseNonStandardStacks before v2.2
  uint32_t special_feature_opt_ins = 0;       // bit n: special feature n opted in
  uint32_t purpose_consents = 0;              // bit n: consent for purpose n
  uint32_t purpose_legitimate_interests = 0;  // bit n: LI established for purpose n
  bool purpose_one_treatment = false;         // purpose 1 was not disclosed at all
  std::string publisher_country;              // ISO 3166-1 alpha-2, upper case ("DE")
  VendorSet vendor_consents;
  VendorSet vendor_legitimate_interests;
  absl::InlinedVector<PublisherRestriction, 4> publisher_restrictions;
  // Bit t set when a segment of TcSegmentType t followed the core.
  uint8_t segment_types = 0;

  bool HasPurposeConsent(int purpose) const { return Bit(purpose_consents, purpose, 24); }
  bool HasPurposeLegitimateInterest(int purpose) const {
    return Bit(purpose_legitimate_interests, purpose, 24);
  }
  bool HasSpecialFeatureOptIn(int feature) const {
    return Bit(special_feature_opt_ins, feature, 12);
  }
  bool HasSegment(TcSegmentType type) const {
    return (segment_types >> static_cast<int>(type)) & 1;
  }

  // The restriction types the publisher set for `vendor_id` and `purpose`, as
  // a set: bit t for RestrictionType t. 0 when there is none.
  uint8_t RestrictionsFor(int vendor_id, int purpose) const;

 private:
  static bool Bit(uint32_t mask, int n, int max) {
    return n >= 1 && n <= max && ((mask >> n) & 1) != 0;
  }
};

// Decodes a TC string (base64url, segments joined by '.'). `out` is
// overwritten; reusing one TcString across calls keeps its buffers.
absl::Status DecodeTcString(std::string_view text, TcString* out);
absl::StatusOr<TcString> DecodeTcString(std::string_view text);

}  // namespace rtb::bidder::privacy

#endif  // RTB_BIDDER_PRIVACY_TC_STRING_H_

// The TC string layout (IAB Tech Lab, "Transparency and Consent String with
// Global Vendor & CMP List Formats", TCF v2.2), read field by field. Segments
// are base64url (internal/bit_reader.h) joined by '.', the core segment
// first. Core segment, fields in order, widths in bits:
//
//   Version                 6   2
//   Created                36   deciseconds since the Unix epoch
//   LastUpdated            36   deciseconds since the Unix epoch
//   CmpId                  12
//   CmpVersion             12
//   ConsentScreen           6
//   ConsentLanguage        12   two letters of 6 bits, a=0 .. z=25
//   VendorListVersion      12
//   TcfPolicyVersion        6
//   IsServiceSpecific       1
//   UseNonStandardTexts     1
//   SpecialFeatureOptIns   12   leftmost bit = special feature 1
//   PurposesConsent        24   leftmost bit = purpose 1
//   PurposesLITransparency 24   leftmost bit = purpose 1
//   PurposeOneTreatment     1
//   PublisherCC            12   two letters, as ConsentLanguage
//                         ---
//                         213 bits, then:
//   vendor section          vendor consents
//   vendor section          vendor legitimate interests
//   NumPubRestrictions     12   then that many entries of:
//     PurposeId             6
//     RestrictionType       2   0 not allowed, 1 require consent,
//                               2 require legitimate interest, 3 undefined
//     NumEntries           12   then that many range entries
//
// Vendor section:
//
//   MaxVendorId            16
//   IsRangeEncoding         1
//   0: BitField    MaxVendorId bits, leftmost bit = vendor 1
//   1: NumEntries          12   then that many range entries
//
// Range entry:
//
//   IsARange                1
//   StartOrOnlyVendorId    16
//   EndVendorId            16   present only when IsARange = 1
//
// Any other segment starts with SegmentType (3 bits: 1 disclosed vendors,
// 2 allowed vendors, 3 publisher TC); its remaining bits are not read.
#include "bidder/privacy/tc_string.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "bidder/privacy/internal/bit_reader.h"

namespace rtb::bidder::privacy {
namespace internal {

class TcStringDecoder {
 public:
  static absl::Status Decode(std::string_view text, TcString* out);

 private:
  static absl::Status ReadVendorSection(BitReader& reader, VendorSet* set);
  // One range entry into *range; `max_vendor_id` 0 means unbounded.
  static absl::Status ReadRangeEntry(BitReader& reader, int max_vendor_id, VendorRange* range);
  static absl::Status ReadLetters(BitReader& reader, std::string* out);
  static absl::Status ReadSegmentType(std::string_view segment, TcString* out);
};

namespace {

constexpr int kTcStringVersion = 2;

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("TC string: ", what));
}

// A bit field of `width` bits whose leftmost bit is item 1, as a mask with
// bit n set for item n.
uint32_t ItemMask(uint64_t field, int width) {
  uint32_t mask = 0;
  for (int n = 1; n <= width; ++n) {
    if ((field >> (width - n)) & 1) mask |= uint32_t{1} << n;
  }
  return mask;
}

// Sorts `ranges` by start and merges overlapping and adjacent ones.
void SortAndMerge(absl::InlinedVector<VendorRange, 16>* ranges) {
  std::sort(ranges->begin(), ranges->end(),
            [](const VendorRange& a, const VendorRange& b) { return a.first < b.first; });
  size_t kept = 0;
  for (size_t i = 0; i < ranges->size(); ++i) {
    const VendorRange r = (*ranges)[i];
    if (kept > 0 && r.first <= (*ranges)[kept - 1].last + 1) {
      (*ranges)[kept - 1].last = std::max((*ranges)[kept - 1].last, r.last);
    } else {
      (*ranges)[kept++] = r;
    }
  }
  ranges->resize(kept);
}

}  // namespace

absl::Status TcStringDecoder::ReadLetters(BitReader& reader, std::string* out) {
  const uint64_t first = reader.Read(6);
  const uint64_t second = reader.Read(6);
  if (first > 25 || second > 25) return Malformed("a letter outside a..z");
  out->assign({static_cast<char>('A' + first), static_cast<char>('A' + second)});
  return absl::OkStatus();
}

absl::Status TcStringDecoder::ReadRangeEntry(BitReader& reader, int max_vendor_id,
                                             VendorRange* range) {
  // IsARange and the first id in one read: the entry loop is the hot part of
  // a range-encoded string.
  const uint64_t head = reader.Read(17);
  const bool is_range = (head >> 16) != 0;
  range->first = static_cast<uint16_t>(head & 0xffff);
  range->last = is_range ? static_cast<uint16_t>(reader.Read(16)) : range->first;
  if (reader.failed()) return Malformed("ends inside a range entry");
  if (range->first == 0) return Malformed("vendor id 0 in a range entry");
  if (range->last < range->first) return Malformed("a range entry ends before it starts");
  if (max_vendor_id > 0 && range->last > max_vendor_id) {
    return Malformed("a range entry goes beyond MaxVendorId");
  }
  return absl::OkStatus();
}

absl::Status TcStringDecoder::ReadVendorSection(BitReader& reader, VendorSet* set) {
  set->max_vendor_id_ = static_cast<uint16_t>(reader.Read(16));
  set->range_encoded_ = reader.ReadBool();
  set->bits_.clear();
  set->ranges_.clear();
  if (reader.failed()) return Malformed("ends inside a vendor section header");
  const int max_vendor_id = set->max_vendor_id_;
  if (!set->range_encoded_) {
    // Checked before sizing the words, so a short string cannot ask for 8 KiB.
    if (reader.remaining() < static_cast<size_t>(max_vendor_id)) {
      return Malformed("ends inside a vendor bit field");
    }
    set->bits_.assign((max_vendor_id + 63) / 64, 0);
    // Chunks of 32 bits never straddle a 64-bit word.
    for (int index = 0; index < max_vendor_id; index += 32) {
      const int width = std::min(32, max_vendor_id - index);
      const uint64_t chunk = reader.Read(width);
      set->bits_[index / 64] |= chunk << (64 - index % 64 - width);
    }
    return absl::OkStatus();
  }
  const int entries = static_cast<int>(reader.Read(12));
  if (reader.failed()) return Malformed("ends before a vendor range count");
  bool sorted = true;
  for (int i = 0; i < entries; ++i) {
    VendorRange range;
    if (absl::Status s = ReadRangeEntry(reader, max_vendor_id, &range); !s.ok()) return s;
    // CMPs write ranges in ascending order; merge as they come and sort only
    // when one arrives out of order.
    if (!set->ranges_.empty() && sorted) {
      VendorRange& last = set->ranges_.back();
      if (range.first < last.first) {
        sorted = false;
      } else if (range.first <= last.last + 1) {
        last.last = std::max(last.last, range.last);
        continue;
      }
    }
    set->ranges_.push_back(range);
  }
  if (!sorted) SortAndMerge(&set->ranges_);
  return absl::OkStatus();
}

absl::Status TcStringDecoder::ReadSegmentType(std::string_view segment, TcString* out) {
  if (segment.empty()) return Malformed("an empty segment");
  if (!IsBase64Url(segment)) return Malformed("a character outside base64url");
  const int type = Base64UrlValue(segment[0]) >> 3;
  if (type < static_cast<int>(TcSegmentType::kDisclosedVendors) ||
      type > static_cast<int>(TcSegmentType::kPublisherTc)) {
    return Malformed(absl::StrCat("segment of unknown type ", type));
  }
  out->segment_types |= static_cast<uint8_t>(1u << type);
  return absl::OkStatus();
}

absl::Status TcStringDecoder::Decode(std::string_view text, TcString* out) {
  const size_t dot = text.find('.');
  const std::string_view core = text.substr(0, dot);
  if (core.empty()) return Malformed("empty");
  BitReader reader;
  if (!reader.Reset(core)) return Malformed("a character outside base64url");

  out->version = static_cast<int>(reader.Read(6));
  if (reader.failed()) return Malformed("ends inside the core segment");
  if (out->version != kTcStringVersion) {
    return Malformed(absl::StrCat("version ", out->version, ", only version 2 is read"));
  }
  out->created_ds = static_cast<int64_t>(reader.Read(36));
  out->last_updated_ds = static_cast<int64_t>(reader.Read(36));
  out->cmp_id = static_cast<int>(reader.Read(12));
  out->cmp_version = static_cast<int>(reader.Read(12));
  out->consent_screen = static_cast<int>(reader.Read(6));
  if (absl::Status s = ReadLetters(reader, &out->consent_language); !s.ok()) return s;
  out->vendor_list_version = static_cast<int>(reader.Read(12));
  out->policy_version = static_cast<int>(reader.Read(6));
  out->is_service_specific = reader.ReadBool();
  out->use_non_standard_texts = reader.ReadBool();
  out->special_feature_opt_ins = ItemMask(reader.Read(12), 12);
  out->purpose_consents = ItemMask(reader.Read(24), 24);
  out->purpose_legitimate_interests = ItemMask(reader.Read(24), 24);
  out->purpose_one_treatment = reader.ReadBool();
  if (absl::Status s = ReadLetters(reader, &out->publisher_country); !s.ok()) return s;
  if (reader.failed()) return Malformed("ends inside the core segment");

  if (absl::Status s = ReadVendorSection(reader, &out->vendor_consents); !s.ok()) return s;
  if (absl::Status s = ReadVendorSection(reader, &out->vendor_legitimate_interests); !s.ok()) {
    return s;
  }

  out->publisher_restrictions.clear();
  const int restrictions = static_cast<int>(reader.Read(12));
  if (reader.failed()) return Malformed("ends before the publisher restriction count");
  for (int i = 0; i < restrictions; ++i) {
    const uint64_t head = reader.Read(20);
    if (reader.failed()) return Malformed("ends inside a publisher restriction");
    const auto purpose_id = static_cast<uint8_t>(head >> 14);
    const auto type = static_cast<RestrictionType>((head >> 12) & 3);
    const int entries = static_cast<int>(head & 0xfff);
    for (int e = 0; e < entries; ++e) {
      PublisherRestriction row{.purpose_id = purpose_id, .type = type};
      if (absl::Status s = ReadRangeEntry(reader, 0, &row.vendors); !s.ok()) return s;
      out->publisher_restrictions.push_back(row);
    }
  }

  out->segment_types = 0;
  if (dot == std::string_view::npos) return absl::OkStatus();
  for (std::string_view rest = text.substr(dot + 1);;) {
    const size_t next = rest.find('.');
    if (absl::Status s = ReadSegmentType(rest.substr(0, next), out); !s.ok()) return s;
    if (next == std::string_view::npos) return absl::OkStatus();
    rest.remove_prefix(next + 1);
  }
}

}  // namespace internal

bool VendorSet::Contains(int vendor_id) const {
  if (vendor_id < 1 || vendor_id > max_vendor_id_) return false;
  if (!range_encoded_) {
    const int index = vendor_id - 1;
    return ((bits_[index / 64] >> (63 - index % 64)) & 1) != 0;
  }
  // The last range starting at or before vendor_id is the only candidate.
  auto after = std::upper_bound(
      ranges_.begin(), ranges_.end(), vendor_id,
      [](int id, const VendorRange& range) { return id < static_cast<int>(range.first); });
  return after != ranges_.begin() && vendor_id <= static_cast<int>((after - 1)->last);
}

std::vector<int> VendorSet::Ids() const {
  std::vector<int> ids;
  for (int v = 1; v <= max_vendor_id_; ++v) {
    if (Contains(v)) ids.push_back(v);
  }
  return ids;
}

uint8_t TcString::RestrictionsFor(int vendor_id, int purpose) const {
  uint8_t types = 0;
  for (const PublisherRestriction& r : publisher_restrictions) {
    if (r.purpose_id == purpose && vendor_id >= r.vendors.first && vendor_id <= r.vendors.last) {
      types |= static_cast<uint8_t>(1u << static_cast<int>(r.type));
    }
  }
  return types;
}

absl::Status DecodeTcString(std::string_view text, TcString* out) {
  return internal::TcStringDecoder::Decode(text, out);
}

absl::StatusOr<TcString> DecodeTcString(std::string_view text) {
  TcString decoded;
  if (absl::Status s = DecodeTcString(text, &decoded); !s.ok()) return s;
  return decoded;
}

}  // namespace rtb::bidder::privacy

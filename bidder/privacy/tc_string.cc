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
  static absl::Status ReadVendorBitField(BitReader& reader, VendorSet* set);
  static absl::Status ReadVendorRanges(BitReader& reader, VendorSet* set);
  static absl::Status ReadLetters(BitReader& reader, std::string* out);
  static absl::Status ReadSegmentType(std::string_view segment, TcString* out);
};

namespace {

constexpr int kTcStringVersion = 2;

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("TC string: ", what));
}

// A bit field of `width` bits (at most 31) whose leftmost bit is item 1, as a
// mask with bit n set for item n: the field's bits reversed.
uint32_t ItemMask(uint64_t field, int width) {
  uint32_t v = static_cast<uint32_t>(field) << (32 - width);  // item n at bit 32 - n
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
  v = (v >> 16) | (v << 16);  // item n at bit n - 1
  return v << 1;
}

enum class RangeProblem { kNone, kTruncated, kZero, kBackwards, kBeyondMax };

// One range entry into `first` and `last`; `max_vendor_id` 0 means
// unbounded. The entry loop is the hot part of a range-encoded string, so the
// ids stay in registers and the problem is an enum: a VendorRange written as
// two halves and read back whole would stall store forwarding on every entry.
inline RangeProblem ReadRange(BitReader& reader, uint32_t max_vendor_id, uint32_t& first,
                              uint32_t& last) {
  // IsARange and the first id in one read.
  const uint64_t head = reader.Read(17);
  first = static_cast<uint32_t>(head & 0xffff);
  last = (head >> 16) != 0 ? static_cast<uint32_t>(reader.Read(16)) : first;
  if (reader.failed()) return RangeProblem::kTruncated;
  if (first == 0) return RangeProblem::kZero;
  if (last < first) return RangeProblem::kBackwards;
  if (max_vendor_id > 0 && last > max_vendor_id) return RangeProblem::kBeyondMax;
  return RangeProblem::kNone;
}

absl::Status RangeError(RangeProblem problem) {
  switch (problem) {
    case RangeProblem::kTruncated:
      return Malformed("ends inside a range entry");
    case RangeProblem::kZero:
      return Malformed("vendor id 0 in a range entry");
    case RangeProblem::kBackwards:
      return Malformed("a range entry ends before it starts");
    case RangeProblem::kBeyondMax:
      return Malformed("a range entry goes beyond MaxVendorId");
    case RangeProblem::kNone:
      break;
  }
  return absl::OkStatus();
}

// Sorts `ranges` by start and merges overlapping and adjacent ones.
void SortAndMerge(absl::InlinedVector<VendorRange, 32>* ranges) {
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

absl::Status TcStringDecoder::ReadVendorSection(BitReader& reader, VendorSet* set) {
  set->max_vendor_id_ = static_cast<uint16_t>(reader.Read(16));
  set->range_encoded_ = reader.ReadBool();
  // resize(0), not clear(): clear() frees a heap buffer a reused value keeps.
  set->bits_.resize(0);
  set->ranges_.resize(0);
  if (reader.failed()) return Malformed("ends inside a vendor section header");
  return set->range_encoded_ ? ReadVendorRanges(reader, set) : ReadVendorBitField(reader, set);
}

absl::Status TcStringDecoder::ReadVendorBitField(BitReader& reader, VendorSet* set) {
  const int max_vendor_id = set->max_vendor_id_;
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

absl::Status TcStringDecoder::ReadVendorRanges(BitReader& reader, VendorSet* set) {
  const int max_vendor_id = set->max_vendor_id_;
  const int entries = static_cast<int>(reader.Read(12));
  if (reader.failed()) return Malformed("ends before a vendor range count");
  // An entry takes at least 17 bits, so entry i is read whole only if
  // 17 * (i + 1) bits remained: a string claiming more entries than it holds
  // fails before the loop writes past this size. Ranges are written field by
  // field in place: building a VendorRange on the stack and copying it in
  // stalls store forwarding on every entry.
  set->ranges_.resize(std::min<size_t>(entries, reader.remaining() / 17));
  VendorRange* ranges = set->ranges_.data();
  size_t kept = 0;
  // The position lives in a local for the loop; checks per entry are on
  // locals only.
  const uint8_t* bits = reader.data();
  const size_t end = reader.size_bits();
  size_t position = reader.position();
  // CMPs write ranges in ascending order. The common case, a range that
  // starts after the last one kept ends (plus one), is appended at once;
  // anything else goes the slow way: merged into the last range when it
  // touches it, else appended and the whole list sorted and merged at the end.
  bool sorted = true;
  uint32_t previous_first = 0, previous_last = 0;
  const uint32_t max = static_cast<uint32_t>(max_vendor_id);
  for (int i = 0; i < entries; ++i) {
    // IsARange and the first id in one read.
    if (end - position < 17) return RangeError(RangeProblem::kTruncated);
    const uint64_t head = BitReader::Peek(bits, position, 17);
    position += 17;
    const uint32_t first = static_cast<uint32_t>(head & 0xffff);
    uint32_t last = first;
    if ((head >> 16) != 0) {
      if (end - position < 16) return RangeError(RangeProblem::kTruncated);
      last = static_cast<uint32_t>(BitReader::Peek(bits, position, 16));
      position += 16;
    }
    // 1 <= first <= last <= max, in unsigned arithmetic: two compares.
    if (first - 1 >= max || last - first > max - first) {
      return RangeError(first == 0     ? RangeProblem::kZero
                        : last < first ? RangeProblem::kBackwards
                                       : RangeProblem::kBeyondMax);
    }
    if (first <= previous_last + 1 && kept > 0 && sorted) {
      if (first >= previous_first) {
        if (last > previous_last) {
          previous_last = last;
          ranges[kept - 1].last = static_cast<uint16_t>(last);
        }
        continue;
      }
      sorted = false;
    }
    ranges[kept].first = static_cast<uint16_t>(first);
    ranges[kept].last = static_cast<uint16_t>(last);
    ++kept;
    previous_first = first;
    previous_last = last;
  }
  reader.Seek(position);
  set->ranges_.resize(kept);
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

  out->publisher_restrictions.resize(0);
  const int restrictions = static_cast<int>(reader.Read(12));
  if (reader.failed()) return Malformed("ends before the publisher restriction count");
  for (int i = 0; i < restrictions; ++i) {
    const uint64_t head = reader.Read(20);
    if (reader.failed()) return Malformed("ends inside a publisher restriction");
    const auto purpose_id = static_cast<uint8_t>(head >> 14);
    const auto type = static_cast<RestrictionType>((head >> 12) & 3);
    const int entries = static_cast<int>(head & 0xfff);
    for (int e = 0; e < entries; ++e) {
      uint32_t first, last;
      if (RangeProblem p = ReadRange(reader, 0, first, last); p != RangeProblem::kNone) {
        return RangeError(p);
      }
      out->publisher_restrictions.push_back(
          {purpose_id, type, {static_cast<uint16_t>(first), static_cast<uint16_t>(last)}});
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

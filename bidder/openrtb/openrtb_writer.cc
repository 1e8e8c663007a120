// Compact JSON for bid responses, appended straight into the caller's string.
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/str_cat.h"
#include "bidder/openrtb/openrtb.h"

namespace rtb::openrtb {
namespace {

// Escape for each ASCII byte: 0 none, 'u' for \u00XX, else the letter after '\'.
constexpr auto kEscapes = [] {
  std::array<char, 128> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = 'u';
  table['\b'] = 'b';
  table['\f'] = 'f';
  table['\n'] = 'n';
  table['\r'] = 'r';
  table['\t'] = 't';
  table['"'] = '"';
  table['\\'] = '\\';
  return table;
}();

inline bool IsSpecial(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte >= 0x80 || c == '"' || c == '\\';
}

#if defined(__SSE2__)
// Bit k set when bytes[k] IsSpecial. Signed compare: bytes >= 0x80 are
// negative, so "< 0x20" catches them too.
inline unsigned SpecialMask(__m128i bytes) {
  return static_cast<unsigned>(
      _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20)),
                                     _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')),
                                                  _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'))))));
}
#endif

// Offset of the first byte of s[from..] that cannot be copied as is (below
// 0x20, '"', '\\', or not ASCII), or s.size().
inline size_t FindSpecial(std::string_view s, size_t from) {
  size_t i = from;
#if defined(__SSE2__)
  const auto special = [](const char* p) {
    return SpecialMask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  };
  for (; i + 16 <= s.size(); i += 16) {
    if (const unsigned mask = special(s.data() + i); mask != 0) {
      return i + static_cast<size_t>(std::countr_zero(mask));
    }
  }
  if (i == s.size()) return i;
  if (s.size() >= 16) {
    // The tail as the last 16 bytes, overlapping bytes already looked at,
    // whose bits are shifted out. (Copying the tail to a padded block
    // instead stalled the block's load on the copy's smaller stores: a third
    // of this function's time, with a tail in nearly every string.)
    const size_t last = s.size() - 16;
    const unsigned mask = special(s.data() + last) >> (i - last);
    if (mask == 0) return s.size();
    return i + static_cast<size_t>(std::countr_zero(mask));
  }
  while (i < s.size() && !IsSpecial(s[i])) ++i;
  return i;
#else
  while (i < s.size() && !IsSpecial(s[i])) ++i;
  return i;
#endif
}

inline bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence starting at s[i] (a byte >= 0x80),
// or 0 when it is not one: overlong forms, surrogates and code points above
// U+10FFFF are refused, as in RFC 3629.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const size_t left = s.size() - i;
  const unsigned char c = byte(0);
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && IsContinuation(byte(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || !IsContinuation(byte(1)) || !IsContinuation(byte(2))) return 0;
    if (c == 0xE0 && byte(1) < 0xA0) return 0;  // overlong
    if (c == 0xED && byte(1) > 0x9F) return 0;  // UTF-16 surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || !IsContinuation(byte(1)) || !IsContinuation(byte(2)) ||
        !IsContinuation(byte(3))) {
      return 0;
    }
    if (c == 0xF0 && byte(1) < 0x90) return 0;  // overlong
    if (c == 0xF4 && byte(1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// A string with nothing to escape or check (ids, URLs) is appended as it
// is. Otherwise it is written through a pointer into a buffer with room for
// the worst case (every byte written as \u00XX), then appended at once:
// escape-heavy markup would otherwise cost two appends per escape. (Counting
// the escaped size first instead made a 4 KB markup's response 45 % slower.)
// Between escapes the bytes go 16 at a time: a whole block is stored and the
// pointer moved past its bytes before the first special one, which costs
// less than finding the run's end and copying it (markup escapes a quote
// every dozen bytes or so).
inline void AppendQuoted(std::string_view s, std::string& out) {
  size_t i = FindSpecial(s, 0);
  if (i == s.size()) {
    out += '"';
    out.append(s);
    out += '"';
    return;
  }
  // The buffer is per thread and kept at its largest size: growing `out` by
  // the worst case instead zero-filled six times the text's size on every
  // call. A text too large to keep room for gets a buffer of its own. The
  // 16 bytes past the worst case take the last block's store.
  constexpr size_t kKeptBytes = 256 << 10;
  thread_local std::string kept;
  std::string once;
  const size_t worst = 2 + 6 * s.size() + 16;
  std::string& escaped = worst <= kKeptBytes ? kept : once;
  if (escaped.size() < worst) escaped.resize(worst);
  char* p = escaped.data();
  *p++ = '"';
  std::memcpy(p, s.data(), i);
  p += i;
  while (i < s.size()) {
    // s[i] is special.
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(s, i);
      if (length > 0) {
        std::memcpy(p, s.data() + i, length);
        p += length;
        i += length;
      } else {
        std::memcpy(p, "\xEF\xBF\xBD", 3);  // U+FFFD REPLACEMENT CHARACTER
        p += 3;
        ++i;
      }
    } else {
      const char escape = kEscapes[c];
      *p++ = '\\';
      *p++ = escape;
      if (escape == 'u') {
        static constexpr char kHex[] = "0123456789abcdef";
        *p++ = '0';
        *p++ = '0';
        *p++ = kHex[c >> 4];
        *p++ = kHex[c & 0xF];
      }
      ++i;
    }
    // The ordinary bytes up to the next special one.
#if defined(__SSE2__)
    while (i + 16 <= s.size()) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p), bytes);
      const unsigned mask = SpecialMask(bytes);
      const size_t ordinary = mask == 0 ? 16 : static_cast<size_t>(std::countr_zero(mask));
      p += ordinary;
      i += ordinary;
      if (mask != 0) break;
    }
    if (i + 16 <= s.size()) continue;
#endif
    while (i < s.size() && !IsSpecial(s[i])) *p++ = s[i++];
  }
  *p++ = '"';
  out.append(escaped.data(), static_cast<size_t>(p - escaped.data()));
}

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(*out) {}

  void Raw(char c) { out_.push_back(c); }
  void Raw(std::string_view s) { out_.append(s); }

  void String(std::string_view s) { AppendQuoted(s, out_); }

  void Integer(int64_t n) {
    char buffer[24];
    auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), n);
    out_.append(buffer, end);
  }

  // Plain decimal, shortest digits that round-trip. Caller checks finiteness.
  void Price(double price) {
    if (price == 0) price = 0;  // no "-0"
    // DBL_MAX in fixed notation has 309 digits.
    char buffer[400];
    auto [end, error] =
        std::to_chars(buffer, buffer + sizeof(buffer), price, std::chars_format::fixed);
    out_.append(buffer, end);
  }

 private:
  std::string& out_;
};

// Members of one JSON object, commas handled.
class ObjectWriter {
 public:
  explicit ObjectWriter(JsonWriter& json) : json_(json) { json_.Raw('{'); }
  ~ObjectWriter() { json_.Raw('}'); }

  // `member` is the key written as ,"key": (one append); the comma is
  // dropped for the first member.
  JsonWriter& Key(std::string_view member) {
    if (first_) member.remove_prefix(1);
    first_ = false;
    json_.Raw(member);
    return json_;
  }

  void String(std::string_view member, std::string_view value) {
    if (!value.empty()) Key(member).String(value);
  }

  void Integer(std::string_view member, std::optional<int32_t> value) {
    if (value.has_value()) Key(member).Integer(*value);
  }

  void Integers(std::string_view member, const std::vector<int32_t>& values) {
    if (values.empty()) return;
    JsonWriter& json = Key(member);
    json.Raw('[');
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) json.Raw(',');
      json.Integer(values[i]);
    }
    json.Raw(']');
  }

  void Strings(std::string_view member, const std::vector<std::string>& values) {
    if (values.empty()) return;
    JsonWriter& json = Key(member);
    json.Raw('[');
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) json.Raw(',');
      json.String(values[i]);
    }
    json.Raw(']');
  }

 private:
  JsonWriter& json_;
  bool first_ = true;
};

absl::Status CheckBid(const Bid& bid, size_t seat, size_t index) {
  auto invalid = [&](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat("seatbid[", seat, "].bid[", index, "]", what));
  };
  if (bid.id.empty()) return invalid(".id: required");
  if (bid.impid.empty()) return invalid(".impid: required");
  if (!std::isfinite(bid.price) || bid.price < 0) return invalid(".price: must be finite and >= 0");
  if (bid.adm.empty() && bid.nurl.empty()) return invalid(": adm or nurl required");
  if (bid.dsa.has_value() && (bid.dsa->behalf.empty() || bid.dsa->paid.empty())) {
    return invalid(".ext.dsa: behalf and paid required");
  }
  return absl::OkStatus();
}

absl::Status CheckResponse(const BidResponse& response) {
  if (response.id.empty()) return absl::InvalidArgumentError("id: required");
  for (size_t s = 0; s < response.seatbid.size(); ++s) {
    const SeatBid& seatbid = response.seatbid[s];
    if (seatbid.bid.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("seatbid[", s, "].bid: at least one bid required"));
    }
    for (size_t b = 0; b < seatbid.bid.size(); ++b) {
      if (absl::Status status = CheckBid(seatbid.bid[b], s, b); !status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

// Bytes of the response without escapes: enough room in the common case, so
// a fresh output string grows once.
size_t EstimatedSize(const BidResponse& response) {
  size_t size = 64 + response.id.size() + response.bidid.size() + response.cur.size();
  for (const SeatBid& seatbid : response.seatbid) {
    size += 32 + seatbid.seat.size();
    for (const Bid& bid : seatbid.bid) {
      size += 256 + bid.id.size() + bid.impid.size() + bid.adm.size() + bid.nurl.size() +
              bid.burl.size() + bid.lurl.size() + bid.crid.size() + bid.cid.size() +
              bid.dealid.size() + bid.adid.size() + bid.iurl.size() + 4 * bid.attr.size();
      for (const std::string& domain : bid.adomain) size += 3 + domain.size();
      for (const std::string& cat : bid.cat) size += 3 + cat.size();
      if (bid.dsa.has_value()) {
        size += 64 + bid.dsa->behalf.size() + bid.dsa->paid.size();
        for (const DsaTransparency& t : bid.dsa->transparency) size += 32 + t.domain.size();
      }
    }
  }
  return size;
}

void WriteDsa(JsonWriter& json, const BidDsa& dsa) {
  ObjectWriter object(json);
  object.String(R"(,"behalf":)", dsa.behalf);
  object.String(R"(,"paid":)", dsa.paid);
  object.Key(R"(,"adrender":)").Integer(dsa.adrender);
  if (dsa.transparency.empty()) return;
  object.Key(R"(,"transparency":)").Raw('[');
  for (size_t i = 0; i < dsa.transparency.size(); ++i) {
    if (i > 0) json.Raw(',');
    const DsaTransparency& entry = dsa.transparency[i];
    ObjectWriter transparency(json);
    transparency.String(R"(,"domain":)", entry.domain);
    if (entry.dsaparams.empty()) continue;
    transparency.Key(R"(,"dsaparams":)").Raw('[');
    for (size_t p = 0; p < entry.dsaparams.size(); ++p) {
      if (p > 0) json.Raw(',');
      json.Integer(entry.dsaparams[p]);
    }
    json.Raw(']');
  }
  json.Raw(']');
}

// The members only OpenRTB 2.6 defines on a bid.
void WriteOpenRtb26Members(ObjectWriter& object, const Bid& bid) {
  object.Integer(R"(,"cattax":)", bid.cattax);
  object.Integer(R"(,"dur":)", bid.dur);
  object.Integer(R"(,"mtype":)", bid.mtype);
}

void WriteBid(JsonWriter& json, const Bid& bid, OpenRtbVersion version, bool strict_2_5) {
  ObjectWriter object(json);
  object.String(R"(,"id":)", bid.id);
  object.String(R"(,"impid":)", bid.impid);
  object.Key(R"(,"price":)").Price(bid.price);
  object.String(R"(,"adm":)", bid.adm);
  object.String(R"(,"adid":)", bid.adid);
  object.String(R"(,"nurl":)", bid.nurl);
  object.String(R"(,"burl":)", bid.burl);
  object.String(R"(,"lurl":)", bid.lurl);
  object.Strings(R"(,"adomain":)", bid.adomain);
  object.String(R"(,"iurl":)", bid.iurl);
  object.String(R"(,"crid":)", bid.crid);
  object.String(R"(,"cid":)", bid.cid);
  object.Strings(R"(,"cat":)", bid.cat);
  object.Integers(R"(,"attr":)", bid.attr);
  object.Integer(R"(,"protocol":)", bid.protocol);
  object.String(R"(,"language":)", bid.language);
  object.Integer(R"(,"w":)", bid.w);
  object.Integer(R"(,"h":)", bid.h);
  object.String(R"(,"dealid":)", bid.dealid);
  // The 2.6-only members at their 2.6 places in every answer but a strict
  // 2.5 one, and in a 2.5 answer in bid.ext under the same names (see Bid).
  if (version == OpenRtbVersion::k2_6 || !strict_2_5) WriteOpenRtb26Members(object, bid);
  const bool members_in_ext =
      version != OpenRtbVersion::k2_6 &&
      (bid.cattax.has_value() || bid.dur.has_value() || bid.mtype.has_value());
  if (members_in_ext || bid.dsa.has_value()) {
    ObjectWriter ext(object.Key(R"(,"ext":)"));
    if (members_in_ext) WriteOpenRtb26Members(ext, bid);
    if (bid.dsa.has_value()) WriteDsa(ext.Key(R"(,"dsa":)"), *bid.dsa);
  }
}

}  // namespace

void AppendJsonString(std::string_view text, std::string* out) { AppendQuoted(text, *out); }

void ClearForReuse(Bid* bid) {
  // Every member bound by name: one added to Bid stops this compiling until
  // it is cleared here too, so a reused bid never carries a stale member.
  auto& [id, impid, price, adm, nurl, burl, lurl, adomain, crid, cid, adid, iurl, cat, attr,
         protocol, language, w, h, dealid, cattax, dur, mtype, dsa] = *bid;
  for (std::string* text :
       {&id, &impid, &adm, &nurl, &burl, &lurl, &crid, &cid, &adid, &iurl, &language, &dealid}) {
    text->clear();
  }
  price = 0;
  adomain.clear();
  cat.clear();
  attr.clear();
  for (std::optional<int32_t>* number : {&protocol, &w, &h, &cattax, &dur, &mtype}) {
    number->reset();
  }
  dsa.reset();
}

absl::Status SerializeBidResponse(const BidResponse& response, std::string* out) {
  out->clear();
  if (absl::Status status = CheckResponse(response); !status.ok()) return status;
  out->reserve(EstimatedSize(response));
  JsonWriter json(out);
  ObjectWriter object(json);
  object.String(R"(,"id":)", response.id);
  if (!response.seatbid.empty()) {
    object.Key(R"(,"seatbid":)").Raw('[');
    for (size_t s = 0; s < response.seatbid.size(); ++s) {
      if (s > 0) json.Raw(',');
      const SeatBid& seatbid = response.seatbid[s];
      ObjectWriter seat(json);
      seat.String(R"(,"seat":)", seatbid.seat);
      seat.Key(R"(,"bid":)").Raw('[');
      for (size_t b = 0; b < seatbid.bid.size(); ++b) {
        if (b > 0) json.Raw(',');
        WriteBid(json, seatbid.bid[b], response.version, response.strict_2_5);
      }
      json.Raw(']');
    }
    json.Raw(']');
  }
  object.String(R"(,"bidid":)", response.bidid);
  object.String(R"(,"cur":)", response.cur);
  if (response.nbr.has_value()) {
    object.Key(R"(,"nbr":)").Integer(static_cast<int32_t>(*response.nbr));
  }
  return absl::OkStatus();
}

}  // namespace rtb::openrtb

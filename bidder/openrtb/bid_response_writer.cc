// Compact JSON for bid responses, appended straight into the caller's string.
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = 0x8080808080808080ULL;

// True when any of the 8 bytes in `w` is >= 0x80, < 0x20, '"' or '\'.
inline bool NeedsAttention(uint64_t w) {
  auto has_zero_byte = [](uint64_t v) { return (v - kOnes) & ~v & kHighBits; };
  const uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighBits;
  return ((w & kHighBits) | below_space | has_zero_byte(w ^ (kOnes * '"')) |
          has_zero_byte(w ^ (kOnes * '\\'))) != 0;
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

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(*out) {}

  void Raw(char c) { out_.push_back(c); }
  void Raw(std::string_view s) { out_.append(s); }

  void String(std::string_view s) {
    out_.push_back('"');
    size_t run = 0;  // start of bytes not yet copied
    size_t i = 0;
    while (i < s.size()) {
      if (i + 8 <= s.size()) {
        uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (!NeedsAttention(w)) {
          i += 8;
          continue;
        }
      }
      const auto c = static_cast<unsigned char>(s[i]);
      if (c < 0x80) {
        const char escape = kEscapes[c];
        if (escape == 0) {
          ++i;
          continue;
        }
        out_.append(s.data() + run, i - run);
        out_.push_back('\\');
        out_.push_back(escape);
        if (escape == 'u') {
          static constexpr char kHex[] = "0123456789abcdef";
          out_.append("00");
          out_.push_back(kHex[c >> 4]);
          out_.push_back(kHex[c & 0xF]);
        }
        run = ++i;
        continue;
      }
      const size_t length = Utf8SequenceLength(s, i);
      if (length > 0) {
        i += length;
        continue;
      }
      out_.append(s.data() + run, i - run);
      out_.append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER
      run = ++i;
    }
    out_.append(s.data() + run, s.size() - run);
    out_.push_back('"');
  }

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

  JsonWriter& Key(std::string_view key) {
    if (!first_) json_.Raw(',');
    first_ = false;
    json_.Raw('"');
    json_.Raw(key);
    json_.Raw("\":");
    return json_;
  }

  void String(std::string_view key, std::string_view value) {
    if (!value.empty()) Key(key).String(value);
  }

  void Integer(std::string_view key, std::optional<int32_t> value) {
    if (value.has_value()) Key(key).Integer(*value);
  }

  void Strings(std::string_view key, const std::vector<std::string>& values) {
    if (values.empty()) return;
    JsonWriter& json = Key(key);
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
  return absl::OkStatus();
}

absl::Status CheckResponse(const BidResponse& response) {
  if (response.id.empty()) return absl::InvalidArgumentError("id: required");
  for (size_t s = 0; s < response.seatbid.size(); ++s) {
    const SeatBid& seatbid = response.seatbid[s];
    if (seatbid.bid.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("seatbid[", s, "].bid: at least one bid required"));
    }
    for (size_t b = 0; b < seatbid.bid.size(); ++b) {
      if (absl::Status status = CheckBid(seatbid.bid[b], s, b); !status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

void WriteBid(JsonWriter& json, const Bid& bid) {
  ObjectWriter object(json);
  object.String("id", bid.id);
  object.String("impid", bid.impid);
  object.Key("price").Price(bid.price);
  object.String("adm", bid.adm);
  object.String("nurl", bid.nurl);
  object.String("burl", bid.burl);
  object.String("lurl", bid.lurl);
  object.Strings("adomain", bid.adomain);
  object.String("crid", bid.crid);
  object.String("cid", bid.cid);
  object.Strings("cat", bid.cat);
  object.Integer("w", bid.w);
  object.Integer("h", bid.h);
  object.String("dealid", bid.dealid);
  object.Integer("mtype", bid.mtype);
}

}  // namespace

absl::Status SerializeBidResponse(const BidResponse& response, std::string* out) {
  out->clear();
  if (absl::Status status = CheckResponse(response); !status.ok()) return status;
  JsonWriter json(out);
  ObjectWriter object(json);
  object.String("id", response.id);
  if (!response.seatbid.empty()) {
    object.Key("seatbid").Raw('[');
    for (size_t s = 0; s < response.seatbid.size(); ++s) {
      if (s > 0) json.Raw(',');
      const SeatBid& seatbid = response.seatbid[s];
      ObjectWriter seat(json);
      seat.String("seat", seatbid.seat);
      seat.Key("bid").Raw('[');
      for (size_t b = 0; b < seatbid.bid.size(); ++b) {
        if (b > 0) json.Raw(',');
        WriteBid(json, seatbid.bid[b]);
      }
      json.Raw(']');
    }
    json.Raw(']');
  }
  object.String("bidid", response.bidid);
  object.String("cur", response.cur);
  if (response.nbr.has_value()) object.Key("nbr").Integer(static_cast<int32_t>(*response.nbr));
  return absl::OkStatus();
}

}  // namespace rtb::openrtb

// The bid-path reader: simdjson On-Demand over a padded copy of the request,
// driven by the tables in internal/schema.h.
//
// On-Demand parses a value only when it is asked for, so values we do not use
// would otherwise go unchecked; they are walked and checked instead (see
// SkipChecked), which keeps "malformed JSON is rejected" true for the whole
// document, `ext` included. The trailing-content check closes the other gap:
// On-Demand stops at the end of the root object.
//
// An embedded document (native.request, FieldOptions::embedded_json) is read
// by a second Reader over a second On-Demand parser (EmbeddedDocument), since
// the first is still iterating the request.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/utility/utility.h"
#include "bidder/openrtb/internal/error_trail.h"
#include "bidder/openrtb/internal/schema.h"
#include "bidder/openrtb/openrtb.h"
#include "simdjson.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rtb::openrtb {
namespace {

namespace od = simdjson::ondemand;
using internal::Bound;
using internal::Envelope;
using internal::ErrorTrail;
using internal::Field;
using internal::Inline;
using internal::IsOptional;
using internal::IsVector;
using internal::JsonKey;
using internal::Schema;
using internal::SkipKind;
using internal::Skipped;

// What reading one JSON value gave.
enum class Outcome { kValue, kNull, kError };

std::string_view BoundViolation(Bound bound) {
  return bound == Bound::kPositive ? "must be > 0" : "must be >= 0";
}

template <typename N>
bool Violates(Bound bound, N n) {
  switch (bound) {
    case Bound::kNone:
      return false;
    case Bound::kNonNegative:
      return n < 0;
    case Bound::kPositive:
      return n <= 0;
  }
  return false;
}

// Offset of the first '"' or '\\' at or after `p`. One of them must come
// before the end of the document: each load then ends at most 15 bytes past
// it, inside the padding.
size_t FindQuoteOrBackslash(const char* p) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (size_t offset = 0;; offset += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + offset));
    const int found = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)));
    if (found != 0) {
      return offset + static_cast<size_t>(std::countr_zero(static_cast<unsigned>(found)));
    }
  }
#else
  size_t offset = 0;
  while (p[offset] != '"' && p[offset] != '\\') ++offset;
  return offset;
#endif
}

// A key that points into the padded input: its prefix can be loaded whole.
JsonKey PaddedKey(const char* text, size_t size) {
  if constexpr (std::endian::native == std::endian::little) {
    // kKeep[n] keeps the low n bytes.
    static constexpr uint64_t kKeep[9] = {
        0,           0xFF,         0xFFFF,         0xFFFFFF,
        0xFFFFFFFF,  0xFFFFFFFFFF, 0xFFFFFFFFFFFF, 0xFFFFFFFFFFFFFF,
        ~uint64_t{0}};
    uint64_t prefix;
    std::memcpy(&prefix, text, 8);
    return {std::string_view(text, size), prefix & kKeep[std::min<size_t>(size, 8)]};
  } else {
    return internal::MakeJsonKey(std::string_view(text, size));
  }
}

// "-123" and the like, with the whitespace a raw token may carry after it.
bool IsIntegerLiteral(std::string_view token) {
  size_t end = token.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return false;
  token = token.substr(0, end + 1);
  if (!token.empty() && token.front() == '-') token.remove_prefix(1);
  return !token.empty() && token.find_first_not_of("0123456789") == std::string_view::npos;
}

// A number simdjson refuses though JSON allows it (an exponent too long for
// it, such as 1e-3666666666666666666666), or one it would misread (see
// ReadDouble), read the way strtod reads it: an underflow is 0, an overflow
// is infinite (and refused by the caller).
std::optional<double> ReadLongNumber(std::string_view token) {
  size_t end = token.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return std::nullopt;
  token = token.substr(0, end + 1);
  // JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < token.size() && token[i] >= '0' && token[i] <= '9') ++i;
    return i - from;
  };
  if (i < token.size() && token[i] == '-') ++i;
  if (i < token.size() && token[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return std::nullopt;
  }
  if (i < token.size() && token[i] == '.') {
    ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != token.size()) return std::nullopt;
  const std::string text(token);
  return std::strtod(text.c_str(), nullptr);
}

// More than 19 significant digits: beyond the fast path of simdjson's
// number parser, whose slow path in the packaged 3.0.1 misreads a mantissa
// that starts with "0." (0.99999999999999999999 reads as 0.0777).
bool HasLongMantissa(std::string_view token) {
  if (token.size() <= 19) return false;  // the common number, at no cost
  int digits = 0;
  bool leading = true;
  for (char c : token) {
    if (c == 'e' || c == 'E') break;
    if (c < '0' || c > '9') continue;
    if (leading && c == '0') continue;
    leading = false;
    if (++digits > 19) return true;
  }
  return false;
}

// A JSON number as a double, correctly rounded whatever its length. Returns
// simdjson's error for a value that is no number, NUMBER_ERROR for a number
// out of range (infinite).
simdjson::error_code ReadDouble(od::value& value, double& out) {
  const std::string_view token = value.raw_json_token();
  simdjson::error_code error = simdjson::SUCCESS;
  if (!HasLongMantissa(token)) {
    error = value.get_double().get(out);
    if (error != simdjson::NUMBER_ERROR) return error;
  }
  const std::optional<double> read = ReadLongNumber(token);
  if (!read.has_value()) return error == simdjson::SUCCESS ? value.get_double().get(out) : error;
  if (!std::isfinite(*read)) return simdjson::NUMBER_ERROR;
  out = *read;
  return simdjson::SUCCESS;
}

// A padded copy of an embedded document and the parser that iterates it.
class EmbeddedDocument {
 public:
  // Iterates a copy of `json`; the document is valid until the next call.
  simdjson::error_code Iterate(std::string_view json, od::document* doc) {
    const size_t needed = json.size() + simdjson::SIMDJSON_PADDING;
    if (needed > capacity_) {
      capacity_ = std::max(needed, capacity_ * 2);
      buffer_ = std::make_unique<char[]>(capacity_);
    }
    if (!json.empty()) std::memcpy(buffer_.get(), json.data(), json.size());
    std::memset(buffer_.get() + json.size(), 0, simdjson::SIMDJSON_PADDING);
    end_ = buffer_.get() + json.size();
    return parser_.iterate(buffer_.get(), json.size(), capacity_).get(*doc);
  }
  const char* end() const { return end_; }

 private:
  od::parser parser_;
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  const char* end_ = nullptr;
};

class Reader {
 public:
  Reader(int max_depth, ErrorTrail* trail, IgnoredInRequest* ignored, EmbeddedDocument* embedded)
      : max_depth_(max_depth), trail_(trail), ignored_(ignored), embedded_(embedded) {}

  bool ReadRequest(od::document& doc, BidRequest& request) { return ReadDocument(doc, request); }

  // The root object of `doc` into `record`, then nothing but whitespace.
  template <typename R>
  bool ReadDocument(od::document& doc, R& record) {
    od::object object;
    if (auto error = doc.get_object().get(object)) {
      if (error == simdjson::INCORRECT_TYPE) return trail_->Fail("expected a JSON object");
      return Malformed(error);
    }
    if (++depth_ > max_depth_) return TooDeep();
    if (!ReadEntries(object, record, Schema<R>::kEntries)) return false;
    --depth_;
    // Everything after the root object must be whitespace: consuming the
    // (already consumed) document leaves the iterator at the next token,
    // which is the end of input only when nothing follows.
    std::string_view root;
    if (auto error = doc.raw_json().get(root)) return Malformed(error);
    if (root.data() + root.size() != end_) {
      return trail_->Fail("malformed JSON (content after the top-level object)");
    }
    return true;
  }

  void set_end(const char* end) { end_ = end; }
  void set_depth(int depth) { depth_ = depth; }
  bool saw_openrtb_2_6() const { return saw_openrtb_2_6_; }
  // The failure was malformed JSON or too deep nesting, not a wrong type.
  bool failed_on_json() const { return failed_on_json_; }

 private:
  // Depth of the value being read; objects and arrays count one level.
  class Nesting {
   public:
    explicit Nesting(Reader* reader) : reader_(reader) { ++reader_->depth_; }
    ~Nesting() { --reader_->depth_; }
    bool too_deep() const { return reader_->depth_ > reader_->max_depth_; }

   private:
    Reader* reader_;
  };

  [[gnu::noinline, gnu::cold]] bool Malformed(simdjson::error_code error) {
    failed_on_json_ = true;
    return trail_->Fail(absl::StrCat("malformed JSON (", simdjson::error_message(error), ")"));
  }

  [[gnu::noinline, gnu::cold]] bool TooDeep() {
    failed_on_json_ = true;
    return trail_->Fail(absl::StrCat("nesting deeper than ", max_depth_, " levels"));
  }

  // After a failed get_*(): null, the wrong type, or broken JSON.
  Outcome Mismatch(od::value& value, simdjson::error_code error, std::string_view expected) {
    if (error == simdjson::INCORRECT_TYPE) {
      bool is_null = false;
      if (value.is_null().get(is_null) == simdjson::SUCCESS && is_null) return Outcome::kNull;
      trail_->Fail(expected);
      return Outcome::kError;
    }
    Malformed(error);
    return Outcome::kError;
  }

  // Keys are read from the input directly unless they contain an escape;
  // stage 1 has already checked that strings are closed and valid UTF-8.
  bool ReadKey(od::field& field, JsonKey& key) {
    const char* start = field.key().raw();
    const size_t length = FindQuoteOrBackslash(start);
    if (start[length] == '"') [[likely]] {
      key = PaddedKey(start, length);
      return true;
    }
    return ReadEscapedKey(field, key);
  }

  [[gnu::noinline]] bool ReadEscapedKey(od::field& field, JsonKey& key) {
    std::string_view unescaped;
    if (auto error = field.unescaped_key().get(unescaped)) return Malformed(error);
    key = internal::MakeJsonKey(unescaped);
    return true;
  }

  template <typename R, typename Entries>
  bool ReadEntries(od::object& object, R& record, const Entries& entries) {
    for (auto field_result : object) {
      od::field field;
      if (auto error = std::move(field_result).get(field)) return Malformed(error);
      JsonKey key;
      if (!ReadKey(field, key)) return false;
      od::value value = field.value();
      bool matched = false;
      bool ok = true;
      // The first entry named `key` reads the value; the fold stops there.
      std::apply(
          [&](const auto&... entry) {
            ((entry.name.Matches(key) && (ok = ReadEntry(value, record, entry), matched = true)) ||
             ...);
          },
          entries);
      if (!matched) {
        ++ignored_->unknown_fields;
        ok = SkipChecked(value);
      }
      if (!ok) return trail_->Within(key.text);
    }
    return true;
  }

  template <typename R, typename M>
  bool ReadEntry(od::value& value, R& record, const Field<R, M>& field) {
    if (field.options.openrtb_2_6) saw_openrtb_2_6_ = true;
    M& member = record.*field.member;
    if constexpr (internal::IsOptionalRecord<M>::value) {
      if (field.options.embedded_json) return ReadEmbedded(value, member);
    }
    if constexpr (std::is_same_v<M, std::string>) {
      if (field.options.number_as_text) return ReadStringOrNumber(value, member);
    }
    if (field.options.fallback) {
      M fallback{};
      Outcome outcome = Read(value, fallback, field.options.bound);
      if (outcome == Outcome::kValue && internal::IsUnset(member)) member = std::move(fallback);
      return outcome != Outcome::kError;
    }
    if (Read(value, member, field.options.bound) == Outcome::kError) return false;
    internal::CheckEnum(field.options, member, *ignored_);
    return true;
  }

  template <typename R, typename Entries>
  bool ReadEntry(od::value& value, R& record, const Inline<Entries>& ext) {
    od::json_type type;
    if (auto error = value.type().get(type)) return Malformed(error);
    if (type != od::json_type::object) {
      ++ignored_->ext_not_object;
      return SkipChecked(value);
    }
    od::object object;
    if (auto error = value.get_object().get(object)) return Malformed(error);
    Nesting nesting(this);
    if (nesting.too_deep()) return TooDeep();
    return ReadEntries(object, record, ext.entries);
  }

  template <typename R, typename Entries>
  bool ReadEntry(od::value& value, R& record, const Envelope<R, Entries>& envelope) {
    od::object object;
    if (auto error = value.get_object().get(object)) {
      return Mismatch(value, error, "expected object") == Outcome::kNull;
    }
    record.*envelope.present = true;
    Nesting nesting(this);
    if (nesting.too_deep()) return TooDeep();
    return ReadEntries(object, record, envelope.entries);
  }

  template <typename R>
  bool ReadEntry(od::value& value, R&, const Skipped& skipped) {
    if (skipped.kind == SkipKind::kOpenRtb26) saw_openrtb_2_6_ = true;
    if (skipped.kind == SkipKind::kExt) {
      od::json_type type;
      if (auto error = value.type().get(type)) return Malformed(error);
      if (type != od::json_type::object) ++ignored_->ext_not_object;
    }
    return SkipChecked(value);
  }

  // A string, or a number kept as its shortest decimal text
  // (FieldOptions::number_as_text).
  bool ReadStringOrNumber(od::value& value, std::string& out) {
    od::json_type type;
    if (auto error = value.type().get(type)) return Malformed(error);
    if (type != od::json_type::number) return Read(value, out, Bound::kNone) != Outcome::kError;
    double d = 0;
    if (auto error = ReadDouble(value, d)) return Malformed(error);
    if (d == 0) d = 0;  // "-0" reads as an integer 0 elsewhere
    char text[32];
    auto [end, ec] = std::to_chars(text, text + sizeof(text), d);
    out.assign(text, end);
    return true;
  }

  // An embedded document (FieldOptions::embedded_json): the member is left
  // unset when it is unusable; only broken JSON in its object form fails the
  // request. Rare, so kept out of line.
  template <typename R>
  [[gnu::noinline]] bool ReadEmbedded(od::value& value, std::optional<R>& out) {
    out.reset();
    od::json_type type;
    if (auto error = value.type().get(type)) return Malformed(error);
    std::string_view text;
    const bool object_form = type == od::json_type::object;
    if (object_form) {
      od::object object;
      if (auto error = value.get_object().get(object)) return Malformed(error);
      if (auto error = object.raw_json().get(text)) return Malformed(error);
    } else if (type == od::json_type::string) {
      if (auto error = value.get_string().get(text)) return Malformed(error);
      // JSON has no place for a raw NUL, and the baseline stops at one.
      if (text.find('\0') != std::string_view::npos) return true;
    } else {
      return SkipChecked(value);
    }
    od::document doc;
    ErrorTrail trail;
    IgnoredInRequest ignored;
    Reader reader(max_depth_, &trail, &ignored, nullptr);
    R record;
    bool ok = false;
    if (embedded_ != nullptr && embedded_->Iterate(text, &doc) == simdjson::SUCCESS) {
      reader.set_end(embedded_->end());
      // The object form counts the levels around it; a string starts afresh.
      reader.set_depth(object_form ? depth_ : 0);
      ok = reader.ReadDocument(doc, record);
    } else {
      reader.failed_on_json_ = true;
    }
    if (ok) {
      out = std::move(record);
      MergeIgnored(ignored);
      return true;
    }
    if (!object_form) return true;
    // The object belongs to the request, which must be JSON throughout: past
    // a wrong type the reader stopped looking, so look at the rest.
    if (!reader.failed_on_json()) reader.ValidateEmbedded(text, depth_, embedded_);
    if (reader.failed_on_json()) {
      failed_on_json_ = true;
      const absl::Status status = trail.ToStatus();
      return trail_->Fail(std::string_view(status.message().data(), status.message().size()));
    }
    return true;
  }

  // Checks all of `text` as JSON nested `depth` levels down; failed_on_json()
  // tells.
  [[gnu::noinline]] void ValidateEmbedded(std::string_view text, int depth,
                                          EmbeddedDocument* embedded) {
    od::document doc;
    od::value root;
    if (embedded->Iterate(text, &doc) != simdjson::SUCCESS) {
      failed_on_json_ = true;
      return;
    }
    if (auto error = doc.get_value().get(root)) {
      Malformed(error);
      return;
    }
    depth_ = depth;
    SkipChecked(root);
  }

  void MergeIgnored(const IgnoredInRequest& nested) {
    ignored_->ext_not_object += nested.ext_not_object;
    ignored_->unknown_fields += nested.unknown_fields;
    ignored_->unknown_values += nested.unknown_values;
  }

  template <typename T>
  Outcome Read(od::value& value, T& out, Bound bound) {
    if constexpr (IsOptional<T>::value) {
      using V = typename T::value_type;
      if constexpr (internal::Record<V>) {
        od::object object;
        if (auto error = value.get_object().get(object)) {
          return Mismatch(value, error, "expected object");
        }
        return ReadRecord(object, out.emplace());
      } else {
        V v{};
        Outcome outcome = Read(value, v, bound);
        if (outcome == Outcome::kValue) out = std::move(v);
        return outcome;
      }
    } else if constexpr (IsVector<T>::value) {
      return ReadArray(value, out);
    } else if constexpr (internal::Record<T>) {
      od::object object;
      if (auto error = value.get_object().get(object)) {
        return Mismatch(value, error, "expected object");
      }
      return ReadRecord(object, out);
    } else {
      return ReadScalar(value, out, bound);
    }
  }

  template <typename R>
  Outcome ReadRecord(od::object& object, R& record) {
    Nesting nesting(this);
    if (nesting.too_deep()) {
      TooDeep();
      return Outcome::kError;
    }
    return ReadEntries(object, record, Schema<R>::kEntries) ? Outcome::kValue : Outcome::kError;
  }

  template <typename E>
  Outcome ReadArray(od::value& value, std::vector<E>& out) {
    od::array array;
    if (auto error = value.get_array().get(array)) return Mismatch(value, error, "expected array");
    Nesting nesting(this);
    if (nesting.too_deep()) {
      TooDeep();
      return Outcome::kError;
    }
    out.clear();
    // Lists in bid requests are short; growing 1, 2, 4 would cost two more
    // allocations and moves for most of them. The first block stays within
    // 1 KiB, which glibc's malloc serves from its per-thread cache: a larger
    // one takes its locked path and sweeps its fast bins on every request
    // (four impressions are 3.7 KiB, and most requests carry one).
    constexpr size_t kFirstBlockBytes = 1024;
    constexpr size_t kFirstCapacity = std::clamp<size_t>(kFirstBlockBytes / sizeof(E), 1, 4);
    if (out.capacity() == 0) out.reserve(kFirstCapacity);
    size_t index = 0;
    for (auto element_result : array) {
      od::value element;
      if (auto error = std::move(element_result).get(element)) {
        Malformed(error);
        return Outcome::kError;
      }
      Outcome outcome = Read(element, out.emplace_back(), Bound::kNone);
      if (outcome != Outcome::kValue) {
        // Inside a list, null is not "absent": the element has the wrong type.
        if (outcome == Outcome::kNull) trail_->Fail(internal::ExpectedType<E>());
        trail_->AtIndex(index);
        return Outcome::kError;
      }
      ++index;
    }
    return Outcome::kValue;
  }

  Outcome ReadScalar(od::value& value, std::string& out, Bound) {
    // Most strings have no escapes: copy them straight from the input. The
    // value must still be consumed: On-Demand, skipping a string it was not
    // asked for, takes a following ':' for the end of a key and would let
    // ["a": 1] through.
    std::string_view token = value.raw_json_token();
    if (!token.empty() && token.front() == '"') {
      const char* start = token.data() + 1;
      const size_t length = FindQuoteOrBackslash(start);
      if (start[length] == '"') {
        od::raw_json_string consumed;
        if (auto error = value.get_raw_json_string().get(consumed)) {
          Malformed(error);
          return Outcome::kError;
        }
        out.clear();
        out.append(start, length);
        return Outcome::kValue;
      }
    }
    std::string_view s;
    if (auto error = value.get_string().get(s)) return Mismatch(value, error, "expected string");
    out.assign(s);
    return Outcome::kValue;
  }

  Outcome ReadScalar(od::value& value, int32_t& out, Bound bound) {
    int64_t n = 0;
    if (auto error = value.get_int64().get(n)) {
      return IntegerMismatch(value, error, "expected integer");
    }
    if (n < std::numeric_limits<int32_t>::min() || n > std::numeric_limits<int32_t>::max()) {
      trail_->Fail("integer out of range");
      return Outcome::kError;
    }
    if (Violates(bound, n)) {
      trail_->Fail(BoundViolation(bound));
      return Outcome::kError;
    }
    out = static_cast<int32_t>(n);
    return Outcome::kValue;
  }

  // 0/1 flags.
  Outcome ReadScalar(od::value& value, bool& out, Bound) {
    int64_t n = 0;
    if (auto error = value.get_int64().get(n)) {
      return IntegerMismatch(value, error, "expected 0 or 1");
    }
    if (n != 0 && n != 1) {
      trail_->Fail("expected 0 or 1");
      return Outcome::kError;
    }
    out = n == 1;
    return Outcome::kValue;
  }

  Outcome ReadScalar(od::value& value, double& out, Bound bound) {
    double d = 0;
    if (auto error = ReadDouble(value, d)) {
      if (error != simdjson::NUMBER_ERROR) return Mismatch(value, error, "expected number");
      trail_->Fail("malformed or out-of-range number");
      return Outcome::kError;
    }
    if (Violates(bound, d)) {
      trail_->Fail(BoundViolation(bound));
      return Outcome::kError;
    }
    out = d;
    return Outcome::kValue;
  }

  // get_int64() refuses fractions, exponents and integers beyond 64 bits
  // alike; tell the last apart for a useful message.
  Outcome IntegerMismatch(od::value& value, simdjson::error_code error, std::string_view expected) {
    if (error == simdjson::INCORRECT_TYPE && IsIntegerLiteral(value.raw_json_token())) {
      trail_->Fail("integer out of range");
      return Outcome::kError;
    }
    if (error == simdjson::NUMBER_ERROR || error == simdjson::NUMBER_OUT_OF_RANGE) {
      trail_->Fail("malformed or out-of-range number");
      return Outcome::kError;
    }
    return Mismatch(value, error, expected);
  }

  // Reads a value nobody uses, only to check that it is well-formed JSON.
  bool SkipChecked(od::value& value) {
    od::json_type type;
    if (auto error = value.type().get(type)) return Malformed(error);
    switch (type) {
      case od::json_type::object: {
        od::object object;
        if (auto error = value.get_object().get(object)) return Malformed(error);
        Nesting nesting(this);
        if (nesting.too_deep()) return TooDeep();
        for (auto field_result : object) {
          od::field field;
          if (auto error = std::move(field_result).get(field)) return Malformed(error);
          JsonKey key;
          if (!ReadKey(field, key)) return false;
          od::value member = field.value();
          if (!SkipChecked(member)) return trail_->Within(key.text);
        }
        return true;
      }
      case od::json_type::array: {
        od::array array;
        if (auto error = value.get_array().get(array)) return Malformed(error);
        Nesting nesting(this);
        if (nesting.too_deep()) return TooDeep();
        size_t index = 0;
        for (auto element_result : array) {
          od::value element;
          if (auto error = std::move(element_result).get(element)) return Malformed(error);
          if (!SkipChecked(element)) return trail_->AtIndex(index);
          ++index;
        }
        return true;
      }
      case od::json_type::string: {
        std::string_view s;
        if (auto error = value.get_string().get(s)) return Malformed(error);
        return true;
      }
      case od::json_type::number: {
        double d;
        if (auto error = ReadDouble(value, d)) return Malformed(error);
        return true;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto error = value.get_bool().get(b)) return Malformed(error);
        return true;
      }
      case od::json_type::null: {
        bool is_null = false;
        if (auto error = value.is_null().get(is_null)) return Malformed(error);
        if (!is_null) return trail_->Fail("malformed JSON (invalid literal)");
        return true;
      }
    }
    return trail_->Fail("malformed JSON (unexpected value)");
  }

  const int max_depth_;
  ErrorTrail* const trail_;
  IgnoredInRequest* const ignored_;
  EmbeddedDocument* const embedded_;
  const char* end_ = nullptr;
  int depth_ = 0;
  bool saw_openrtb_2_6_ = false;
  bool failed_on_json_ = false;
};

}  // namespace

class BidRequestParser::Impl {
 public:
  explicit Impl(Options options) : options_(options) {}

  // `*request` must be default constructed.
  absl::Status Parse(std::string_view json, BidRequest* request) {
    if (json.size() > options_.max_request_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "request of ", json.size(), " bytes exceeds the limit of ", options_.max_request_bytes));
    }
    const char* padded = CopyIntoPaddedBuffer(json);
    od::document doc;
    if (auto error = parser_.iterate(padded, json.size(), capacity_).get(doc)) {
      if (error == simdjson::EMPTY) return absl::InvalidArgumentError("empty request");
      return absl::InvalidArgumentError(
          absl::StrCat("malformed JSON (", simdjson::error_message(error), ")"));
    }
    ErrorTrail trail;
    Reader reader(options_.max_depth, &trail, &request->ignored, &embedded_);
    reader.set_end(padded + json.size());
    if (!reader.ReadRequest(doc, *request)) return trail.ToStatus();
    request->has_openrtb_2_6_fields = reader.saw_openrtb_2_6();
    internal::CountUnusableNativeRequests(*request);
    return ValidateBidRequest(*request);
  }

 private:
  // simdjson reads up to SIMDJSON_PADDING bytes past the end of the input.
  // The buffer only grows, so a parser that has seen its largest request
  // stops allocating here.
  const char* CopyIntoPaddedBuffer(std::string_view json) {
    const size_t needed = json.size() + simdjson::SIMDJSON_PADDING;
    if (needed > capacity_) {
      capacity_ = std::max(needed, capacity_ * 2);
      buffer_ = std::make_unique<char[]>(capacity_);
    }
    if (!json.empty()) std::memcpy(buffer_.get(), json.data(), json.size());
    std::memset(buffer_.get() + json.size(), 0, simdjson::SIMDJSON_PADDING);
    return buffer_.get();
  }

  Options options_;
  od::parser parser_;
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  EmbeddedDocument embedded_;
};

BidRequestParser::BidRequestParser() : BidRequestParser(Options()) {}
BidRequestParser::BidRequestParser(Options options) : impl_(std::make_unique<Impl>(options)) {}
BidRequestParser::~BidRequestParser() = default;
BidRequestParser::BidRequestParser(BidRequestParser&&) noexcept = default;
BidRequestParser& BidRequestParser::operator=(BidRequestParser&&) noexcept = default;

absl::Status BidRequestParser::Parse(std::string_view json, BidRequest* request) {
  *request = BidRequest();
  return impl_->Parse(json, request);
}

absl::StatusOr<BidRequest> BidRequestParser::Parse(std::string_view json) {
  // Parsed in place and returned by name: moving a whole BidRequest costs
  // more than some of the parsing.
  absl::StatusOr<BidRequest> result(absl::in_place);
  if (absl::Status status = impl_->Parse(json, &*result); !status.ok()) result = std::move(status);
  return result;
}

absl::StatusOr<BidRequest> ParseBidRequest(std::string_view json) {
  thread_local BidRequestParser parser;
  return parser.Parse(json);
}

}  // namespace rtb::openrtb

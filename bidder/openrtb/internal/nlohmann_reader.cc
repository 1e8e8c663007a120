#include "bidder/openrtb/internal/nlohmann_reader.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bidder/openrtb/internal/error_trail.h"
#include "bidder/openrtb/internal/schema.h"
#include "nlohmann/json.hpp"

namespace rtb::openrtb::internal {
namespace {

using Json = nlohmann::json;

enum class Outcome { kValue, kNull, kError };

class Reader {
 public:
  Reader(int max_depth, ErrorTrail* trail, IgnoredInRequest* ignored)
      : max_depth_(max_depth), trail_(trail), ignored_(ignored) {}

  bool ReadRequest(const Json& json, BidRequest& request) { return ReadRoot(json, request, 0); }

  // `json` as the root object of record type R, `depth` levels down.
  template <typename R>
  bool ReadRoot(const Json& json, R& record, int depth) {
    if (!json.is_object()) return trail_->Fail("expected a JSON object");
    depth_ = depth;
    return Nested([&] { return ReadEntries(json, record, Schema<R>::kEntries); });
  }

  bool saw_openrtb_2_6() const { return saw_openrtb_2_6_; }
  // The failure was too deep nesting, not a wrong type.
  bool failed_on_json() const { return failed_on_json_; }

 private:
  bool TooDeep() {
    failed_on_json_ = true;
    return trail_->Fail(absl::StrCat("nesting deeper than ", max_depth_, " levels"));
  }

  Outcome Mismatch(const Json& json, std::string_view expected) {
    if (json.is_null()) return Outcome::kNull;
    trail_->Fail(expected);
    return Outcome::kError;
  }

  Outcome Failed(std::string_view reason) {
    trail_->Fail(reason);
    return Outcome::kError;
  }

  template <typename R, typename Entries>
  bool ReadEntries(const Json& object, R& record, const Entries& entries) {
    for (const auto& item : object.items()) {
      // Named variables, not a structured binding: clang 14 (the Fuzz build)
      // cannot capture a binding in the lambda below.
      const std::string& text = item.key();
      const Json& value = item.value();
      const JsonKey key = MakeJsonKey(text);
      bool matched = false;
      bool ok = true;
      std::apply(
          [&](const auto&... entry) {
            ((entry.name.Matches(key) && (ok = ReadEntry(value, record, entry), matched = true)) ||
             ...);
          },
          entries);
      if (!matched) {
        ++ignored_->unknown_fields;
        ok = CheckDepth(value, depth_);
      }
      if (!ok) return trail_->Within(text);
    }
    return true;
  }

  template <typename R, typename M>
  bool ReadEntry(const Json& value, R& record, const Field<R, M>& field) {
    if (field.options.openrtb_2_6) saw_openrtb_2_6_ = true;
    M& member = record.*field.member;
    if constexpr (IsOptionalRecord<M>::value) {
      if (field.options.embedded_json) return ReadEmbedded(value, member);
    }
    if constexpr (std::is_same_v<M, std::string>) {
      if (field.options.number_as_text && value.is_number()) {
        char text[32];
        double d = value.get<double>();
        if (d == 0) d = 0;
        auto [end, ec] = std::to_chars(text, text + sizeof(text), d);
        member.assign(text, end);
        return true;
      }
    }
    if (field.options.fallback) {
      M fallback{};
      Outcome outcome = Read(value, fallback, field.options.bound);
      if (outcome == Outcome::kValue && IsUnset(member)) member = std::move(fallback);
      return outcome != Outcome::kError;
    }
    if (Read(value, member, field.options.bound) == Outcome::kError) return false;
    CheckEnum(field.options, member, *ignored_);
    return true;
  }

  template <typename R, typename Entries>
  bool ReadEntry(const Json& value, R& record, const Inline<Entries>& ext) {
    if (!value.is_object()) {
      ++ignored_->ext_not_object;
      return CheckDepth(value, depth_);
    }
    return Nested([&] { return ReadEntries(value, record, ext.entries); });
  }

  template <typename R, typename Entries>
  bool ReadEntry(const Json& value, R& record, const Envelope<R, Entries>& envelope) {
    if (!value.is_object()) return Mismatch(value, "expected object") == Outcome::kNull;
    record.*envelope.present = true;
    return Nested([&] { return ReadEntries(value, record, envelope.entries); });
  }

  template <typename R>
  bool ReadEntry(const Json& value, R&, const Skipped& skipped) {
    if (skipped.kind == SkipKind::kOpenRtb26) saw_openrtb_2_6_ = true;
    if (skipped.kind == SkipKind::kExt && !value.is_object()) ++ignored_->ext_not_object;
    return CheckDepth(value, depth_);
  }

  // An embedded document (FieldOptions::embedded_json): a string holding
  // JSON, or the object itself. Unusable: the member stays unset; only too
  // deep nesting in the object form fails the request (malformed JSON there
  // never reaches this reader).
  template <typename R>
  bool ReadEmbedded(const Json& value, std::optional<R>& out) {
    out.reset();
    Json parsed;
    const Json* document = &value;
    const bool object_form = value.is_object();
    if (value.is_string()) {
      const std::string& text = value.get_ref<const std::string&>();
      if (text.find('\0') != std::string::npos) return true;
      parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (parsed.is_discarded()) return true;
      document = &parsed;
    } else if (!object_form) {
      return CheckDepth(value, depth_);
    }
    ErrorTrail trail;
    IgnoredInRequest ignored;
    Reader reader(max_depth_, &trail, &ignored);
    R record;
    if (reader.ReadRoot(*document, record, object_form ? depth_ : 0)) {
      out = std::move(record);
      ignored_->ext_not_object += ignored.ext_not_object;
      ignored_->unknown_fields += ignored.unknown_fields;
      ignored_->unknown_values += ignored.unknown_values;
      return true;
    }
    if (!object_form) return true;
    // As the bid path does: past a wrong type, the rest must still nest
    // within the limit.
    if (!reader.failed_on_json()) reader.CheckDepth(value, depth_);
    if (reader.failed_on_json()) {
      failed_on_json_ = true;
      const absl::Status status = trail.ToStatus();
      return trail_->Fail(std::string_view(status.message().data(), status.message().size()));
    }
    return true;
  }

  template <typename F>
  bool Nested(F&& read) {
    ++depth_;
    bool ok = depth_ > max_depth_ ? TooDeep() : read();
    --depth_;
    return ok;
  }

  // Unused values are already known to be well-formed; only their nesting
  // counts, as it does on the bid path.
  bool CheckDepth(const Json& value, int depth) {
    if (!value.is_structured()) return true;
    if (depth + 1 > max_depth_) return TooDeep();
    if (value.is_object()) {
      for (const auto& [key, member] : value.items()) {
        if (!CheckDepth(member, depth + 1)) return trail_->Within(key);
      }
    } else {
      for (size_t i = 0; i < value.size(); ++i) {
        if (!CheckDepth(value[i], depth + 1)) return trail_->AtIndex(i);
      }
    }
    return true;
  }

  template <typename T>
  Outcome Read(const Json& value, T& out, Bound bound) {
    if constexpr (IsOptional<T>::value) {
      using V = typename T::value_type;
      if constexpr (Record<V>) {
        if (!value.is_object()) return Mismatch(value, "expected object");
        return ReadRecord(value, out.emplace());
      } else {
        V v{};
        Outcome outcome = Read(value, v, bound);
        if (outcome == Outcome::kValue) out = std::move(v);
        return outcome;
      }
    } else if constexpr (IsVector<T>::value) {
      if (!value.is_array()) return Mismatch(value, "expected array");
      bool ok = Nested([&] {
        out.clear();
        for (size_t i = 0; i < value.size(); ++i) {
          Outcome element = Read(value[i], out.emplace_back(), Bound::kNone);
          if (element == Outcome::kValue) continue;
          if (element == Outcome::kNull) trail_->Fail(ExpectedType<typename T::value_type>());
          return trail_->AtIndex(i);
        }
        return true;
      });
      return ok ? Outcome::kValue : Outcome::kError;
    } else if constexpr (Record<T>) {
      if (!value.is_object()) return Mismatch(value, "expected object");
      return ReadRecord(value, out);
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!value.is_string()) return Mismatch(value, "expected string");
      out = value.get_ref<const std::string&>();
      return Outcome::kValue;
    } else if constexpr (std::is_same_v<T, double>) {
      if (!value.is_number()) return Mismatch(value, "expected number");
      double d = value.get<double>();
      if (!std::isfinite(d)) return Failed("malformed or out-of-range number");
      if ((bound == Bound::kNonNegative && d < 0) || (bound == Bound::kPositive && d <= 0)) {
        return Failed(bound == Bound::kPositive ? "must be > 0" : "must be >= 0");
      }
      out = d;
      return Outcome::kValue;
    } else {
      static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, bool>);
      constexpr std::string_view kExpected =
          std::is_same_v<T, bool> ? "expected 0 or 1" : "expected integer";
      if (!value.is_number_integer()) return Mismatch(value, kExpected);
      int64_t n;
      if (value.is_number_unsigned()) {
        uint64_t u = value.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
          return Failed(std::is_same_v<T, bool> ? kExpected : "integer out of range");
        }
        n = static_cast<int64_t>(u);
      } else {
        n = value.get<int64_t>();
      }
      if constexpr (std::is_same_v<T, bool>) {
        if (n != 0 && n != 1) return Failed(kExpected);
        out = n == 1;
      } else {
        if (n < std::numeric_limits<int32_t>::min() || n > std::numeric_limits<int32_t>::max()) {
          return Failed("integer out of range");
        }
        if ((bound == Bound::kNonNegative && n < 0) || (bound == Bound::kPositive && n <= 0)) {
          return Failed(bound == Bound::kPositive ? "must be > 0" : "must be >= 0");
        }
        out = static_cast<int32_t>(n);
      }
      return Outcome::kValue;
    }
  }

  template <typename R>
  Outcome ReadRecord(const Json& value, R& record) {
    return Nested([&] { return ReadEntries(value, record, Schema<R>::kEntries); })
               ? Outcome::kValue
               : Outcome::kError;
  }

  const int max_depth_;
  ErrorTrail* const trail_;
  IgnoredInRequest* const ignored_;
  int depth_ = 0;
  bool saw_openrtb_2_6_ = false;
  bool failed_on_json_ = false;
};

}  // namespace

absl::StatusOr<BidRequest> ParseBidRequestWithNlohmann(std::string_view json, int max_depth) {
  // nlohmann takes a NUL after the document for its end; JSON has no place
  // for a raw NUL at all.
  if (json.find('\0') != std::string_view::npos) {
    return absl::InvalidArgumentError("malformed JSON");
  }
  try {
    Json document = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) return absl::InvalidArgumentError("malformed JSON");
    BidRequest request;
    ErrorTrail trail;
    Reader reader(max_depth, &trail, &request.ignored);
    if (!reader.ReadRequest(document, request)) return trail.ToStatus();
    request.has_openrtb_2_6_fields = reader.saw_openrtb_2_6();
    CountUnusableNativeRequests(request);
    if (absl::Status status = ValidateBidRequest(request); !status.ok()) return status;
    return request;
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("JSON reader failed: ", e.what()));
  }
}

}  // namespace rtb::openrtb::internal

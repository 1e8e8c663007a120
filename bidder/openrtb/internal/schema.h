// Which JSON fields of a bid request land in which model members, and with
// which checks. One table per record type; every JSON reader of the model
// (the simdjson bid-path reader, the nlohmann baseline) walks these tables, so
// they cannot disagree about names, types, bounds or 2.5/2.6 locations.
//
// A table is a tuple of entries:
//   Field  - a JSON key read into a member; the member's type decides the JSON
//            type expected (see the readers);
//   Inline - a JSON object (an `ext`) whose keys are further entries of the same
//            record: OpenRTB 2.5 homes of fields that 2.6 moved to the record.
//            An `ext` that is not an object carries nothing we read: it is
//            checked as JSON and skipped, as any unknown value is;
//   Marker - a key we do not read but that only OpenRTB 2.6 defines.
#ifndef RTB_BIDDER_OPENRTB_INTERNAL_SCHEMA_H_
#define RTB_BIDDER_OPENRTB_INTERNAL_SCHEMA_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bidder/openrtb/openrtb.h"

namespace rtb::openrtb::internal {

enum class Bound { kNone, kNonNegative, kPositive };

struct FieldOptions {
  // Only OpenRTB 2.6 defines this key here.
  bool openrtb_2_6 = false;
  // A 2.5 `ext` location: read only when the member is still absent (empty),
  // so the 2.6 location wins whichever order the two come in.
  bool fallback = false;
  Bound bound = Bound::kNone;
  // A string member that may also come as a JSON object (native.request:
  // 2.x says string, some exchanges send the object itself). The object is
  // kept as its JSON text, re-serialised compactly with keys in sorted order,
  // so the text does not depend on the reader.
  bool object_as_text = false;
};

inline constexpr FieldOptions k26{.openrtb_2_6 = true};
inline constexpr FieldOptions kFallback{.fallback = true};
inline constexpr FieldOptions kNonNegative{.bound = Bound::kNonNegative};
inline constexpr FieldOptions kPositive{.bound = Bound::kPositive};
inline constexpr FieldOptions kObjectAsText{.object_as_text = true};

// A JSON object key as read from a request, with its first 8 bytes packed
// into an integer so that matching it against a table is mostly one compare.
struct JsonKey {
  std::string_view text;
  uint64_t prefix = 0;
};

// Packs up to the first 8 bytes of `text`, first byte lowest.
constexpr uint64_t KeyPrefix(std::string_view text) {
  uint64_t prefix = 0;
  for (size_t i = 0; i < text.size() && i < 8; ++i) {
    prefix |= uint64_t{static_cast<unsigned char>(text[i])} << (8 * i);
  }
  return prefix;
}

inline JsonKey MakeJsonKey(std::string_view text) { return {text, KeyPrefix(text)}; }

// The name of a table entry.
struct EntryName {
  constexpr EntryName(std::string_view text) : text(text), prefix(KeyPrefix(text)) {}

  bool Matches(const JsonKey& key) const {
    return key.prefix == prefix && key.text.size() == text.size() &&
           (text.size() <= 8 ||
            std::memcmp(key.text.data() + 8, text.data() + 8, text.size() - 8) == 0);
  }

  std::string_view text;
  uint64_t prefix;
};

template <typename Record, typename Member>
struct Field {
  EntryName name;
  Member Record::*member;
  FieldOptions options;
};

template <typename Record, typename Member>
constexpr Field<Record, Member> F(std::string_view name, Member Record::*member,
                                  FieldOptions options = {}) {
  return {EntryName(name), member, options};
}

template <typename Entries>
struct Inline {
  EntryName name;
  Entries entries;
};

template <typename... Entries>
constexpr Inline<std::tuple<Entries...>> Ext(Entries... entries) {
  return {EntryName("ext"), std::tuple<Entries...>(entries...)};
}

struct Marker {
  EntryName name;
};

template <typename... Names>
constexpr auto Markers26(Names... names) {
  return std::tuple{Marker{EntryName(names)}...};
}

// Schema<R>::kEntries is the table of record type R.
template <typename R>
struct Schema;

template <typename T>
concept Record = requires {
  Schema<T>::kEntries;
};

template <>
struct Schema<Format> {
  static constexpr auto kEntries = std::tuple{
      F("w", &Format::w, kNonNegative),
      F("h", &Format::h, kNonNegative),
  };
};

template <>
struct Schema<Banner> {
  static constexpr auto kEntries = std::tuple{
      F("w", &Banner::w, kNonNegative),
      F("h", &Banner::h, kNonNegative),
      F("format", &Banner::format),
  };
};

template <>
struct Schema<Video> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("mimes", &Video::mimes),
          F("w", &Video::w, kNonNegative),
          F("h", &Video::h, kNonNegative),
          F("minduration", &Video::minduration, kNonNegative),
          F("maxduration", &Video::maxduration, kNonNegative),
          F("protocols", &Video::protocols),
          F("placement", &Video::placement),
          F("plcmt", &Video::plcmt, k26),
      },
      Markers26("podid", "podseq", "rqddurs", "slotinpod", "mincpmpersec", "maxseq", "poddur",
                "poddedupe"));
};

template <>
struct Schema<Audio> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("mimes", &Audio::mimes),
          F("minduration", &Audio::minduration, kNonNegative),
          F("maxduration", &Audio::maxduration, kNonNegative),
      },
      Markers26("podid", "podseq", "rqddurs", "slotinpod", "mincpmpersec", "maxseq", "poddur",
                "poddedupe"));
};

template <>
struct Schema<Native> {
  static constexpr auto kEntries = std::tuple{
      F("request", &Native::request, kObjectAsText),
      F("ver", &Native::ver),
  };
};

template <>
struct Schema<Deal> {
  static constexpr auto kEntries = std::tuple{
      F("id", &Deal::id),
      F("bidfloor", &Deal::bidfloor, kNonNegative),
      F("bidfloorcur", &Deal::bidfloorcur),
      F("at", &Deal::at, kPositive),
      F("wseat", &Deal::wseat),
  };
};

template <>
struct Schema<Pmp> {
  static constexpr auto kEntries = std::tuple{
      F("private_auction", &Pmp::private_auction),
      F("deals", &Pmp::deals),
  };
};

template <>
struct Schema<Imp> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Imp::id),
          F("banner", &Imp::banner),
          F("video", &Imp::video),
          F("audio", &Imp::audio),
          F("native", &Imp::native),
          F("pmp", &Imp::pmp),
          F("tagid", &Imp::tagid),
          F("bidfloor", &Imp::bidfloor, kNonNegative),
          F("bidfloorcur", &Imp::bidfloorcur),
          F("secure", &Imp::secure),
          F("instl", &Imp::instl),
      },
      Markers26("rwdd", "ssai", "qty", "dt", "refresh"));
};

template <>
struct Schema<Publisher> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Publisher::id),
          F("name", &Publisher::name),
          F("cat", &Publisher::cat),
          F("domain", &Publisher::domain),
      },
      Markers26("cattax"));
};

template <>
struct Schema<Site> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Site::id),
          F("name", &Site::name),
          F("domain", &Site::domain),
          F("page", &Site::page),
          F("cat", &Site::cat),
          F("sectioncat", &Site::sectioncat),
          F("pagecat", &Site::pagecat),
          F("publisher", &Site::publisher),
      },
      Markers26("cattax", "inventorypartnerdomain", "kwarray"));
};

template <>
struct Schema<App> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &App::id),
          F("name", &App::name),
          F("bundle", &App::bundle),
          F("domain", &App::domain),
          F("storeurl", &App::storeurl),
          F("cat", &App::cat),
          F("sectioncat", &App::sectioncat),
          F("pagecat", &App::pagecat),
          F("publisher", &App::publisher),
      },
      Markers26("cattax", "inventorypartnerdomain", "kwarray"));
};

template <>
struct Schema<Dooh> {
  static constexpr auto kEntries = std::tuple{
      F("id", &Dooh::id),
      F("name", &Dooh::name),
      F("venuetype", &Dooh::venuetype),
      F("venuetypetax", &Dooh::venuetypetax),
      F("domain", &Dooh::domain),
      F("publisher", &Dooh::publisher),
  };
};

template <>
struct Schema<Geo> {
  static constexpr auto kEntries = std::tuple{
      F("lat", &Geo::lat),         F("lon", &Geo::lon),       F("type", &Geo::type),
      F("country", &Geo::country), F("region", &Geo::region), F("city", &Geo::city),
  };
};

template <>
struct Schema<Device> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("ua", &Device::ua),
          F("ip", &Device::ip),
          F("ipv6", &Device::ipv6),
          F("ifa", &Device::ifa),
          F("didsha1", &Device::didsha1),
          F("didmd5", &Device::didmd5),
          F("dpidsha1", &Device::dpidsha1),
          F("dpidmd5", &Device::dpidmd5),
          F("geo", &Device::geo),
          F("devicetype", &Device::devicetype),
          F("make", &Device::make),
          F("model", &Device::model),
          F("os", &Device::os),
          F("osv", &Device::osv),
          F("lmt", &Device::lmt),
          F("dnt", &Device::dnt),
          F("js", &Device::js),
          F("language", &Device::language),
          F("connectiontype", &Device::connectiontype),
      },
      Markers26("sua", "langb"));
};

template <>
struct Schema<Segment> {
  static constexpr auto kEntries = std::tuple{
      F("id", &Segment::id),
  };
};

template <>
struct Schema<Data> {
  static constexpr auto kEntries = std::tuple{
      F("id", &Data::id),
      F("name", &Data::name),
      F("segment", &Data::segment),
  };
};

template <>
struct Schema<Uid> {
  static constexpr auto kEntries = std::tuple{
      F("id", &Uid::id),
      F("atype", &Uid::atype),
  };
};

template <>
struct Schema<Eid> {
  static constexpr auto kEntries = std::tuple{
      F("source", &Eid::source),
      F("uids", &Eid::uids),
  };
};

template <>
struct Schema<User> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &User::id),
          F("buyeruid", &User::buyeruid),
          F("yob", &User::yob),
          F("gender", &User::gender),
          F("consent", &User::consent, k26),
          F("data", &User::data),
          F("eids", &User::eids, k26),
          Ext(F("consent", &User::consent, kFallback), F("eids", &User::eids, kFallback)),
      },
      Markers26("kwarray"));
};

template <>
struct Schema<DsaTransparency> {
  static constexpr auto kEntries = std::tuple{
      F("domain", &DsaTransparency::domain),
      F("dsaparams", &DsaTransparency::dsaparams),
  };
};

template <>
struct Schema<Dsa> {
  static constexpr auto kEntries = std::tuple{
      F("dsarequired", &Dsa::dsarequired),
      F("pubrender", &Dsa::pubrender),
      F("datatopub", &Dsa::datatopub),
      F("transparency", &Dsa::transparency),
  };
};

template <>
struct Schema<Regs> {
  static constexpr auto kEntries = std::tuple{
      F("coppa", &Regs::coppa),
      F("gdpr", &Regs::gdpr, k26),
      F("us_privacy", &Regs::us_privacy, k26),
      F("gpp", &Regs::gpp, k26),
      F("gpp_sid", &Regs::gpp_sid, k26),
      Ext(F("gdpr", &Regs::gdpr, kFallback), F("us_privacy", &Regs::us_privacy, kFallback),
          F("gpp", &Regs::gpp, kFallback), F("gpp_sid", &Regs::gpp_sid, kFallback),
          F("dsa", &Regs::dsa)),
  };
};

template <>
struct Schema<SupplyChainNode> {
  static constexpr auto kEntries = std::tuple{
      F("asi", &SupplyChainNode::asi),
      F("sid", &SupplyChainNode::sid),
      F("hp", &SupplyChainNode::hp),
      F("rid", &SupplyChainNode::rid),
  };
};

template <>
struct Schema<SupplyChain> {
  static constexpr auto kEntries = std::tuple{
      F("complete", &SupplyChain::complete),
      F("ver", &SupplyChain::ver),
      F("nodes", &SupplyChain::nodes),
  };
};

template <>
struct Schema<Source> {
  static constexpr auto kEntries = std::tuple{
      F("fd", &Source::fd),
      F("tid", &Source::tid),
      F("schain", &Source::schain, k26),
      Ext(F("schain", &Source::schain, kFallback)),
  };
};

template <>
struct Schema<BidRequest> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &BidRequest::id),
          F("imp", &BidRequest::imp),
          F("site", &BidRequest::site),
          F("app", &BidRequest::app),
          F("dooh", &BidRequest::dooh, k26),
          F("device", &BidRequest::device),
          F("user", &BidRequest::user),
          F("regs", &BidRequest::regs),
          F("source", &BidRequest::source),
          F("at", &BidRequest::at, kPositive),
          F("tmax", &BidRequest::tmax, kPositive),
          F("test", &BidRequest::test),
          F("allimps", &BidRequest::allimps),
          F("cur", &BidRequest::cur),
          F("bcat", &BidRequest::bcat),
          F("badv", &BidRequest::badv),
          F("bapp", &BidRequest::bapp),
          F("wseat", &BidRequest::wseat),
      },
      Markers26("cattax", "acat", "wlangb"));
};

// Member kinds the readers distinguish.
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// Whether a member still holds nothing read from the request, for kFallback.
// Plain numbers and flags start at a default, not at "absent", so they are
// never fallback targets.
template <typename T>
bool IsUnset(const T& member) {
  if constexpr (IsOptional<T>::value) {
    return !member.has_value();
  } else if constexpr (std::is_arithmetic_v<T>) {
    return false;
  } else {
    return member.empty();
  }
}

// "expected integer" etc.: the JSON type a member of type T is read from.
template <typename T>
constexpr std::string_view ExpectedType() {
  if constexpr (IsOptional<T>::value) {
    return ExpectedType<typename T::value_type>();
  } else if constexpr (std::is_same_v<T, bool>) {
    return "expected 0 or 1";
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return "expected integer";
  } else if constexpr (std::is_same_v<T, double>) {
    return "expected number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "expected string";
  } else if constexpr (IsVector<T>::value) {
    return "expected array";
  } else {
    static_assert(Record<T>);
    return "expected object";
  }
}

}  // namespace rtb::openrtb::internal

#endif  // RTB_BIDDER_OPENRTB_INTERNAL_SCHEMA_H_

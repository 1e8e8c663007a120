// Which JSON fields of a bid request land in which model members, and with
// which checks. One table per record type; every JSON reader of the model
// (the simdjson bid-path reader, the nlohmann baseline) walks these tables, so
// they cannot disagree about names, types, bounds or 2.5/2.6 locations.
//
// A table is a tuple of entries:
//   Field    - a JSON key read into a member; the member's type decides the
//              JSON type expected (see the readers);
//   Inline   - a JSON object (an `ext`) whose keys are further entries of the
//              same record: OpenRTB 2.5 homes of fields that 2.6 moved to the
//              record. An `ext` that is not an object carries nothing we read:
//              it is checked as JSON, skipped and counted
//              (IgnoredInRequest::ext_not_object);
//   Envelope - a JSON object whose keys are further entries of the same
//              record, and whose presence sets a flag: Native 1.0/1.1's
//              {"native": {...}} around the native request;
//   Skipped  - a key the specification defines but we do not read: known
//              (2.5), only OpenRTB 2.6 defines it (marks the request as 2.6),
//              or an `ext` we do not read (counted when not an object).
// A key no entry names is skipped too, and counted as unknown
// (IgnoredInRequest::unknown_fields).
//
// Enumerations (FieldOptions::enum_min/enum_max): a value outside the list we
// know is counted (IgnoredInRequest::unknown_values) and, for a single value,
// dropped, so the rules treat it as absent. Lists keep their values: an
// unknown value in an allow list (protocols, api) still narrows the list to
// what we cannot serve, and one in a block list blocks nothing of ours.
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
  // An integer (or integer list) member holding an enumeration: values in
  // [enum_min, enum_max] are known; enum_max 0 means no check.
  int32_t enum_min = 0;
  int32_t enum_max = 0;
  // A record member (native.request) that comes as a JSON string holding the
  // record's JSON, as OpenRTB specifies, or as the object itself, as some
  // exchanges send it. What is inside the string is its own document: when
  // it is not JSON or has a wrong type, the member is left unset and counted
  // (IgnoredInRequest::unusable_native_requests), the request stays valid.
  // The object form is part of the request: malformed JSON or too deep
  // nesting in it rejects the request; wrong types inside only unset the
  // member.
  bool embedded_json = false;
  // A string member that may also come as a JSON number (native `ver`: "1.2"
  // or 1.2); the number is kept as its shortest round-trip decimal text.
  bool number_as_text = false;
};

inline constexpr FieldOptions k26{.openrtb_2_6 = true};
inline constexpr FieldOptions kFallback{.fallback = true};
inline constexpr FieldOptions kNonNegative{.bound = Bound::kNonNegative};
inline constexpr FieldOptions kPositive{.bound = Bound::kPositive};
inline constexpr FieldOptions kEmbeddedJson{.embedded_json = true};
inline constexpr FieldOptions kNumberAsText{.number_as_text = true};

constexpr FieldOptions Enum(int32_t min, int32_t max, bool openrtb_2_6 = false) {
  return FieldOptions{.openrtb_2_6 = openrtb_2_6, .enum_min = min, .enum_max = max};
}

// AdCOM 1.0 lists (and Native 1.2 lists) as enumeration ranges.
inline constexpr FieldOptions kCreativeAttributes = Enum(1, 18);  // "Creative Attributes"
inline constexpr FieldOptions kApiFrameworks = Enum(1, 9);        // "API Frameworks"
inline constexpr FieldOptions kMediaProtocols = Enum(1, 16);  // "Creative Subtypes - Audio/Video"

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

// A JSON object whose keys are entries of the enclosing record, and whose
// presence sets `present` (a bool member of the record).
template <typename Record, typename Entries>
struct Envelope {
  EntryName name;
  Entries entries;
  bool Record::*present;
};

template <typename Record, typename Entries>
constexpr Envelope<Record, Entries> Wrapper(std::string_view name, bool Record::*present,
                                            Entries entries) {
  return {EntryName(name), entries, present};
}

enum class SkipKind {
  kKnown,      // defined since 2.5 (or by Native 1.x); not read
  kOpenRtb26,  // only OpenRTB 2.6 defines it here: the request is a 2.6 one
  kExt,        // an `ext` we do not read; counted when it is not an object
};

struct Skipped {
  EntryName name;
  SkipKind kind;
};

template <typename... Names>
constexpr auto Known(Names... names) {
  return std::tuple{Skipped{EntryName(names), SkipKind::kKnown}...};
}

template <typename... Names>
constexpr auto Markers26(Names... names) {
  return std::tuple{Skipped{EntryName(names), SkipKind::kOpenRtb26}...};
}

constexpr auto UnreadExt() { return std::tuple{Skipped{EntryName("ext"), SkipKind::kExt}}; }

// Schema<R>::kEntries is the table of record type R.
template <typename R>
struct Schema;

template <typename T>
concept Record = requires {
  Schema<T>::kEntries;
};

template <>
struct Schema<Format> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("w", &Format::w, kNonNegative),
          F("h", &Format::h, kNonNegative),
      },
      Known("wratio", "hratio", "wmin"), UnreadExt());
};

template <>
struct Schema<Banner> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("w", &Banner::w, kNonNegative),
          F("h", &Banner::h, kNonNegative),
          F("format", &Banner::format),
          F("battr", &Banner::battr, kCreativeAttributes),
          F("api", &Banner::api, kApiFrameworks),
      },
      Known("btype", "pos", "mimes", "topframe", "expdir", "id", "vcm", "wmax", "hmax", "wmin",
            "hmin"),
      UnreadExt());
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
          F("protocols", &Video::protocols, kMediaProtocols),
          F("placement", &Video::placement, Enum(1, 5)),
          F("plcmt", &Video::plcmt, Enum(1, 4, /*openrtb_2_6=*/true)),
          F("linearity", &Video::linearity, Enum(1, 2)),
          F("startdelay", &Video::startdelay),
          F("skip", &Video::skip),
          F("skipmin", &Video::skipmin),
          F("skipafter", &Video::skipafter),
          F("battr", &Video::battr, kCreativeAttributes),
          F("api", &Video::api, kApiFrameworks),
          F("minbitrate", &Video::minbitrate),
          F("maxbitrate", &Video::maxbitrate),
          F("rqddurs", &Video::rqddurs, k26),
          F("podid", &Video::podid, k26),
          F("maxseq", &Video::maxseq, k26),
          F("poddur", &Video::poddur, k26),
          F("protocol", &Video::protocol, kMediaProtocols),
      },
      Markers26("podseq", "slotinpod", "mincpmpersec", "poddedupe"),
      Known("sequence", "maxextended", "boxingallowed", "playbackmethod", "playbackend", "delivery",
            "pos", "companionad", "companiontype", "durfloors"),
      UnreadExt());
};

template <>
struct Schema<Audio> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("mimes", &Audio::mimes),
          F("minduration", &Audio::minduration, kNonNegative),
          F("maxduration", &Audio::maxduration, kNonNegative),
          F("protocols", &Audio::protocols, kMediaProtocols),
          F("startdelay", &Audio::startdelay),
          F("battr", &Audio::battr, kCreativeAttributes),
          F("api", &Audio::api, kApiFrameworks),
          F("minbitrate", &Audio::minbitrate),
          F("maxbitrate", &Audio::maxbitrate),
          F("rqddurs", &Audio::rqddurs, k26),
          F("podid", &Audio::podid, k26),
          F("maxseq", &Audio::maxseq, k26),
          F("poddur", &Audio::poddur, k26),
      },
      Markers26("podseq", "slotinpod", "mincpmpersec", "poddedupe"),
      Known("sequence", "maxextended", "delivery", "companionad", "companiontype", "feed",
            "stitched", "nvol", "durfloors"),
      UnreadExt());
};

template <>
struct Schema<NativeTitleRequest> {
  static constexpr auto kEntries =
      std::tuple_cat(std::tuple{F("len", &NativeTitleRequest::len)}, UnreadExt());
};

template <>
struct Schema<NativeImageRequest> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("type", &NativeImageRequest::type, Enum(1, 3)),
          F("w", &NativeImageRequest::w),
          F("h", &NativeImageRequest::h),
          F("wmin", &NativeImageRequest::wmin),
          F("hmin", &NativeImageRequest::hmin),
          F("mimes", &NativeImageRequest::mimes),
      },
      UnreadExt());
};

template <>
struct Schema<NativeDataRequest> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("type", &NativeDataRequest::type, Enum(1, 12)),
          F("len", &NativeDataRequest::len),
      },
      UnreadExt());
};

template <>
struct Schema<NativeVideoRequest> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("mimes", &NativeVideoRequest::mimes),
          F("minduration", &NativeVideoRequest::minduration),
          F("maxduration", &NativeVideoRequest::maxduration),
          F("protocols", &NativeVideoRequest::protocols, kMediaProtocols),
      },
      UnreadExt());
};

template <>
struct Schema<NativeAssetRequest> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &NativeAssetRequest::id),
          F("required", &NativeAssetRequest::required),
          F("title", &NativeAssetRequest::title),
          F("img", &NativeAssetRequest::img),
          F("video", &NativeAssetRequest::video),
          F("data", &NativeAssetRequest::data),
      },
      UnreadExt());
};

template <>
struct Schema<NativeEventTrackerRequest> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("event", &NativeEventTrackerRequest::event, Enum(1, 4)),
          F("methods", &NativeEventTrackerRequest::methods, Enum(1, 2)),
      },
      UnreadExt());
};

// Native 1.2's request object; 1.0 and 1.1 put the same members (and the
// since retired `layout` and `adunit`) in {"native": {...}}.
struct NativeRequestTable {
  static constexpr auto kBody = std::tuple_cat(
      std::tuple{
          F("ver", &NativeRequest::ver, kNumberAsText),
          F("context", &NativeRequest::context, Enum(1, 3)),
          F("plcmttype", &NativeRequest::plcmttype, Enum(1, 4)),
          F("assets", &NativeRequest::assets),
          F("eventtrackers", &NativeRequest::eventtrackers),
      },
      Known("contextsubtype", "plcmtcnt", "seq", "aurlsupport", "durlsupport", "privacy", "layout",
            "adunit"),
      UnreadExt());
};

template <>
struct Schema<NativeRequest> {
  static constexpr auto kEntries = std::tuple_cat(
      NativeRequestTable::kBody,
      std::tuple{Wrapper("native", &NativeRequest::wrapped, NativeRequestTable::kBody)});
};

template <>
struct Schema<Native> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("request", &Native::request, kEmbeddedJson),
          F("ver", &Native::ver, kNumberAsText),
          F("battr", &Native::battr, kCreativeAttributes),
          F("api", &Native::api, kApiFrameworks),
      },
      UnreadExt());
};

template <>
struct Schema<Deal> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Deal::id),
          F("bidfloor", &Deal::bidfloor, kNonNegative),
          F("bidfloorcur", &Deal::bidfloorcur),
          F("at", &Deal::at, kPositive),
          F("wseat", &Deal::wseat),
      },
      Known("wadomain", "guar", "mincpmpersec", "durfloors"), UnreadExt());
};

template <>
struct Schema<Pmp> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("private_auction", &Pmp::private_auction),
          F("deals", &Pmp::deals),
      },
      UnreadExt());
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
          F("rwdd", &Imp::rwdd, k26),
      },
      Markers26("ssai", "qty", "dt", "refresh"),
      Known("metric", "displaymanager", "displaymanagerver", "clickbrowser", "iframebuster", "exp"),
      UnreadExt());
};

template <>
struct Schema<Publisher> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Publisher::id),
          F("name", &Publisher::name),
          F("cattax", &Publisher::cattax, k26),
          F("cat", &Publisher::cat),
          F("domain", &Publisher::domain),
      },
      UnreadExt());
};

template <>
struct Schema<Site> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Site::id),
          F("name", &Site::name),
          F("domain", &Site::domain),
          F("page", &Site::page),
          F("cattax", &Site::cattax, k26),
          F("cat", &Site::cat),
          F("sectioncat", &Site::sectioncat),
          F("pagecat", &Site::pagecat),
          F("publisher", &Site::publisher),
      },
      Markers26("inventorypartnerdomain", "kwarray"),
      Known("ref", "search", "mobile", "privacypolicy", "content", "keywords"), UnreadExt());
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
          F("cattax", &App::cattax, k26),
          F("cat", &App::cat),
          F("sectioncat", &App::sectioncat),
          F("pagecat", &App::pagecat),
          F("publisher", &App::publisher),
      },
      Markers26("inventorypartnerdomain", "kwarray"),
      Known("ver", "privacypolicy", "paid", "content", "keywords"), UnreadExt());
};

template <>
struct Schema<Dooh> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Dooh::id),
          F("name", &Dooh::name),
          F("venuetype", &Dooh::venuetype),
          F("venuetypetax", &Dooh::venuetypetax),
          F("domain", &Dooh::domain),
          F("publisher", &Dooh::publisher),
      },
      Known("keywords", "content"), UnreadExt());
};

template <>
struct Schema<Geo> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("lat", &Geo::lat),
          F("lon", &Geo::lon),
          F("type", &Geo::type, Enum(1, 3)),
          F("country", &Geo::country),
          F("region", &Geo::region),
          F("city", &Geo::city),
      },
      Known("accuracy", "lastfix", "ipservice", "regionfips104", "metro", "zip", "utcoffset"),
      UnreadExt());
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
          F("devicetype", &Device::devicetype, Enum(1, 8)),
          F("make", &Device::make),
          F("model", &Device::model),
          F("os", &Device::os),
          F("osv", &Device::osv),
          F("lmt", &Device::lmt),
          F("dnt", &Device::dnt),
          F("js", &Device::js),
          F("language", &Device::language),
          F("langb", &Device::langb, k26),
          F("connectiontype", &Device::connectiontype, Enum(0, 7)),
      },
      Markers26("sua"),
      Known("hwv", "h", "w", "ppi", "pxratio", "geofetch", "flashver", "carrier", "mccmnc",
            "macsha1", "macmd5"),
      UnreadExt());
};

template <>
struct Schema<Segment> {
  static constexpr auto kEntries =
      std::tuple_cat(std::tuple{F("id", &Segment::id)}, Known("name", "value"), UnreadExt());
};

template <>
struct Schema<Data> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Data::id),
          F("name", &Data::name),
          F("segment", &Data::segment),
      },
      UnreadExt());
};

template <>
struct Schema<Uid> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("id", &Uid::id),
          F("atype", &Uid::atype),
      },
      UnreadExt());
};

template <>
struct Schema<Eid> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("source", &Eid::source),
          F("uids", &Eid::uids),
      },
      Known("inserter", "matcher", "mm"), UnreadExt());
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
      Markers26("kwarray"), Known("keywords", "customdata", "geo"));
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
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("asi", &SupplyChainNode::asi),
          F("sid", &SupplyChainNode::sid),
          F("hp", &SupplyChainNode::hp),
          F("rid", &SupplyChainNode::rid),
      },
      Known("name", "domain"), UnreadExt());
};

template <>
struct Schema<SupplyChain> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("complete", &SupplyChain::complete),
          F("ver", &SupplyChain::ver),
          F("nodes", &SupplyChain::nodes),
      },
      UnreadExt());
};

template <>
struct Schema<Source> {
  static constexpr auto kEntries = std::tuple_cat(
      std::tuple{
          F("fd", &Source::fd),
          F("tid", &Source::tid),
          F("schain", &Source::schain, k26),
          Ext(F("schain", &Source::schain, kFallback)),
      },
      Known("pchain"));
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
          F("cattax", &BidRequest::cattax, k26),
          F("bcat", &BidRequest::bcat),
          F("acat", &BidRequest::acat, k26),
          F("badv", &BidRequest::badv),
          F("bapp", &BidRequest::bapp),
          F("wseat", &BidRequest::wseat),
          F("bseat", &BidRequest::bseat, k26),
          F("wlang", &BidRequest::wlang),
          F("wlangb", &BidRequest::wlangb, k26),
      },
      UnreadExt());
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

// std::optional of a record type: what an embedded document is read into.
template <typename T>
struct IsOptionalRecord : std::false_type {};
template <Record T>
struct IsOptionalRecord<std::optional<T>> : std::true_type {};

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

// Applies an enumeration's range to a member just read (see FieldOptions):
// a single unknown value is dropped, a list keeps its values; both count.
inline void CheckEnum(const FieldOptions& options, std::optional<int32_t>& member,
                      IgnoredInRequest& ignored) {
  if (options.enum_max == 0 || !member.has_value()) return;
  if (*member < options.enum_min || *member > options.enum_max) {
    member.reset();
    ++ignored.unknown_values;
  }
}

inline void CheckEnum(const FieldOptions& options, std::vector<int32_t>& member,
                      IgnoredInRequest& ignored) {
  if (options.enum_max == 0) return;
  for (int32_t value : member) {
    if (value < options.enum_min || value > options.enum_max) ++ignored.unknown_values;
  }
}

template <typename M>
void CheckEnum(const FieldOptions&, M&, IgnoredInRequest&) {}

// Counts the native impressions whose native request could not be used
// (IgnoredInRequest::unusable_native_requests); both readers call it last.
inline void CountUnusableNativeRequests(BidRequest& request) {
  for (const Imp& imp : request.imp) {
    if (imp.native.has_value() && !imp.native->request.has_value()) {
      ++request.ignored.unusable_native_requests;
    }
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

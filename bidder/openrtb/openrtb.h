// OpenRTB 2.5 / 2.6 for the bid path: the bid request model the auction reads,
// a non-throwing parser for it, and the bid response writer.
//
// Only what the bidder decides on is kept; every other field (and any `ext`
// we do not consult) is skipped, though still checked to be well-formed JSON.
// A field we keep must have its OpenRTB type: a wrong type is an
// InvalidArgument naming the path ("imp[0].banner.w: expected integer").
// JSON `null` for a field we keep means the field is absent. A key given twice
// in one object must be valid both times; which one the model keeps is not
// specified (JSON leaves duplicate keys open).
//
// Liberal where OpenRTB asks bidders to be: an `ext` that is not an object,
// a key neither OpenRTB nor Native defines, and an enumeration value outside
// the lists we know are skipped and counted in BidRequest::ignored, never an
// error. The native request (a JSON string, or the object some exchanges send
// instead) is read into NativeRequest; one that is not JSON or has wrong
// types inside makes that impression unusable for native, not the request
// invalid.
//
// Conventions of the model:
//   - strings and lists: empty means absent;
//   - numbers and 0/1 flags: std::optional, unless OpenRTB defines a default,
//     in which case the member starts at that default (bidfloor 0,
//     bidfloorcur "USD", at 2, test/instl/allimps/private_auction false);
//   - an enumeration value we do not know: dropped when it stands alone
//     (video.plcmt 9 reads as absent), kept in a list (protocols [3, 99]);
//   - OpenRTB 2.5 locations under `ext` (regs.ext.gdpr, regs.ext.us_privacy,
//     regs.ext.gpp(_sid), user.ext.consent, user.ext.eids, source.ext.schain)
//     fill the 2.6 member when the 2.6 location is absent; the 2.6 location
//     wins when both are sent. regs.ext.dsa has no 2.6 location and is read
//     from `ext` only. An `ext` that is not a JSON object (legal:
//     OpenRTB leaves ext to the exchange) is skipped like any unknown value;
//   - strings are owned std::string. Views into the parser's buffer were
//     measured to save about a tenth of a parse's instructions, but would tie
//     each request to its connection's parser across the asynchronous profile
//     lookup and the auction.
//
// Error messages name paths and types, never the values of the request, so
// they can be logged and returned to the exchange without leaking device ids.
//
// Thread-safety: the model types are plain values. A BidRequestParser is not
// thread-safe: keep one per thread or per connection and reuse it, which keeps
// its padded input buffer and parse buffers warm. ParseBidRequest() uses one
// parser per thread.
#ifndef RTB_BIDDER_OPENRTB_OPENRTB_H_
#define RTB_BIDDER_OPENRTB_OPENRTB_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rtb::openrtb {

// ---------------------------------------------------------------------------
// Bid request.

struct Format {
  Format();

  std::optional<int32_t> w;
  std::optional<int32_t> h;

  bool operator==(const Format&) const = default;
};

struct Banner {
  Banner();

  std::optional<int32_t> w;
  std::optional<int32_t> h;
  // Allowed sizes; when present, w/h (if any) are the preferred one.
  std::vector<Format> format;
  std::vector<int32_t> battr;  // blocked creative attributes, AdCOM list 5.3
  std::vector<int32_t> api;    // supported API frameworks, AdCOM list 5.6

  bool operator==(const Banner&) const = default;
};

struct Video {
  Video();

  std::vector<std::string> mimes;
  std::optional<int32_t> w;
  std::optional<int32_t> h;
  std::optional<int32_t> minduration;  // seconds
  std::optional<int32_t> maxduration;  // seconds
  std::vector<int32_t> rqddurs;        // 2.6: the only durations accepted, seconds
  // Creative subtypes (VAST/DAAST versions), AdCOM list "Creative Subtypes -
  // Audio/Video"; `protocol` is 2.5's deprecated single value.
  std::vector<int32_t> protocols;
  std::optional<int32_t> protocol;
  std::optional<int32_t> placement;  // OpenRTB 2.5 list 5.9, deprecated in 2.6
  std::optional<int32_t> plcmt;      // OpenRTB 2.6 list "Plcmt Subtypes - Video"
  std::optional<int32_t> linearity;  // 1 linear, 2 non-linear
  // > 0 mid-roll after that many seconds, 0 pre-roll, -1 generic mid-roll,
  // -2 generic post-roll.
  std::optional<int32_t> startdelay;
  std::optional<bool> skip;  // the player allows skipping
  int32_t skipmin = 0;       // seconds: only longer ads may be skippable
  int32_t skipafter = 0;     // seconds played before skipping is enabled
  std::vector<int32_t> battr;
  std::vector<int32_t> api;
  std::optional<int32_t> minbitrate;  // Kbps
  std::optional<int32_t> maxbitrate;  // Kbps
  // Pods (2.6): the pod this impression belongs to, and for a dynamic pod
  // the most ads and the total seconds it takes.
  std::string podid;
  std::optional<int32_t> maxseq;
  std::optional<int32_t> poddur;

  bool operator==(const Video&) const = default;
};

struct Audio {
  Audio();

  std::vector<std::string> mimes;
  std::optional<int32_t> minduration;  // seconds
  std::optional<int32_t> maxduration;  // seconds
  std::vector<int32_t> rqddurs;        // 2.6
  std::vector<int32_t> protocols;
  std::optional<int32_t> startdelay;
  std::vector<int32_t> battr;
  std::vector<int32_t> api;
  std::optional<int32_t> minbitrate;  // Kbps
  std::optional<int32_t> maxbitrate;  // Kbps
  std::string podid;
  std::optional<int32_t> maxseq;
  std::optional<int32_t> poddur;

  bool operator==(const Audio&) const = default;
};

// The Native Ad request (Native Ads specification 1.2; 1.0 and 1.1 where
// they differ), as the bidder matches a native creative against it.
struct NativeTitleRequest {
  NativeTitleRequest();

  std::optional<int32_t> len;  // maximum characters

  bool operator==(const NativeTitleRequest&) const = default;
};

struct NativeImageRequest {
  NativeImageRequest();

  std::optional<int32_t> type;  // 1 icon, 3 main image (Native list "Image Asset Types")
  std::optional<int32_t> w;     // exact size, or with wmin/hmin the preferred one
  std::optional<int32_t> h;
  std::optional<int32_t> wmin;
  std::optional<int32_t> hmin;
  std::vector<std::string> mimes;

  bool operator==(const NativeImageRequest&) const = default;
};

struct NativeDataRequest {
  NativeDataRequest();

  std::optional<int32_t> type;  // Native list "Data Asset Types": 1 sponsored, 2 desc, ...
  std::optional<int32_t> len;   // maximum characters

  bool operator==(const NativeDataRequest&) const = default;
};

struct NativeVideoRequest {
  NativeVideoRequest();

  std::vector<std::string> mimes;
  std::optional<int32_t> minduration;
  std::optional<int32_t> maxduration;
  std::vector<int32_t> protocols;

  bool operator==(const NativeVideoRequest&) const = default;
};

struct NativeAssetRequest {
  NativeAssetRequest();

  std::optional<int32_t> id;  // echoed in the response's asset
  bool required = false;
  // Exactly one of these describes the asset; none or several: unusable.
  std::optional<NativeTitleRequest> title;
  std::optional<NativeImageRequest> img;
  std::optional<NativeVideoRequest> video;
  std::optional<NativeDataRequest> data;

  bool operator==(const NativeAssetRequest&) const = default;
};

struct NativeEventTrackerRequest {
  NativeEventTrackerRequest();

  std::optional<int32_t> event;  // 1 impression, 2 viewable-mrc50, ...
  std::vector<int32_t> methods;  // 1 image pixel, 2 JavaScript

  bool operator==(const NativeEventTrackerRequest&) const = default;
};

struct NativeRequest {
  NativeRequest();

  std::string ver;  // as sent (a number is kept as its shortest text)
  std::optional<int32_t> context;
  std::optional<int32_t> plcmttype;
  std::vector<NativeAssetRequest> assets;
  // 1.2: the event trackers the placement supports; empty: the response
  // carries its impression tracker in 1.1's `imptrackers`.
  std::vector<NativeEventTrackerRequest> eventtrackers;
  // 1.0 and 1.1 wrap the request (and expect the response) in {"native": ...}.
  bool wrapped = false;

  bool operator==(const NativeRequest&) const = default;
};

struct Native {
  Native();

  // The Native Ad request, from the JSON string OpenRTB specifies or from the
  // object some exchanges send instead. Unset when absent or unusable (not
  // JSON, wrong types inside): the impression is then not served natively
  // and BidRequest::ignored counts it; the request stays valid.
  std::optional<NativeRequest> request;
  std::string ver;
  std::vector<int32_t> battr;
  std::vector<int32_t> api;

  bool operator==(const Native&) const = default;
};

struct Deal {
  Deal();

  std::string id;
  double bidfloor = 0;  // CPM, in bidfloorcur
  std::string bidfloorcur = "USD";
  std::optional<int32_t> at;  // absent: the request's auction type applies
  std::vector<std::string> wseat;

  bool operator==(const Deal&) const = default;
};

struct Pmp {
  Pmp();

  bool private_auction = false;  // true: only the deals below may bid
  std::vector<Deal> deals;

  bool operator==(const Pmp&) const = default;
};

struct Imp {
  Imp();

  std::string id;
  std::optional<Banner> banner;
  std::optional<Video> video;
  std::optional<Audio> audio;
  std::optional<Native> native;
  std::optional<Pmp> pmp;
  std::string tagid;
  double bidfloor = 0;  // CPM, in bidfloorcur
  std::string bidfloorcur = "USD";
  std::optional<bool> secure;  // true: creative assets must be https
  bool instl = false;          // interstitial or full screen
  std::optional<bool> rwdd;    // 2.6: the user is rewarded for viewing the ad

  bool operator==(const Imp&) const = default;
};

struct Publisher {
  Publisher();

  std::string id;
  std::string name;
  std::optional<int32_t> cattax;  // 2.6: taxonomy of `cat`; absent: Content 1.0
  std::vector<std::string> cat;
  std::string domain;

  bool operator==(const Publisher&) const = default;
};

struct Site {
  Site();

  std::optional<int32_t> cattax;  // 2.6: taxonomy of the categories below; absent: Content 1.0
  std::string id;
  std::string name;
  std::string domain;
  std::string page;
  std::vector<std::string> cat;
  std::vector<std::string> sectioncat;
  std::vector<std::string> pagecat;
  std::optional<Publisher> publisher;

  bool operator==(const Site&) const = default;
};

struct App {
  App();

  std::optional<int32_t> cattax;  // 2.6: taxonomy of the categories below; absent: Content 1.0
  std::string id;
  std::string name;
  std::string bundle;
  std::string domain;
  std::string storeurl;
  std::vector<std::string> cat;
  std::vector<std::string> sectioncat;
  std::vector<std::string> pagecat;
  std::optional<Publisher> publisher;

  bool operator==(const App&) const = default;
};

// Digital out-of-home inventory (OpenRTB 2.6).
struct Dooh {
  Dooh();

  std::string id;
  std::string name;
  std::vector<std::string> venuetype;
  std::optional<int32_t> venuetypetax;
  std::string domain;
  std::optional<Publisher> publisher;

  bool operator==(const Dooh&) const = default;
};

struct Geo {
  Geo();

  std::optional<double> lat;
  std::optional<double> lon;
  std::optional<int32_t> type;  // 1 GPS, 2 IP address, 3 user provided
  std::string country;          // ISO-3166-1 alpha-3
  std::string region;
  std::string city;

  bool operator==(const Geo&) const = default;
};

// Device identifiers (ifa, did*, dpid*) are personal data: hash them before
// they reach storage or logs (see the device key in DESIGN.md).
struct Device {
  Device();

  std::string ua;
  std::string ip;
  std::string ipv6;
  std::string ifa;
  std::string didsha1;
  std::string didmd5;
  std::string dpidsha1;
  std::string dpidmd5;
  std::optional<Geo> geo;
  std::optional<int32_t> devicetype;  // OpenRTB list 5.21
  std::string make;
  std::string model;
  std::string os;
  std::string osv;
  std::optional<bool> lmt;  // limit ad tracking
  std::optional<bool> dnt;  // do not track
  std::optional<bool> js;
  std::string language;  // ISO 639-1 alpha-2
  std::string langb;     // 2.6: BCP 47
  std::optional<int32_t> connectiontype;

  bool operator==(const Device&) const = default;
};

struct Segment {
  Segment();

  std::string id;

  bool operator==(const Segment&) const = default;
};

struct Data {
  Data();

  std::string id;
  std::string name;
  std::vector<Segment> segment;

  bool operator==(const Data&) const = default;
};

struct Uid {
  Uid();

  std::string id;
  std::optional<int32_t> atype;

  bool operator==(const Uid&) const = default;
};

// Extended identifier from one source (OpenRTB 2.6 `user.eids`).
struct Eid {
  Eid();

  std::string source;
  std::vector<Uid> uids;

  bool operator==(const Eid&) const = default;
};

struct User {
  User();

  std::string id;
  std::string buyeruid;
  std::optional<int32_t> yob;
  std::string gender;
  std::string consent;  // TCF consent string; 2.5: user.ext.consent
  std::vector<Data> data;
  std::vector<Eid> eids;  // 2.5: user.ext.eids

  bool operator==(const User&) const = default;
};

// One entry of regs.ext.dsa.transparency: a party that renders or
// supplies DSA transparency information, and which user parameters it uses.
struct DsaTransparency {
  DsaTransparency();

  std::string domain;
  // 1 profiling, 2 basic advertising, 3 precise geolocation.
  std::vector<int32_t> dsaparams;

  bool operator==(const DsaTransparency&) const = default;
};

// The EU Digital Services Act signal (IAB Tech Lab "DSA Transparency"
// extension, regs.ext.dsa). Values outside the lists below are kept as sent;
// bidder/privacy/dsa.h reads them as the strictest.
struct Dsa {
  Dsa();

  // 0 not required, 1 supported, 2 required, 3 required and the publisher
  // is an online platform.
  std::optional<int32_t> dsarequired;
  // 0 the publisher cannot render the notice, 1 it could, 2 it will.
  std::optional<int32_t> pubrender;
  // 0 do not send transparency data, 1 optional, 2 send.
  std::optional<int32_t> datatopub;
  std::vector<DsaTransparency> transparency;

  bool operator==(const Dsa&) const = default;
};

struct Regs {
  Regs();

  std::optional<bool> coppa;
  std::optional<bool> gdpr;  // 2.5: regs.ext.gdpr
  std::string us_privacy;    // 2.5: regs.ext.us_privacy
  std::string gpp;
  std::vector<int32_t> gpp_sid;
  std::optional<Dsa> dsa;  // regs.ext.dsa (its only location)

  bool operator==(const Regs&) const = default;
};

struct SupplyChainNode {
  SupplyChainNode();

  std::string asi;
  std::string sid;
  std::optional<bool> hp;
  std::string rid;

  bool operator==(const SupplyChainNode&) const = default;
};

struct SupplyChain {
  SupplyChain();

  std::optional<bool> complete;
  std::string ver;
  std::vector<SupplyChainNode> nodes;

  bool operator==(const SupplyChain&) const = default;
};

struct Source {
  Source();

  std::optional<bool> fd;  // true: the exchange is not the final decision maker
  std::string tid;
  std::optional<SupplyChain> schain;  // 2.5: source.ext.schain

  bool operator==(const Source&) const = default;
};

// What a request carried that the bidder ignored rather than refused
// (OpenRTB asks bidders to tolerate these): counted, never a 400.
struct IgnoredInRequest {
  int32_t ext_not_object = 0;            // an `ext` that is a string, number, array, ...
  int32_t unknown_fields = 0;            // keys OpenRTB (or Native) does not define, outside `ext`
  int32_t unknown_values = 0;            // enumeration values outside the lists we know
  int32_t unusable_native_requests = 0;  // native.request absent, not JSON or mistyped

  bool operator==(const IgnoredInRequest&) const = default;
};

struct BidRequest {
  BidRequest();

  std::string id;
  std::vector<Imp> imp;  // at least one, ids unique
  std::optional<Site> site;
  std::optional<App> app;
  std::optional<Dooh> dooh;
  std::optional<Device> device;
  std::optional<User> user;
  std::optional<Regs> regs;
  std::optional<Source> source;
  int32_t at = 2;               // 1 first price, 2 second price plus, > 500 exchange specific
  std::optional<int32_t> tmax;  // milliseconds, > 0
  bool test = false;            // true: no billing
  bool allimps = false;
  std::vector<std::string> cur;  // allowed bid currencies, ISO-4217
  // Taxonomy (AdCOM list "Category Taxonomies") of bcat, acat and the bid's
  // cat; absent: 1, IAB Content Category Taxonomy 1.0. 2.6.
  std::optional<int32_t> cattax;
  std::vector<std::string> bcat;    // blocked advertiser categories
  std::vector<std::string> acat;    // 2.6: allowed advertiser categories
  std::vector<std::string> badv;    // blocked advertiser domains
  std::vector<std::string> bapp;    // blocked app bundles
  std::vector<std::string> wseat;   // allowed buyer seats
  std::vector<std::string> bseat;   // 2.6: blocked buyer seats
  std::vector<std::string> wlang;   // allowed creative languages, ISO 639-1 alpha-2
  std::vector<std::string> wlangb;  // 2.6: the same as BCP 47 tags

  // Set when the request carries a field that only OpenRTB 2.6 defines
  // (dooh, regs.gdpr, source.schain, user.eids, video.plcmt, cattax, ...).
  bool has_openrtb_2_6_fields = false;
  IgnoredInRequest ignored;

  bool operator==(const BidRequest&) const = default;
};

// Defaulted out of line, so the constructors are user-provided: parsing
// creates records with emplace(), which would otherwise zero each whole record
// before constructing its members.
inline Format::Format() = default;
inline Banner::Banner() = default;
inline Video::Video() = default;
inline Audio::Audio() = default;
inline NativeTitleRequest::NativeTitleRequest() = default;
inline NativeImageRequest::NativeImageRequest() = default;
inline NativeDataRequest::NativeDataRequest() = default;
inline NativeVideoRequest::NativeVideoRequest() = default;
inline NativeAssetRequest::NativeAssetRequest() = default;
inline NativeEventTrackerRequest::NativeEventTrackerRequest() = default;
inline NativeRequest::NativeRequest() = default;
inline Native::Native() = default;
inline Deal::Deal() = default;
inline Pmp::Pmp() = default;
inline Imp::Imp() = default;
inline Publisher::Publisher() = default;
inline Site::Site() = default;
inline App::App() = default;
inline Dooh::Dooh() = default;
inline Geo::Geo() = default;
inline Device::Device() = default;
inline Segment::Segment() = default;
inline Data::Data() = default;
inline Uid::Uid() = default;
inline Eid::Eid() = default;
inline User::User() = default;
inline DsaTransparency::DsaTransparency() = default;
inline Dsa::Dsa() = default;
inline Regs::Regs() = default;
inline SupplyChainNode::SupplyChainNode() = default;
inline SupplyChain::SupplyChain() = default;
inline Source::Source() = default;
inline BidRequest::BidRequest() = default;

// ---------------------------------------------------------------------------
// Parsing.

class BidRequestParser {
 public:
  struct Options {
    // Larger requests are rejected before parsing. Default 1 MiB.
    size_t max_request_bytes = size_t{1} << 20;
    // Deeper nesting of objects and arrays (in any field, `ext` included) is
    // rejected. OpenRTB itself needs fewer than 10 levels. Default 64.
    int max_depth = 64;
  };

  BidRequestParser();
  explicit BidRequestParser(Options options);
  ~BidRequestParser();
  BidRequestParser(BidRequestParser&&) noexcept;
  BidRequestParser& operator=(BidRequestParser&&) noexcept;

  // Parses and validates one bid request. Errors are InvalidArgument with a
  // reason: malformed JSON, a wrong type, a missing or empty `id`, no `imp`, an
  // `imp` without `id`, duplicate impression ids, a negative floor, ... The
  // returned request owns all of its strings; `json` need not outlive the call.
  absl::StatusOr<BidRequest> Parse(std::string_view json);

  // As above, into `*request` (replaced whole; left unspecified on error).
  absl::Status Parse(std::string_view json, BidRequest* request);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Parses with a BidRequestParser (default options) kept per thread.
absl::StatusOr<BidRequest> ParseBidRequest(std::string_view json);

// The semantic checks Parse() applies after reading the JSON: required ids,
// at least one impression, unique impression ids, required deal ids.
absl::Status ValidateBidRequest(const BidRequest& request);

// ---------------------------------------------------------------------------
// Version to answer with, for the `x-openrtb-version` response header.

enum class OpenRtbVersion { k2_5, k2_6 };

// "2.5" or "2.6".
std::string_view ToString(OpenRtbVersion version);

// `request_header` is the request's x-openrtb-version header (empty when the
// exchange sent none). A 2.x header decides: 2.6 and later minor versions get
// 2.6, earlier ones 2.5. Without a usable header the request is taken to be
// of `exchange_version`, the version its exchange is configured with
// (config::ExchangeConfig::openrtb_version): exchange servers such as Prebid
// Server send no header, and a 2.6 request need not carry any field only 2.6
// defines.
OpenRtbVersion ResponseOpenRtbVersion(std::string_view request_header,
                                      OpenRtbVersion exchange_version);

// ---------------------------------------------------------------------------
// Bid response.

// OpenRTB 2.5 list 5.24, "No-Bid Reason Codes".
enum class NoBidReason : int32_t {
  kUnknownError = 0,
  kTechnicalError = 1,
  kInvalidRequest = 2,
  kKnownWebSpider = 3,
  kSuspectedNonHumanTraffic = 4,
  kCloudDataCenterOrProxyIp = 5,
  kUnsupportedDevice = 6,
  kBlockedPublisherOrSite = 7,
  kUnmatchedUser = 8,
};

// bid.ext.dsa: the DSA transparency information of a bid.
struct BidDsa {
  std::string behalf;  // on whose behalf the ad is shown
  std::string paid;    // who paid for it
  // 0 the buyer will not render the notice, 1 it will.
  int32_t adrender = 0;
  std::vector<DsaTransparency> transparency;

  bool operator==(const BidDsa&) const = default;
};

struct Bid {
  std::string id;
  std::string impid;
  double price = 0;  // CPM, in BidResponse::cur
  std::string adm;   // markup; or leave empty and serve through nurl
  std::string nurl;  // win notice; macros such as ${AUCTION_PRICE} left as is
  std::string burl;  // billing notice
  std::string lurl;  // loss notice
  std::vector<std::string> adomain;
  std::string crid;
  std::string cid;
  std::string adid;  // the creative's preloaded ad id
  std::string iurl;  // an image of the creative, for ad-quality checks
  std::vector<std::string> cat;
  std::vector<int32_t> attr;        // creative attributes, AdCOM list 5.3
  std::optional<int32_t> protocol;  // video/audio: the markup's VAST/DAAST subtype
  std::string language;             // ISO 639-1 alpha-2
  std::optional<int32_t> w;
  std::optional<int32_t> h;
  std::string dealid;  // set when bidding on a deal
  // OpenRTB 2.6 members, written at their 2.6 places in every answer: a 2.6
  // reader drops or misreads a bid without them (Prebid Server drops a bid
  // without mtype; without cattax `cat` reads as Content 1.0; without dur a
  // bid cannot be placed in a pod), and a 2.5 reader ignores members it does
  // not know. A 2.5 answer (BidResponse::version) repeats them in bid.ext
  // under the same names, where 2.5 readers that know them look; a strict
  // one (BidResponse::strict_2_5) has them in bid.ext only.
  std::optional<int32_t> cattax;  // taxonomy of `cat`; absent: Content 1.0
  std::optional<int32_t> dur;     // video/audio duration, seconds
  std::optional<int32_t> mtype;   // markup type: 1 banner, 2 video, 3 audio, 4 native
  std::optional<BidDsa> dsa;      // written as ext.dsa

  bool operator==(const Bid&) const = default;
};

struct SeatBid {
  std::string seat;
  std::vector<Bid> bid;

  bool operator==(const SeatBid&) const = default;
};

struct BidResponse {
  std::string id;  // the bid request's id
  std::string bidid;
  std::string cur;  // empty: the exchange's default (USD)
  std::vector<SeatBid> seatbid;
  std::optional<NoBidReason> nbr;
  // Whether the 2.6-only bid members are repeated in bid.ext (see Bid).
  OpenRtbVersion version = OpenRtbVersion::k2_6;
  // A 2.5 answer for a reader that refuses members 2.5 does not define: the
  // 2.6-only bid members go to bid.ext only (config::ExchangeConfig::
  // strict_openrtb_2_5). Ignored in a 2.6 answer.
  bool strict_2_5 = false;

  bool operator==(const BidResponse&) const = default;
};

// Makes `*bid` equal to Bid{} while its strings and lists keep their memory:
// a writer that reuses its bids from one response to the next then copies
// ids, URLs and markup into them without allocating.
void ClearForReuse(Bid* bid);

// Writes `response` as compact JSON into `*out`, replacing its contents and
// reusing its capacity. Strings are escaped; invalid UTF-8 (which cannot come
// from a parsed request, only from elsewhere) becomes U+FFFD so the output is
// always valid JSON. Prices are written in plain decimal notation with the
// shortest digits that read back as the same double. Empty strings and lists
// and absent numbers are omitted.
//
// InvalidArgument (and `*out` cleared) when the response could not be a valid
// OpenRTB response: empty `id`; a seatbid without bids; a bid without `id` or
// `impid`, with neither `adm` nor `nurl`, with a negative or non-finite
// price, or with `dsa` lacking behalf or paid.
absl::Status SerializeBidResponse(const BidResponse& response, std::string* out);

// Appends `text` as a quoted JSON string, escaped as SerializeBidResponse
// escapes strings: the one JSON string escaper of the bidder.
void AppendJsonString(std::string_view text, std::string* out);

}  // namespace rtb::openrtb

#endif  // RTB_BIDDER_OPENRTB_OPENRTB_H_

// Bid requests for the OpenRTB tests: the repository's request corpus
// (tests/fixtures/openrtb/requests, described in its README) and a request
// carrying every field the model keeps.
#ifndef RTB_TESTS_BIDDER_OPENRTB_FIXTURE_REQUESTS_H_
#define RTB_TESTS_BIDDER_OPENRTB_FIXTURE_REQUESTS_H_

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace rtb::openrtb::testing {

struct FixtureRequest {
  std::string name;  // file name in the corpus directory
  std::string json;
};

// Every *.json file of the corpus, sorted by name.
inline std::vector<FixtureRequest> LoadFixtureRequests() {
  const std::filesystem::path root(RTB_OPENRTB_FIXTURES_DIR);
  std::vector<FixtureRequest> files;
  if (!std::filesystem::is_directory(root)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    files.push_back({std::filesystem::relative(entry.path(), root).string(), content.str()});
  }
  std::sort(files.begin(), files.end(),
            [](const FixtureRequest& a, const FixtureRequest& b) { return a.name < b.name; });
  return files;
}

inline std::string ReadFixtureRequest(std::string_view name) {
  for (auto& file : LoadFixtureRequests()) {
    if (file.name == name) return file.json;
  }
  return {};
}

// OpenRTB 2.6, every member of the model set, about 3 KB.
inline constexpr std::string_view kFullRequest26 = R"json({
  "id": "req-26-full",
  "at": 1,
  "tmax": 120,
  "test": 1,
  "allimps": 0,
  "cur": ["USD", "EUR"],
  "bcat": ["IAB25", "IAB26"],
  "badv": ["blocked.example"],
  "bapp": ["com.blocked.app"],
  "wseat": ["seat-1"],
  "bseat": ["seat-9"],
  "wlang": ["de", "en"],
  "wlangb": ["de-DE"],
  "cattax": 2,
  "acat": ["52"],
  "imp": [
    {
      "id": "imp-1",
      "tagid": "tag-1",
      "bidfloor": 1.25,
      "bidfloorcur": "EUR",
      "secure": 1,
      "instl": 1,
      "rwdd": 1,
      "banner": {"w": 320, "h": 50, "format": [{"w": 320, "h": 50}, {"w": 300, "h": 250}],
                 "battr": [3, 8], "api": [3, 5]},
      "pmp": {
        "private_auction": 1,
        "deals": [{"id": "deal-1", "bidfloor": 3.5, "bidfloorcur": "EUR", "at": 3,
                   "wseat": ["seat-1", "seat-2"]}]
      },
      "ext": {"prebid": {"bidder": {"x": {"placementId": 12345}}}}
    },
    {
      "id": "imp-2",
      "video": {"mimes": ["video/mp4", "video/webm"], "w": 640, "h": 480, "minduration": 5,
                "maxduration": 30, "protocols": [2, 3, 7], "protocol": 3, "placement": 1, "plcmt": 2,
                "linearity": 1, "startdelay": -1, "skip": 1, "skipmin": 15, "skipafter": 5,
                "battr": [16], "api": [2, 7], "minbitrate": 300, "maxbitrate": 1500,
                "rqddurs": [15, 30], "podid": "pod-1", "maxseq": 3, "poddur": 60}
    },
    {"id": "imp-3", "audio": {"mimes": ["audio/mp4"], "minduration": 10, "maxduration": 60,
                              "protocols": [9], "startdelay": 0, "battr": [1], "api": [7],
                              "minbitrate": 64, "maxbitrate": 320, "rqddurs": [30],
                              "podid": "pod-a", "maxseq": 2, "poddur": 90}},
    {"id": "imp-4", "native": {"request": "{\"ver\":\"1.2\",\"context\":2,\"plcmttype\":1,\"assets\":[{\"id\":1,\"required\":1,\"title\":{\"len\":90}},{\"id\":2,\"img\":{\"type\":3,\"w\":1200,\"h\":627,\"wmin\":600,\"hmin\":314,\"mimes\":[\"image/png\"]}},{\"id\":3,\"data\":{\"type\":2,\"len\":140}},{\"id\":4,\"video\":{\"mimes\":[\"video/mp4\"],\"minduration\":5,\"maxduration\":30,\"protocols\":[3]}}],\"eventtrackers\":[{\"event\":1,\"methods\":[1,2]}]}",
                               "ver": "1.2", "battr": [9], "api": [5]}}
  ],
  "site": {
    "id": "site-1", "name": "Example News", "domain": "news.example", "page": "https://news.example/a?b=1",
    "cattax": 1, "cat": ["IAB12"], "sectioncat": ["IAB12-1"], "pagecat": ["IAB12-2"],
    "publisher": {"id": "pub-1", "name": "Example", "cattax": 1, "cat": ["IAB12"], "domain": "example.com"}
  },
  "device": {
    "ua": "Mozilla/5.0 (Linux; Android 13) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36",
    "ip": "192.0.2.1", "ipv6": "2001:db8::1", "ifa": "6d92078a-8246-4ba4-ae5b-76104861e7dc",
    "didsha1": "didsha1-value", "didmd5": "didmd5-value", "dpidsha1": "dpidsha1-value", "dpidmd5": "dpidmd5-value",
    "geo": {"lat": 52.52, "lon": -13.405, "type": 2, "country": "DEU", "region": "BE", "city": "Berlin"},
    "devicetype": 4, "make": "Google", "model": "Pixel 7", "os": "Android", "osv": "13",
    "lmt": 0, "dnt": 1, "js": 1, "language": "de", "langb": "de-DE", "connectiontype": 2,
    "sua": {"browsers": [{"brand": "Chrome", "version": ["120"]}]}
  },
  "user": {
    "id": "user-1", "buyeruid": "buyer-1", "yob": 1985, "gender": "F", "consent": "CONSENT-26",
    "data": [{"id": "dp-1", "name": "provider", "segment": [{"id": "seg-1"}, {"id": "seg-2"}]}],
    "eids": [{"source": "id5-sync.com", "uids": [{"id": "ID5-abc", "atype": 1}]}]
  },
  "regs": {"coppa": 0, "gdpr": 1, "us_privacy": "1YNN", "gpp": "DBABMA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA", "gpp_sid": [2, 6]},
  "source": {
    "fd": 1, "tid": "tid-1",
    "schain": {"complete": 1, "ver": "1.0",
               "nodes": [{"asi": "exchange.example", "sid": "1234", "hp": 1, "rid": "req-26-full"}]}
  }
})json";

}  // namespace rtb::openrtb::testing

#endif  // RTB_TESTS_BIDDER_OPENRTB_FIXTURE_REQUESTS_H_

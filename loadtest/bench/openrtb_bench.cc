// OpenRTB on the bid path: parsing a typical 1.5 KB bid request into the model
// (nlohmann/json baseline vs the simdjson On-Demand parser) and writing a bid
// response. The budget (DESIGN.md) is about 3 us per 1.5 KB request.
//
//   build/loadtest/bench/openrtb_bench --benchmark_repetitions=5
//
// "allocs" is heap allocations per iteration (loadtest/bench/heap_allocations.h);
// it is what reusing a parser and an output string is meant to keep low.
#include <string>
#include <string_view>

#include "benchmark/benchmark.h"
#include "bidder/openrtb/internal/nlohmann_reader.h"
#include "bidder/openrtb/openrtb.h"
#include "loadtest/bench/heap_allocations.h"
#include "nlohmann/json.hpp"
#include "simdjson.h"

namespace rtb::openrtb {
namespace {

// A display request as exchanges send them, 1.5 KB: site, device with a full
// user agent, user with segments and a TCF consent string, 2.5 `ext`
// locations, schain, two impressions (one with a deal), prebid `ext`.
constexpr std::string_view kRequest = R"json({
  "id": "9f3c1e7a-5b2d-4c8e-a1f0-3d6b9e2c7a41",
  "at": 1,
  "tmax": 150,
  "cur": ["USD"],
  "bcat": ["IAB25", "IAB26", "IAB7-39"],
  "badv": ["competitor.example"],
  "imp": [
    {
      "id": "1",
      "tagid": "homepage-top",
      "bidfloor": 0.85,
      "secure": 1,
      "banner": {"w": 728, "h": 90, "pos": 1, "format": [{"w": 728, "h": 90}, {"w": 970, "h": 90}]},
      "ext": {"prebid": {"bidder": {"ourbidder": {"placementId": 183472}}}}
    },
    {
      "id": "2",
      "bidfloor": 0.5,
      "banner": {"format": [{"w": 300, "h": 250}, {"w": 300, "h": 600}]},
      "pmp": {"deals": [{"id": "DEAL-0042", "bidfloor": 4.0, "at": 1}]}
    }
  ],
  "site": {
    "id": "site-2231",
    "domain": "news.example.com",
    "page": "https://news.example.com/world/2024/05/article.html",
    "cat": ["IAB12"],
    "publisher": {"id": "pub-889", "name": "Example News"}
  },
  "device": {
    "ua": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "ip": "203.0.113.54",
    "geo": {"lat": 48.8566, "lon": 2.3522, "type": 2, "country": "FRA", "city": "Paris"},
    "devicetype": 2, "os": "Windows", "js": 1, "language": "fr", "connectiontype": 2
  },
  "user": {
    "id": "u-5e1f0c2b9a8d7e6f",
    "buyeruid": "b-77d1a0c3",
    "data": [{"id": "dmp-1", "segment": [{"id": "s-101"}, {"id": "s-202"}, {"id": "s-303"}]}],
    "ext": {"consent": "CPxyzABPxyzABAGABCENAyCsAP_AAH_AAAYgINtd_H__bW9r-f5_aft0eY1P9_r37uQzDhfNk-8F3L_W_LwX52E7NF36tq4KmR4ku1LBIUNlHMHUDUmwaokVryHsak2cpzNKJ7BEknMZOydYGF9vmxtj-QKY7_5_d3bx2D-t_9v239z3z81XvH3_9"}
  },
  "regs": {"coppa": 0, "ext": {"gdpr": 1}},
  "source": {"tid": "0b3e9a1c-2d4f-4e5a-9b8c-7d6e5f4a3b2c",
             "ext": {"schain": {"complete": 1, "ver": "1.0", "nodes": [{"asi": "exchange.example", "sid": "pub-889", "hp": 1}]}}}
})json";

// Exchanges send compact JSON: the literal above without its layout.
std::string Compact(std::string_view json) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\') {
        out.push_back(json[++i]);
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c != ' ' && c != '\n') {
      out.push_back(c);
      in_string = c == '"';
    }
  }
  return out;
}

const std::string& Request() {
  static const std::string compact = Compact(kRequest);
  return compact;
}

void ReportRequestSize(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Request().size()));
  state.counters["request_bytes"] = static_cast<double>(Request().size());
}

// Allocations per iteration over the timed loop.
class AllocationCounter {
 public:
  AllocationCounter() : start_(bench::HeapAllocations()) {}
  void Report(benchmark::State& state) const {
    state.counters["allocs"] = benchmark::Counter(
        static_cast<double>(bench::HeapAllocations() - start_), benchmark::Counter::kAvgIterations);
  }

 private:
  uint64_t start_;
};

// nlohmann DOM only, no model: the floor of the baseline.
void BM_NlohmannDomOnly(benchmark::State& state) {
  AllocationCounter counter;
  for (auto _ : state) {
    nlohmann::json json = nlohmann::json::parse(Request().begin(), Request().end(), nullptr, false);
    benchmark::DoNotOptimize(json);
  }
  counter.Report(state);
  ReportRequestSize(state);
}
BENCHMARK(BM_NlohmannDomOnly);

// The baseline: nlohmann DOM, then the same model, checks and validation.
void BM_NlohmannIntoModel(benchmark::State& state) {
  if (!internal::ParseBidRequestWithNlohmann(Request()).ok()) {
    state.SkipWithError("request rejected");
  }
  AllocationCounter counter;
  for (auto _ : state) {
    absl::StatusOr<BidRequest> request = internal::ParseBidRequestWithNlohmann(Request());
    benchmark::DoNotOptimize(request);
  }
  counter.Report(state);
  ReportRequestSize(state);
}
BENCHMARK(BM_NlohmannIntoModel);

// simdjson DOM parse only (fully validating, no model): the floor of simdjson.
void BM_SimdjsonDomOnly(benchmark::State& state) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(Request());
  AllocationCounter counter;
  for (auto _ : state) {
    simdjson::dom::element root;
    auto error = parser.parse(padded).get(root);
    benchmark::DoNotOptimize(error);
    benchmark::DoNotOptimize(root);
  }
  counter.Report(state);
  ReportRequestSize(state);
}
BENCHMARK(BM_SimdjsonDomOnly);

// The bid path: a reused parser, a fresh model per request (what the handler does).
void BM_SimdjsonIntoModel(benchmark::State& state) {
  BidRequestParser parser;
  if (!parser.Parse(Request()).ok()) state.SkipWithError("request rejected");
  AllocationCounter counter;
  for (auto _ : state) {
    absl::StatusOr<BidRequest> request = parser.Parse(Request());
    benchmark::DoNotOptimize(request);
  }
  counter.Report(state);
  ReportRequestSize(state);
}
BENCHMARK(BM_SimdjsonIntoModel);

// Same, into a caller-owned model.
void BM_SimdjsonIntoExistingModel(benchmark::State& state) {
  BidRequestParser parser;
  BidRequest request;
  AllocationCounter counter;
  for (auto _ : state) {
    absl::Status status = parser.Parse(Request(), &request);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(request);
  }
  counter.Report(state);
  ReportRequestSize(state);
}
BENCHMARK(BM_SimdjsonIntoExistingModel);

// ParseBidRequest(): the per-thread parser.
void BM_ParseBidRequestPerThreadParser(benchmark::State& state) {
  AllocationCounter counter;
  for (auto _ : state) {
    absl::StatusOr<BidRequest> request = ParseBidRequest(Request());
    benchmark::DoNotOptimize(request);
  }
  counter.Report(state);
  ReportRequestSize(state);
}
BENCHMARK(BM_ParseBidRequestPerThreadParser);

// A rejected request costs no more than an accepted one.
void BM_SimdjsonRejectsWrongType(benchmark::State& state) {
  std::string bad(Request());
  bad.replace(bad.find("\"w\":728"), 7, "\"w\":\"7\"");
  BidRequestParser parser;
  for (auto _ : state) {
    absl::StatusOr<BidRequest> request = parser.Parse(bad);
    benchmark::DoNotOptimize(request);
  }
  ReportRequestSize(state);
}
BENCHMARK(BM_SimdjsonRejectsWrongType);

BidResponse TypicalResponse(size_t adm_bytes) {
  BidResponse response;
  response.id = "9f3c1e7a-5b2d-4c8e-a1f0-3d6b9e2c7a41";
  response.bidid = "b-1715000000-000042";
  response.cur = "USD";
  SeatBid& seat = response.seatbid.emplace_back();
  seat.seat = "s1";
  Bid& bid = seat.bid.emplace_back();
  bid.id = "1-183472-77";
  bid.impid = "1";
  bid.price = 1.2345;
  std::string adm =
      "<div class=\"ad\"><a href=\"https://click.example/c?id=77&amp;u=%3A%2F\">"
      "<img src=\"https://cdn.example/creative/77.png\" width=\"728\" height=\"90\"></a></div>";
  while (adm.size() < adm_bytes) adm += adm;
  adm.resize(adm_bytes);
  bid.adm = adm;
  bid.nurl = "https://win.example/w?a=${AUCTION_ID}&i=${AUCTION_IMP_ID}&p=${AUCTION_PRICE}";
  bid.burl = "https://win.example/b?a=${AUCTION_ID}&p=${AUCTION_PRICE}";
  bid.lurl = "https://win.example/l?a=${AUCTION_ID}&r=${AUCTION_LOSS}";
  bid.adomain = {"brand.example"};
  bid.crid = "creative-77";
  bid.cid = "campaign-12";
  bid.cat = {"IAB3"};
  bid.w = 728;
  bid.h = 90;
  return response;
}

// adm of the given size, reused output string.
void BM_SerializeBidResponse(benchmark::State& state) {
  const BidResponse response = TypicalResponse(static_cast<size_t>(state.range(0)));
  std::string out;
  if (!SerializeBidResponse(response, &out).ok()) state.SkipWithError("response rejected");
  AllocationCounter counter;
  for (auto _ : state) {
    absl::Status status = SerializeBidResponse(response, &out);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(out.data());
  }
  counter.Report(state);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
  state.counters["response_bytes"] = static_cast<double>(out.size());
}
BENCHMARK(BM_SerializeBidResponse)->Arg(200)->Arg(4096);

// The nlohmann way of writing the same response, for comparison.
void BM_SerializeBidResponseNlohmann(benchmark::State& state) {
  const BidResponse response = TypicalResponse(static_cast<size_t>(state.range(0)));
  std::string out;
  for (auto _ : state) {
    const Bid& b = response.seatbid[0].bid[0];
    nlohmann::json bid = {{"id", b.id},     {"impid", b.impid},     {"price", b.price},
                          {"adm", b.adm},   {"nurl", b.nurl},       {"burl", b.burl},
                          {"lurl", b.lurl}, {"adomain", b.adomain}, {"crid", b.crid},
                          {"cid", b.cid},   {"cat", b.cat},         {"w", *b.w},
                          {"h", *b.h}};
    nlohmann::json json = {{"id", response.id},
                           {"bidid", response.bidid},
                           {"cur", response.cur},
                           {"seatbid", {{{"seat", response.seatbid[0].seat}, {"bid", {bid}}}}}};
    out = json.dump();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_SerializeBidResponseNlohmann)->Arg(200)->Arg(4096);

}  // namespace
}  // namespace rtb::openrtb

BENCHMARK_MAIN();

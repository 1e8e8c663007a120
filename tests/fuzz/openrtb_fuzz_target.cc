// A bid request body into the bid-path parser (simdjson On-Demand), checked
// against the nlohmann reader that follows the same field tables: whatever
// the bytes, the parser answers a model or InvalidArgument with a reason;
// without keys given twice (whose meaning JSON leaves open; in the request
// or in an embedded native.request) both readers
// accept the same inputs and build equal models. An accepted request passes
// validation again, gets a response version, and a response built from its
// ids serializes to JSON that reads back with the same ids and price.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "bidder/openrtb/internal/nlohmann_reader.h"
#include "bidder/openrtb/openrtb.h"
#include "nlohmann/json.hpp"
#include "tests/fuzz/fuzz_targets.h"

namespace rtb::fuzz {
namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "openrtb fuzz target: %s\n", what);
  std::abort();
}

class DuplicateKeyFinder : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool found() const { return found_; }

  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool end_object() override {
    keys_.pop_back();
    return true;
  }
  bool key(string_t& key) override {
    if (!keys_.empty() && !keys_.back().insert(key).second) found_ = true;
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  // An embedded document (native.request) is a string holding JSON: its
  // duplicate keys count too.
  bool string(string_t& value) override {
    const size_t first = value.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && value[first] == '{') {
      DuplicateKeyFinder embedded;
      nlohmann::json::sax_parse(value, &embedded, nlohmann::json::input_format_t::json,
                                /*strict=*/true, /*ignore_comments=*/false);
      found_ = found_ || embedded.found();
    }
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  std::vector<std::set<std::string>> keys_;
  bool found_ = false;
};

bool HasDuplicateKeys(std::string_view json) {
  DuplicateKeyFinder finder;
  nlohmann::json::sax_parse(json, &finder, nlohmann::json::input_format_t::json,
                            /*strict=*/true, /*ignore_comments=*/false);
  return finder.found();
}

void CheckResponseOf(const openrtb::BidRequest& request) {
  openrtb::BidResponse response;
  response.id = request.id;
  openrtb::Bid bid;
  bid.id = "b1";
  bid.impid = request.imp.front().id;
  const double floor = request.imp.front().bidfloor;
  bid.price = std::isfinite(floor) && floor >= 0 ? floor : 1.5;
  bid.adm = request.id;
  bid.crid = request.imp.front().tagid;
  response.seatbid.push_back(openrtb::SeatBid{.seat = "s", .bid = {bid}});
  std::string out;
  if (!openrtb::SerializeBidResponse(response, &out).ok())
    Fail("a valid response did not serialize");
  const nlohmann::json back = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (back.is_discarded()) Fail("the response is not JSON");
  if (back.value("id", "") != request.id) Fail("the response id changed");
  const nlohmann::json& written = back["seatbid"][0]["bid"][0];
  if (written.value("impid", "") != bid.impid || written.value("adm", "") != bid.adm) {
    Fail("a response string changed");
  }
  if (written.value("price", -1.0) != bid.price) Fail("the price did not read back exactly");
}

}  // namespace

int FuzzOpenRtbRequest(const uint8_t* data, size_t size) {
  static openrtb::BidRequestParser* parser = new openrtb::BidRequestParser();
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<openrtb::BidRequest> fast = parser->Parse(json);
  if (!fast.ok()) {
    if (fast.status().code() != absl::StatusCode::kInvalidArgument) Fail("not InvalidArgument");
    if (fast.status().message().empty()) Fail("a refusal without a reason");
  }
  if (!HasDuplicateKeys(json)) {
    absl::StatusOr<openrtb::BidRequest> baseline =
        openrtb::internal::ParseBidRequestWithNlohmann(json);
    if (fast.ok() != baseline.ok()) Fail("the readers disagree on accepting the input");
    if (fast.ok() && !(*fast == *baseline)) Fail("the readers built different models");
  }
  if (fast.ok()) {
    if (!openrtb::ValidateBidRequest(*fast).ok()) Fail("an accepted request fails validation");
    openrtb::ResponseOpenRtbVersion(json.substr(0, 8), openrtb::OpenRtbVersion::k2_5);
    CheckResponseOf(*fast);
  }
  return 0;
}

}  // namespace rtb::fuzz

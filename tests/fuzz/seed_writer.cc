// Writes the generated seeds of tests/fuzz/corpus/: inputs that are tedious
// to write by hand (Thrift calls in the binary protocol, signed beacon
// queries, Gorilla blocks, TC/GPP/US Privacy strings). Run it after a change
// of those formats, and commit what changes:
//   cmake --build build --target write_fuzz_seeds
//   build/tests/fuzz/write_fuzz_seeds tests/fuzz/corpus
// Hand-written seeds (HTTP requests, bid requests, configs, cookies) live in
// the same directories and are left alone.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_replace.h"
#include "bidder/bid/beacon_url.h"
#include "bidder/telemetry/gorilla.h"
#include "storage/thrift/THBaseService.h"
#include "tests/bidder/privacy/privacy_encoder.h"
#include "thrift/protocol/TBinaryProtocol.h"
#include "thrift/transport/TBufferTransports.h"

namespace rtb::fuzz {
namespace {

namespace fs = std::filesystem;
namespace t2 = storage::thrift2;
namespace at = ::apache::thrift;

fs::path corpus;
int written = 0;

void Write(const char* target, const std::string& name, std::string_view bytes) {
  const fs::path directory = corpus / target;
  fs::create_directories(directory);
  std::ofstream out(directory / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ++written;
}

// --- thrift_server: calls as a client sends them -------------------------

class Calls {
 public:
  Calls()
      : buffer_(std::make_shared<at::transport::TMemoryBuffer>()),
        client_(std::make_shared<at::protocol::TBinaryProtocolT<at::transport::TBufferBase>>(
            buffer_, 0, 0, true, true)) {}
  t2::THBaseServiceClient& client() { return client_; }
  std::string bytes() { return buffer_->getBufferAsString(); }

 private:
  std::shared_ptr<at::transport::TMemoryBuffer> buffer_;
  t2::THBaseServiceClient client_;
};

t2::TColumnValue Cell(const std::string& family, const std::string& qualifier,
                      const std::string& value) {
  t2::TColumnValue cell;
  cell.__set_family(family);
  cell.__set_qualifier(qualifier);
  cell.__set_value(value);
  return cell;
}

t2::TPut ProfilePut(const std::string& row) {
  t2::TPut put;
  put.__set_row(row);
  put.__set_columnValues({Cell("seg", "s1", "1"), Cell("fc", "c1", std::string(8, '\0'))});
  return put;
}

t2::TGet ProfileGet(const std::string& row) {
  t2::TGet get;
  get.__set_row(row);
  t2::TColumn seg;
  seg.__set_family("seg");
  get.__set_columns({seg});
  get.__set_maxVersions(1);
  return get;
}

t2::TScan Scan(const std::string& filter) {
  t2::TScan scan;
  scan.__set_startRow("a");
  scan.__set_stopRow("z");
  scan.__set_caching(10);
  if (!filter.empty()) scan.__set_filterString(filter);
  return scan;
}

void WriteThriftSeeds() {
  const char* kTarget = "thrift_server";
  {
    Calls c;
    c.client().send_put("profiles", ProfilePut("device-1"));
    c.client().send_get("profiles", ProfileGet("device-1"));
    Write(kTarget, "put_then_get", c.bytes());
  }
  {
    Calls c;
    c.client().send_getMultiple("profiles", {ProfileGet("a"), ProfileGet("b")});
    c.client().send_putMultiple("profiles", {ProfilePut("a"), ProfilePut("b")});
    Write(kTarget, "multiple", c.bytes());
  }
  {
    Calls c;
    t2::TIncrement increment;
    increment.__set_row("device-2");
    t2::TColumnIncrement column;
    column.__set_family("fc");
    column.__set_qualifier("campaign-1");
    column.__set_amount(1);
    increment.__set_columns({column});
    increment.__set_returnResults(true);
    c.client().send_increment("profiles", increment);
    Write(kTarget, "increment", c.bytes());
  }
  {
    Calls c;
    c.client().send_openScanner("profiles", Scan(""));
    c.client().send_getScannerRows(1, 10);
    c.client().send_closeScanner(1);
    Write(kTarget, "scanner", c.bytes());
  }
  {
    Calls c;
    c.client().send_getScannerResults(
        "profiles", Scan("PrefixFilter('dev') AND (ValueFilter(=, 'binary:1') OR KeyOnlyFilter())"),
        5);
    Write(kTarget, "scan_filtered", c.bytes());
  }
  {
    Calls c;
    t2::TRowMutations mutations;
    mutations.__set_row("device-3");
    t2::TMutation put;
    put.__set_put(ProfilePut("device-3"));
    t2::TMutation del;
    t2::TDelete d;
    d.__set_row("device-3");
    del.__set_deleteSingle(d);
    mutations.__set_mutations({put, del});
    c.client().send_mutateRow("profiles", mutations);
    c.client().send_checkAndMutate("profiles", "device-3", "seg", "s1", t2::TCompareOperator::EQUAL,
                                   "1", mutations);
    Write(kTarget, "mutate_and_check", c.bytes());
  }
  {
    Calls c;
    t2::TDelete d;
    d.__set_row("device-1");
    c.client().send_deleteSingle("profiles", d);
    c.client().send_deleteMultiple("profiles", {d});
    Write(kTarget, "delete", c.bytes());
  }
  {
    Calls c;
    t2::TTableName name;
    name.__set_ns("");
    name.__set_qualifier("profiles");
    t2::TTableName meta;
    meta.__set_ns("hbase");
    meta.__set_qualifier("meta");
    c.client().send_tableExists(meta);
    c.client().send_getTableDescriptor(name);
    c.client().send_isTableEnabled(name);
    Write(kTarget, "table_admin", c.bytes());
  }
  {
    Calls c;
    t2::TTableName name;
    name.__set_qualifier("fuzz_table");
    t2::TTableDescriptor descriptor;
    descriptor.__set_tableName(name);
    t2::TColumnFamilyDescriptor family;
    family.__set_name("f");
    family.__set_maxVersions(3);
    family.__set_timeToLive(3600);
    descriptor.__set_columns({family});
    c.client().send_createTable(descriptor, {});
    c.client().send_disableTable(name);
    c.client().send_enableTable(name);
    Write(kTarget, "create_table", c.bytes());
  }
}

// --- beacon_url ------------------------------------------------------------

// The secret of the beacon_url fuzz target.
constexpr std::string_view kBeaconSecret = "fuzz-beacon-secret-0123456789abcdef0123456789abcdef";

void WriteBeaconSeeds() {
  const char* kTarget = "beacon_url";
  const bidder::BeaconSigner signer(kBeaconSecret);
  bidder::BeaconParams params;
  params.exchange = "sample-exchange";
  params.campaign_id = "c-1";
  params.creative_id = "cr 1";
  params.device_key = "00112233445566778899aabbccddeeff";
  params.deal_id = "deal-9";
  params.bid_price_micros = 2500000;
  params.bid_currency = "USD";
  params.bid_time_ms = 1767225600000;
  params.request_id = "req-1";
  params.imp_id = "1";
  params.bid_id = "b-1";
  const struct {
    bidder::BeaconKind kind;
    const char* name;
  } kinds[] = {{bidder::BeaconKind::kWin, "win"},
               {bidder::BeaconKind::kBilling, "billing"},
               {bidder::BeaconKind::kLoss, "loss"},
               {bidder::BeaconKind::kClick, "click"},
               {bidder::BeaconKind::kImpression, "imp"}};
  for (const auto& kind : kinds) {
    const std::string url = signer.Url(kind.kind, "https://rtb.example.com", params);
    const std::string query =
        absl::StrReplaceAll(url.substr(url.find('?') + 1), {{"${AUCTION_ID}", "req-1"},
                                                            {"${AUCTION_IMP_ID}", "1"},
                                                            {"${AUCTION_BID_ID}", "b-1"},
                                                            {"${AUCTION_PRICE}", "1.25"},
                                                            {"${AUCTION_CURRENCY}", "USD"},
                                                            {"${AUCTION_LOSS}", "102"}});
    Write(kTarget, std::string("verify_") + kind.name, std::string(1, '\0') + query);
  }
  // Mode 1: nine NUL-separated fields, then price, time and the test flag.
  std::string fields = std::string(1, '\1') + "ex" + '\0' + "c" + '\0' + "cr" + '\0' + "dk" + '\0' +
                       "" + '\0' + "EUR" + '\0' + "r&1" + '\0' + "i=2" + '\0' + "b%3";
  fields += '\0';
  const int64_t numbers[2] = {1500000, 1767225600000};
  fields.append(reinterpret_cast<const char*>(numbers), sizeof(numbers));
  fields += '\1';
  Write(kTarget, "sign_and_verify", fields);
  // Mode 2: a click token of ours, and mode 3: markup with placeholders.
  Write(kTarget, "click_token",
        std::string(1, '\2') + signer.ClickToken(std::string("0123456789abcdef")));
  Write(kTarget, "markup",
        std::string(1, '\3') +
            "<a href=\"${CLICK_URL}\"><img src=\"${IMPRESSION_URL}\"></a>%41%2B+%zz");
}

// --- gorilla ---------------------------------------------------------------

void WriteGorillaSeeds() {
  const char* kTarget = "gorilla";
  constexpr int64_t kBucket = 1791072000;
  std::vector<bidder::telemetry::Point> counters;
  std::vector<bidder::telemetry::Point> gauges;
  for (int i = 0; i < 60; ++i) {
    counters.push_back({kBucket + i * 10, static_cast<double>(i * 17)});
    gauges.push_back({kBucket + i * 7 + (i % 3), 0.37 * i - 5.5 + (i % 5) * 1e-9});
  }
  int n = 0;
  for (const auto& points : {counters, gauges}) {
    absl::StatusOr<std::string> block = bidder::telemetry::EncodeGorillaBlock(kBucket, points);
    if (!block.ok()) continue;
    std::string input(8, '\0');
    const int64_t shifted = kBucket << 2;
    std::memcpy(input.data(), &shifted, 8);
    Write(kTarget, "block_" + std::to_string(n++), input + *block);
  }
}

// --- privacy ---------------------------------------------------------------

void WritePrivacySeeds() {
  using bidder::privacy::testing::EncodeGppString;
  using bidder::privacy::testing::EncodeTcString;
  using bidder::privacy::testing::EncodeUsSection;
  using bidder::privacy::testing::TcFields;
  using bidder::privacy::testing::UsFields;
  TcFields tc;
  tc.purpose_consents = {1, 2, 3, 4, 7};
  tc.vendor_consents.ids = {1, 2, 755, 1000};
  tc.vendor_legitimate_interests.ids = {2, 3};
  const std::string bit_field = EncodeTcString(tc);
  tc.vendor_consents.range_encoding = true;
  tc.restrictions = {{2, 1, {{1, 10}}}};
  tc.segment_types = {2, 3};
  const std::string ranges = EncodeTcString(tc);
  Write("tc_string", "bit_field", bit_field);
  Write("tc_string", "ranges_and_segments", ranges);
  Write("tc_string", "spec_example", "CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA");

  UsFields us;
  us.sale_opt_out = 1;
  us.targeted_advertising_opt_out = 2;
  const std::string national = EncodeUsSection(7, us);
  const std::string california = EncodeUsSection(8, us);
  // The first byte chooses regs.gdpr and gpp_sid in the GPP target.
  Write("gpp_string", "tcf_and_us_national",
        std::string(1, '\x03') + EncodeGppString({{2, ranges}, {6, "1YNN"}, {7, national}}));
  Write("gpp_string", "california", std::string(1, '\x01') + EncodeGppString({{8, california}}));
  Write("gpp_string", "spec_header", std::string(1, '\0') + "DBABM~" + bit_field);
  // The state sections of 13 and up, each alone (no gpp_sid: it applies), an
  // opt-out in every other one.
  for (int id = 13; id <= 23; ++id) {
    UsFields state;
    state.processing_notice = 1;
    state.sale_opt_out = id % 2 + 1;
    state.additional_data_processing_consent = 2;
    state.gpc = id % 3 == 0;
    Write("gpp_string", "state_" + std::to_string(id),
          std::string(1, '\0') + EncodeGppString({{id, EncodeUsSection(id, state)}}));
  }
  // A broken TCF section beside valid US National and Texas sections; the
  // first byte makes gpp_sid [7, 16], so the broken section does not apply.
  Write("gpp_string", "broken_tcf_beside_us_sections",
        std::string(1, '\x0c') +
            EncodeGppString({{2, "1YNN"}, {7, national}, {16, EncodeUsSection(16, us)}}));
  Write("us_privacy", "opted_out", "1YYN");
  Write("us_privacy", "not_applicable", "1---");
}

}  // namespace
}  // namespace rtb::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR (tests/fuzz/corpus)\n", argv[0]);
    return 2;
  }
  rtb::fuzz::corpus = argv[1];
  rtb::fuzz::WriteThriftSeeds();
  rtb::fuzz::WriteBeaconSeeds();
  rtb::fuzz::WriteGorillaSeeds();
  rtb::fuzz::WritePrivacySeeds();
  std::printf("wrote %d seeds under %s\n", rtb::fuzz::written, argv[1]);
  return 0;
}

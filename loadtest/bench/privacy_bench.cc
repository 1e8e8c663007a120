// Privacy signals (issue 17): TC string decoding (target: 300 vendors in
// range encoding under 1 µs), vendor lookups, GPP decoding and the whole
// per-request decision.
//
//   build/loadtest/bench/privacy_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true   (one command line)
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "bidder/privacy/gpp_string.h"
#include "bidder/privacy/privacy_decision.h"
#include "bidder/privacy/tc_string.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder::privacy {
namespace {

using testing::EncodeGppString;
using testing::EncodeTcString;
using testing::EncodeUsSection;
using testing::TcFields;
using testing::UsFields;

constexpr int kOurVendor = 755;

// A TCF v2.2 string with purposes 1-11 consented and 300 consented vendors.
// `run` vendors in a row per range entry: 1 is the worst case for the range
// encoding (300 single-id entries, 17 bits each), 5 is closer to what CMPs
// write for sparse vendor lists.
std::string ThreeHundredVendors(int run, bool range_encoding) {
  TcFields f;
  f.purpose_consents = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  f.purpose_legitimate_interests = {2, 7, 8, 9, 10, 11};
  f.special_features = {1};
  for (int i = 0; f.vendor_consents.ids.size() < 299; ++i) {
    for (int k = 0; k < run && f.vendor_consents.ids.size() < 299; ++k) {
      f.vendor_consents.ids.push_back(1 + i * (run + 3) + k);
    }
  }
  f.vendor_consents.ids.push_back(kOurVendor);
  f.vendor_consents.range_encoding = range_encoding;
  for (int v = 2; v <= 120; v += 3) f.vendor_legitimate_interests.ids.push_back(v);
  f.vendor_legitimate_interests.range_encoding = true;
  f.restrictions = {{.purpose_id = 2, .type = 1, .ranges = {{10, 20}}}};
  return EncodeTcString(f);
}

void DecodeTc(benchmark::State& state, const std::string& text) {
  TcString tc;
  for (auto _ : state) {
    absl::Status s = DecodeTcString(text, &tc);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(tc.vendor_consents.max_vendor_id());
  }
  if (!DecodeTcString(text, &tc).ok()) state.SkipWithError("the string does not decode");
  state.counters["chars"] = static_cast<double>(text.size());
  state.counters["range_entries"] =
      static_cast<double>(testing::Runs(tc.vendor_consents.Ids()).size());
}

void BM_DecodeTcString_300VendorsRangeSingleIds(benchmark::State& state) {
  DecodeTc(state, ThreeHundredVendors(1, true));
}
BENCHMARK(BM_DecodeTcString_300VendorsRangeSingleIds);

void BM_DecodeTcString_300VendorsRangeRunsOf5(benchmark::State& state) {
  DecodeTc(state, ThreeHundredVendors(5, true));
}
BENCHMARK(BM_DecodeTcString_300VendorsRangeRunsOf5);

void BM_DecodeTcString_300VendorsBitField(benchmark::State& state) {
  DecodeTc(state, ThreeHundredVendors(1, false));
}
BENCHMARK(BM_DecodeTcString_300VendorsBitField);

// The StatusOr form, which builds a fresh TcString per call.
void BM_DecodeTcString_300VendorsRangeSingleIdsFreshValue(benchmark::State& state) {
  const std::string text = ThreeHundredVendors(1, true);
  for (auto _ : state) {
    absl::StatusOr<TcString> tc = DecodeTcString(text);
    benchmark::DoNotOptimize(tc);
  }
}
BENCHMARK(BM_DecodeTcString_300VendorsRangeSingleIdsFreshValue);

void BM_VendorConsentLookup(benchmark::State& state) {
  const TcString tc = *DecodeTcString(ThreeHundredVendors(1, state.range(0) != 0));
  int vendor = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tc.vendor_consents.Contains(vendor));
    vendor = vendor % 1300 + 7;
  }
  state.SetLabel(state.range(0) ? "300 range entries" : "bit field");
}
BENCHMARK(BM_VendorConsentLookup)->Arg(0)->Arg(1);

std::string Usnat(int sale_opt_out) {
  UsFields f;
  f.sharing_notice = 1;
  f.sale_opt_out_notice = 1;
  f.sharing_opt_out_notice = 1;
  f.targeted_advertising_opt_out_notice = 1;
  f.sale_opt_out = sale_opt_out;
  f.sharing_opt_out = 2;
  f.targeted_advertising_opt_out = 2;
  f.gpc = false;
  return EncodeUsSection(kGppUsNational, f);
}

void BM_DecodeGppString_TcfAndUsNational(benchmark::State& state) {
  const std::string text = EncodeGppString(
      {{kGppTcfEuV2, ThreeHundredVendors(5, true)}, {kGppUsPrivacy, "1YNN"}, {7, Usnat(2)}});
  GppString gpp;
  for (auto _ : state) {
    absl::Status s = DecodeGppString(text, &gpp);
    benchmark::DoNotOptimize(s);
  }
  state.counters["chars"] = static_cast<double>(text.size());
}
BENCHMARK(BM_DecodeGppString_TcfAndUsNational);

// US National beside three state sections (California, Texas, New Jersey,
// the longest lists), each with a GPC subsection: a string that lists every
// law a national publisher signals.
void BM_DecodeGppString_UsNationalAndStates(benchmark::State& state) {
  UsFields f;
  f.processing_notice = 1;
  f.sale_opt_out_notice = 1;
  f.targeted_advertising_opt_out_notice = 1;
  f.sale_opt_out = 2;
  f.targeted_advertising_opt_out = 2;
  f.gpc = false;
  const std::string text = EncodeGppString({{7, Usnat(2)},
                                            {kGppUsCalifornia, EncodeUsSection(8, f)},
                                            {kGppUsTexas, EncodeUsSection(16, f)},
                                            {kGppUsNewJersey, EncodeUsSection(21, f)}});
  GppString gpp;
  for (auto _ : state) {
    absl::Status s = DecodeGppString(text, &gpp);
    benchmark::DoNotOptimize(s);
  }
  if (gpp.us_sections.size() != 4) state.SkipWithError("not every section decoded");
  state.counters["chars"] = static_cast<double>(text.size());
}
BENCHMARK(BM_DecodeGppString_UsNationalAndStates);

void BM_DecidePrivacy_GdprConsent(benchmark::State& state) {
  const std::string consent = ThreeHundredVendors(5, true);
  config::PrivacyConfig config;
  config.gvl_vendor_id = kOurVendor;
  const PrivacySignals signals{.gdpr = true, .consent = consent, .device_country = "DEU"};
  if (DecidePrivacy(signals, config).outcome != PrivacyOutcome::kPersonalized) {
    state.SkipWithError("expected a personalised decision");
  }
  for (auto _ : state) benchmark::DoNotOptimize(DecidePrivacy(signals, config));
}
BENCHMARK(BM_DecidePrivacy_GdprConsent);

void BM_DecidePrivacy_UsNationalOptOut(benchmark::State& state) {
  const std::string gpp = EncodeGppString({{7, Usnat(1)}});
  const std::vector<int32_t> sid = {7};
  config::PrivacyConfig config;
  const PrivacySignals signals{.gpp = gpp, .gpp_sid = sid, .device_country = "USA"};
  if (DecidePrivacy(signals, config).outcome != PrivacyOutcome::kOptedOut) {
    state.SkipWithError("expected an opt-out");
  }
  for (auto _ : state) benchmark::DoNotOptimize(DecidePrivacy(signals, config));
}
BENCHMARK(BM_DecidePrivacy_UsNationalOptOut);

void BM_DecidePrivacy_NoSignals(benchmark::State& state) {
  config::PrivacyConfig config;
  const PrivacySignals signals{.device_country = "USA"};
  for (auto _ : state) benchmark::DoNotOptimize(DecidePrivacy(signals, config));
}
BENCHMARK(BM_DecidePrivacy_NoSignals);

}  // namespace
}  // namespace rtb::bidder::privacy

BENCHMARK_MAIN();

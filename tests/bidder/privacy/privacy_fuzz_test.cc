// Runs the decoders' fuzz entry points (the *_fuzz_target.cc files) over
// random bytes, random base64url text, mutated valid strings and every
// truncation of valid strings, so builds without libFuzzer exercise them too.
// Each entry point aborts on a broken promise; the decoders must return a
// value or an error for every input. Deterministic seeds.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bidder/privacy/gpp_string.h"
#include "bidder/privacy/tc_string.h"
#include "gtest/gtest.h"
#include "tests/bidder/privacy/privacy_encoder.h"

namespace rtb::bidder::privacy {

int FuzzTcString(const uint8_t* data, size_t size);
int FuzzGppString(const uint8_t* data, size_t size);
int FuzzUsPrivacy(const uint8_t* data, size_t size);

namespace {

using testing::EncodeGppString;
using testing::EncodeTcString;
using testing::EncodeUsSection;
using testing::TcFields;
using testing::UsFields;

constexpr char kBase64Url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int RunAll(const std::string& text, uint8_t choice) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  std::string with_choice(1, static_cast<char>(choice));
  with_choice += text;
  return FuzzTcString(bytes, text.size()) + FuzzUsPrivacy(bytes, text.size()) +
         FuzzGppString(reinterpret_cast<const uint8_t*>(with_choice.data()), with_choice.size());
}

// Valid strings of every kind the decoders read.
std::vector<std::string> Corpus(std::mt19937_64& rng) {
  std::vector<std::string> corpus;
  for (int i = 0; i < 40; ++i) {
    TcFields f;
    f.purpose_consents = {1, 2, static_cast<int>(1 + rng() % 24)};
    f.purpose_legitimate_interests = {static_cast<int>(1 + rng() % 24)};
    f.special_features = {static_cast<int>(1 + rng() % 12)};
    for (int v = 0, n = static_cast<int>(rng() % 60); v < n; ++v) {
      f.vendor_consents.ids.push_back(static_cast<int>(1 + rng() % 1500));
      f.vendor_legitimate_interests.ids.push_back(static_cast<int>(1 + rng() % 300));
    }
    f.vendor_consents.range_encoding = rng() % 2;
    f.vendor_legitimate_interests.range_encoding = rng() % 2;
    for (int r = 0, n = static_cast<int>(rng() % 3); r < n; ++r) {
      const int first = static_cast<int>(1 + rng() % 100);
      f.restrictions.push_back({static_cast<int>(1 + rng() % 11),
                                static_cast<int>(rng() % 4),
                                {{first, first + static_cast<int>(rng() % 20)}}});
    }
    if (rng() % 2) f.segment_types = {1 + static_cast<int>(rng() % 3)};
    corpus.push_back(EncodeTcString(f));
  }
  // Every US section the decoder reads (7 to 23), then a section it does not
  // read (24).
  for (int id = kGppUsNational; id <= kGppUsMinnesota; ++id) {
    for (int version : {1, 2}) {
      if (version == 2 && id != kGppUsNational) continue;
      UsFields f;
      f.version = version;
      f.processing_notice = static_cast<int>(rng() % 3);
      f.sale_opt_out = static_cast<int>(rng() % 3);
      f.targeted_advertising_opt_out = static_cast<int>(rng() % 3);
      f.additional_data_processing_consent = static_cast<int>(rng() % 3);
      f.gpc = rng() % 2 == 0;
      corpus.push_back(EncodeGppString(
          {{2, corpus[rng() % 40]}, {6, "1YNN"}, {id, EncodeUsSection(id, f)}, {24, "BAAA"}}));
    }
  }
  corpus.push_back("1YNN");
  corpus.push_back("1---");
  return corpus;
}

TEST(PrivacyFuzzTest, RandomBytesNeverCrashTheDecoders) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::string text(rng() % 80, '\0');
    for (char& c : text) c = static_cast<char>(rng());
    EXPECT_EQ(RunAll(text, static_cast<uint8_t>(rng())), 0);
  }
}

TEST(PrivacyFuzzTest, RandomBase64UrlTextNeverCrashesTheDecoders) {
  std::mt19937_64 rng(6);
  for (int i = 0; i < 20000; ++i) {
    std::string text(rng() % 120, 'A');
    for (char& c : text) {
      const uint64_t r = rng() % 70;
      c = r < 64 ? kBase64Url[r] : r < 67 ? '.' : '~';
    }
    // Mostly version 2 TC strings and GPP headers, so decoding goes deep.
    if (!text.empty() && rng() % 2) text[0] = rng() % 2 ? 'C' : 'D';
    if (text.size() > 1 && text[0] == 'D') text[1] = 'B';
    EXPECT_EQ(RunAll(text, static_cast<uint8_t>(rng())), 0);
  }
}

TEST(PrivacyFuzzTest, MutatedValidStringsNeverCrashTheDecoders) {
  std::mt19937_64 rng(7);
  const std::vector<std::string> corpus = Corpus(rng);
  int decoded = 0, refused = 0;
  for (int i = 0; i < 30000; ++i) {
    std::string text = corpus[rng() % corpus.size()];
    for (int m = 0, n = 1 + static_cast<int>(rng() % 3); m < n && !text.empty(); ++m) {
      const size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text[at] = kBase64Url[rng() % 64];
          break;
        case 1:
          text.erase(at, 1 + rng() % 3);
          break;
        case 2:
          text.insert(at, 1, "~.A_"[rng() % 4]);
          break;
        default:
          text[at] = static_cast<char>(rng());
          break;
      }
    }
    const bool ok = DecodeTcString(text).ok() || DecodeGppString(text).ok();
    decoded += ok;
    refused += !ok;
    EXPECT_EQ(RunAll(text, static_cast<uint8_t>(rng())), 0);
  }
  EXPECT_GT(decoded, 1000);
  EXPECT_GT(refused, 1000);
}

TEST(PrivacyFuzzTest, EveryTruncationOfValidStringsIsAValueOrAnError) {
  std::mt19937_64 rng(11);
  for (const std::string& text : Corpus(rng)) {
    for (size_t length = 0; length <= text.size(); ++length) {
      const std::string cut = text.substr(0, length);
      EXPECT_EQ(RunAll(cut, static_cast<uint8_t>(length)), 0);
    }
    // Cutting off the last section, or all of them: the header lists sections
    // the string lacks, so the whole string is malformed. (A cut inside a
    // section only makes that section malformed.)
    if (text[0] == 'D') {
      ASSERT_TRUE(DecodeGppString(text).ok()) << text;
      EXPECT_FALSE(DecodeGppString(text.substr(0, text.rfind('~'))).ok());
      EXPECT_FALSE(DecodeGppString(text.substr(0, text.find('~'))).ok());
    }
  }
}

}  // namespace
}  // namespace rtb::bidder::privacy

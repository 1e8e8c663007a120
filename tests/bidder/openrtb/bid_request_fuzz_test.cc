// Random mutations of real requests: the bid-path parser must never crash,
// must reject with InvalidArgument and a reason, and must agree with the
// nlohmann baseline on every input about accepting it and on the model.
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "bidder/openrtb/internal/nlohmann_reader.h"
#include "bidder/openrtb/openrtb.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/bidder/openrtb/fixture_requests.h"

namespace rtb::openrtb {
namespace {

constexpr uint64_t kSeed = 0x0b1d5eed;
constexpr int kMutantsPerSample = 6000;

constexpr std::string_view kJsonBytes = "{}[]:,\"\\ 0123456789-+.eEtrufalsn";
constexpr std::string_view kValues[] = {"null",
                                        "1e400",
                                        "-1",
                                        "0",
                                        "1",
                                        "2",
                                        "99999999999999999999",
                                        "3000000000",
                                        "0.5",
                                        "300.0",
                                        "\"x\"",
                                        "\"\"",
                                        "[]",
                                        "{}",
                                        "[1]",
                                        "[\"a\"]",
                                        "{\"id\":\"z\"}",
                                        "true",
                                        "false",
                                        "\"\\u00e9\"",
                                        "\"\\ud800\"",
                                        "[[[[[[[[",
                                        "\"\xC3\"",
                                        "\"a\\u0000b\"",
                                        "-0",
                                        "1E2"};

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string Mutate(std::string s) {
    const int rounds = 1 + static_cast<int>(Below(3));
    for (int i = 0; i < rounds; ++i) MutateOnce(s);
    return s;
  }

 private:
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }

  void MutateOnce(std::string& s) {
    if (s.empty()) {
      s.push_back(kJsonBytes[Below(kJsonBytes.size())]);
      return;
    }
    const size_t at = Below(s.size());
    switch (Below(8)) {
      case 0:  // any byte
        s[at] = static_cast<char>(Below(256));
        break;
      case 1:  // a byte that means something to JSON
        s[at] = kJsonBytes[Below(kJsonBytes.size())];
        break;
      case 2:
        s.erase(at, 1 + Below(8));
        break;
      case 3:
        s.insert(at, 1, kJsonBytes[Below(kJsonBytes.size())]);
        break;
      case 4: {  // copy a slice elsewhere
        const size_t from = Below(s.size());
        const std::string slice = s.substr(from, 1 + Below(24));
        s.insert(Below(s.size()), slice);
        break;
      }
      case 5:
        s.resize(at);
        break;
      default:  // replace the value after some ':' (mostly keeps the JSON valid)
        ReplaceValue(s, at);
        break;
    }
  }

  void ReplaceValue(std::string& s, size_t from) {
    const size_t colon = s.find(':', from);
    if (colon == std::string::npos) return;
    size_t start = colon + 1;
    while (start < s.size() && s[start] == ' ') ++start;
    size_t end = start;
    if (end < s.size() && s[end] == '"') {
      end = s.find('"', end + 1);
      end = end == std::string::npos ? s.size() : end + 1;
    } else if (end < s.size() && (s[end] == '{' || s[end] == '[')) {
      int depth = 0;
      for (; end < s.size(); ++end) {
        if (s[end] == '{' || s[end] == '[') ++depth;
        if (s[end] == '}' || s[end] == ']') {
          if (--depth == 0) {
            ++end;
            break;
          }
        }
      }
    } else {
      end = s.find_first_of(",}]", end);
      if (end == std::string::npos) end = s.size();
    }
    s.replace(start, end - start, kValues[Below(std::size(kValues))]);
  }

  std::mt19937_64 rng_;
};

bool HasDuplicateKeys(const std::string& json);

// JSON leaves the meaning of a key given twice open (RFC 8259, section 4):
// nlohmann keeps the last, the bid path checks each. Such inputs are only
// held to "no crash, InvalidArgument". The native request string is a
// document of its own, looked into as well.
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
    last_key_ = key;
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t& value) override {
    if (last_key_ == "request" && HasDuplicateKeys(value)) found_ = true;
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
  std::string last_key_;
  bool found_ = false;
};

bool HasDuplicateKeys(const std::string& json) {
  DuplicateKeyFinder finder;
  nlohmann::json::sax_parse(json, &finder, nlohmann::json::input_format_t::json,
                            /*strict=*/true, /*ignore_comments=*/false);
  return finder.found();
}

std::string Printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

TEST(BidRequestFuzzTest, MutatedRequestsNeverCrashAndAgreeWithTheBaseline) {
  std::vector<std::string> samples;
  for (auto& file : testing::LoadFixtureRequests()) samples.push_back(file.json);
  ASSERT_FALSE(samples.empty()) << "no fixture requests under " << RTB_OPENRTB_FIXTURES_DIR;
  samples.emplace_back(testing::kFullRequest26);

  Mutator mutator(kSeed);
  BidRequestParser parser;
  int accepted = 0;
  int rejected = 0;
  for (const std::string& sample : samples) {
    for (int i = 0; i < kMutantsPerSample; ++i) {
      const std::string mutant = mutator.Mutate(sample);
      absl::StatusOr<BidRequest> fast = parser.Parse(mutant);
      absl::StatusOr<BidRequest> baseline = internal::ParseBidRequestWithNlohmann(mutant);
      if (!fast.ok()) {
        ASSERT_EQ(fast.status().code(), absl::StatusCode::kInvalidArgument) << fast.status();
        ASSERT_FALSE(fast.status().message().empty());
      }
      if (HasDuplicateKeys(mutant)) continue;
      ASSERT_EQ(fast.ok(), baseline.ok())
          << "input: " << Printable(mutant) << "\nbid path: " << fast.status()
          << "\nbaseline: " << baseline.status();
      if (fast.ok()) {
        ASSERT_TRUE(*fast == *baseline) << "input: " << Printable(mutant);
        ++accepted;
      } else {
        ++rejected;
      }
    }
  }
  // The mutations must exercise both outcomes to mean anything.
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace rtb::openrtb

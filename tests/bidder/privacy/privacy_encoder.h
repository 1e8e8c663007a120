// Test-only encoders for the strings bidder/privacy decodes: TC strings, GPP
// headers and strings, GPP US sections. Written from the specifications'
// field tables, independently of the decoders, so that a test which encodes
// a value and decodes it checks the decoder against the format and not
// against itself.
#ifndef RTB_TESTS_BIDDER_PRIVACY_PRIVACY_ENCODER_H_
#define RTB_TESTS_BIDDER_PRIVACY_PRIVACY_ENCODER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rtb::bidder::privacy::testing {

// Bits appended most significant first, read out as base64url without
// padding (the last character padded with zero bits).
class BitWriter {
 public:
  void Write(uint64_t value, int bits);
  void WriteBool(bool value) { Write(value ? 1 : 0, 1); }
  // Fibonacci code of n >= 1 (Zeckendorf terms 1, 2, 3, 5, ... least
  // significant first, then a closing 1).
  void WriteFibonacci(uint64_t n);
  size_t size() const { return bits_.size(); }
  std::string ToBase64Url() const;

 private:
  std::vector<bool> bits_;
};

// One vendor section of a TC string.
struct TcVendors {
  std::vector<int> ids;         // vendors with consent (or LI), any order
  int max_vendor_id = -1;       // -1: the largest id (0 when none)
  bool range_encoding = false;  // else a bit field
  // Range entries written in this order instead of ascending (each a pair
  // first..last); used to test unsorted and overlapping entries.
  std::vector<std::pair<int, int>> explicit_ranges;
};

// One publisher restriction entry: a purpose, a type and vendor ranges.
struct TcRestriction {
  int purpose_id = 0;
  int type = 0;
  std::vector<std::pair<int, int>> ranges;
};

// Every field of a TC string core segment, and the segments after it.
struct TcFields {
  int version = 2;
  int64_t created_ds = 17000000000;
  int64_t last_updated_ds = 17000000100;
  int cmp_id = 7;
  int cmp_version = 3;
  int consent_screen = 1;
  std::string consent_language = "EN";
  int vendor_list_version = 48;
  int policy_version = 4;
  bool is_service_specific = true;
  bool use_non_standard_texts = false;
  std::vector<int> special_features;
  std::vector<int> purpose_consents;
  std::vector<int> purpose_legitimate_interests;
  bool purpose_one_treatment = false;
  std::string publisher_country = "DE";
  TcVendors vendor_consents;
  TcVendors vendor_legitimate_interests;
  std::vector<TcRestriction> restrictions;
  // Types (1..7) of segments appended after the core, each carrying a few
  // bits after its type.
  std::vector<int> segment_types;
};

// The core segment's bits (for tests that cut or corrupt them).
BitWriter EncodeTcCore(const TcFields& fields);
std::string EncodeTcString(const TcFields& fields);

// Ids grouped into ascending runs (first, last).
std::vector<std::pair<int, int>> Runs(std::vector<int> ids);

// A GPP header listing `section_ids` (ascending), consecutive ids as ranges.
std::string EncodeGppHeader(const std::vector<int>& section_ids);
// A GPP string: header, then the sections' texts in the given order.
std::string EncodeGppString(const std::vector<std::pair<int, std::string>>& sections);

// The values of a US section, raw 2-bit values; fields a section lacks are
// not written.
struct UsFields {
  int version = 1;
  int processing_notice = 0;
  int sharing_notice = 0;
  int sale_opt_out_notice = 0;
  int sharing_opt_out_notice = 0;
  int targeted_advertising_opt_out_notice = 0;
  int sensitive_data_processing_opt_out_notice = 0;
  int sensitive_data_limit_use_notice = 0;
  int sale_opt_out = 0;
  int sharing_opt_out = 0;
  int targeted_advertising_opt_out = 0;
  std::vector<int> sensitive_data_processing;  // as many as the section has
  std::vector<int> known_child_sensitive_data_consents;
  int personal_data_consents = 0;
  int additional_data_processing_consent = 0;
  int mspa_covered_transaction = 1;
  int mspa_opt_out_option_mode = 0;
  int mspa_service_provider_mode = 0;
  std::optional<bool> gpc;  // a GPC subsection when set
};

// How many sensitive-data and known-child values section `id` at `version`
// has (0, 0 when the encoder does not know the section).
std::pair<int, int> UsSectionListSizes(int id, int version);

// Section `id` (7..23) of `fields`; lists shorter than the section's are
// padded with 0.
std::string EncodeUsSection(int id, const UsFields& fields);

}  // namespace rtb::bidder::privacy::testing

#endif  // RTB_TESTS_BIDDER_PRIVACY_PRIVACY_ENCODER_H_

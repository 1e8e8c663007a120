#include "tests/bidder/privacy/privacy_encoder.h"

#include <algorithm>
#include <stdexcept>

namespace rtb::bidder::privacy::testing {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

uint64_t BitsOf(const std::vector<int>& ids, int width) {
  uint64_t field = 0;
  for (int id : ids) field |= uint64_t{1} << (width - id);
  return field;
}

void WriteLetters(BitWriter& w, const std::string& letters) {
  w.Write(static_cast<uint64_t>(letters.at(0) - 'A'), 6);
  w.Write(static_cast<uint64_t>(letters.at(1) - 'A'), 6);
}

void WriteRangeEntries(BitWriter& w, const std::vector<std::pair<int, int>>& ranges) {
  w.Write(ranges.size(), 12);
  for (const auto& [first, last] : ranges) {
    w.WriteBool(first != last);
    w.Write(static_cast<uint64_t>(first), 16);
    if (first != last) w.Write(static_cast<uint64_t>(last), 16);
  }
}

void WriteVendors(BitWriter& w, const TcVendors& vendors) {
  int max = vendors.max_vendor_id;
  if (max < 0) {
    max = 0;
    for (int id : vendors.ids) max = std::max(max, id);
    for (const auto& range : vendors.explicit_ranges) max = std::max(max, range.second);
  }
  w.Write(static_cast<uint64_t>(max), 16);
  w.WriteBool(vendors.range_encoding);
  if (vendors.range_encoding) {
    WriteRangeEntries(
        w, vendors.explicit_ranges.empty() ? Runs(vendors.ids) : vendors.explicit_ranges);
    return;
  }
  std::vector<bool> bits(max, false);
  for (int id : vendors.ids) bits.at(id - 1) = true;
  for (bool bit : bits) w.WriteBool(bit);
}

}  // namespace

void BitWriter::Write(uint64_t value, int bits) {
  for (int i = bits - 1; i >= 0; --i) bits_.push_back(((value >> i) & 1) != 0);
}

void BitWriter::WriteFibonacci(uint64_t n) {
  if (n == 0) throw std::invalid_argument("Fibonacci code of 0");
  std::vector<uint64_t> terms = {1, 2};
  while (terms.back() <= n) terms.push_back(terms[terms.size() - 1] + terms[terms.size() - 2]);
  std::vector<bool> code(terms.size(), false);
  for (int i = static_cast<int>(terms.size()) - 1; i >= 0; --i) {
    if (terms[i] <= n) {
      code[i] = true;
      n -= terms[i];
    }
  }
  while (!code.back()) code.pop_back();
  for (bool bit : code) bits_.push_back(bit);
  bits_.push_back(true);
}

std::string BitWriter::ToBase64Url() const {
  std::string text;
  for (size_t i = 0; i < bits_.size(); i += 6) {
    int value = 0;
    for (size_t j = i; j < i + 6; ++j) value = value * 2 + (j < bits_.size() && bits_[j] ? 1 : 0);
    text.push_back(kAlphabet[value]);
  }
  return text;
}

std::vector<std::pair<int, int>> Runs(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::pair<int, int>> runs;
  for (int id : ids) {
    if (!runs.empty() && runs.back().second + 1 == id) {
      runs.back().second = id;
    } else {
      runs.emplace_back(id, id);
    }
  }
  return runs;
}

BitWriter EncodeTcCore(const TcFields& f) {
  BitWriter w;
  w.Write(static_cast<uint64_t>(f.version), 6);
  w.Write(static_cast<uint64_t>(f.created_ds), 36);
  w.Write(static_cast<uint64_t>(f.last_updated_ds), 36);
  w.Write(static_cast<uint64_t>(f.cmp_id), 12);
  w.Write(static_cast<uint64_t>(f.cmp_version), 12);
  w.Write(static_cast<uint64_t>(f.consent_screen), 6);
  WriteLetters(w, f.consent_language);
  w.Write(static_cast<uint64_t>(f.vendor_list_version), 12);
  w.Write(static_cast<uint64_t>(f.policy_version), 6);
  w.WriteBool(f.is_service_specific);
  w.WriteBool(f.use_non_standard_texts);
  w.Write(BitsOf(f.special_features, 12), 12);
  w.Write(BitsOf(f.purpose_consents, 24), 24);
  w.Write(BitsOf(f.purpose_legitimate_interests, 24), 24);
  w.WriteBool(f.purpose_one_treatment);
  WriteLetters(w, f.publisher_country);
  WriteVendors(w, f.vendor_consents);
  WriteVendors(w, f.vendor_legitimate_interests);
  w.Write(f.restrictions.size(), 12);
  for (const TcRestriction& r : f.restrictions) {
    w.Write(static_cast<uint64_t>(r.purpose_id), 6);
    w.Write(static_cast<uint64_t>(r.type), 2);
    WriteRangeEntries(w, r.ranges);
  }
  return w;
}

std::string EncodeTcString(const TcFields& fields) {
  std::string text = EncodeTcCore(fields).ToBase64Url();
  for (int type : fields.segment_types) {
    BitWriter segment;
    segment.Write(static_cast<uint64_t>(type), 3);
    // What follows the type is not read; a vendor-section-like body.
    segment.Write(30, 16);
    segment.WriteBool(false);
    segment.Write(0x2aaaaaaa, 30);
    text += "." + segment.ToBase64Url();
  }
  return text;
}

std::string EncodeGppHeader(const std::vector<int>& section_ids) {
  BitWriter w;
  w.Write(3, 6);
  w.Write(1, 6);
  const std::vector<std::pair<int, int>> runs = Runs(section_ids);
  w.Write(runs.size(), 12);
  int last = 0;
  for (const auto& [first, end] : runs) {
    w.WriteBool(first != end);
    w.WriteFibonacci(static_cast<uint64_t>(first - last));
    if (first != end) w.WriteFibonacci(static_cast<uint64_t>(end - first));
    last = end;
  }
  return w.ToBase64Url();
}

std::string EncodeGppString(const std::vector<std::pair<int, std::string>>& sections) {
  std::vector<int> ids;
  for (const auto& section : sections) ids.push_back(section.first);
  std::string text = EncodeGppHeader(ids);
  for (const auto& section : sections) text += "~" + section.second;
  return text;
}

std::pair<int, int> UsSectionListSizes(int id, int version) {
  switch (id) {
    case 7:
      return version == 2 ? std::pair{16, 3} : std::pair{12, 2};
    case 8:
      return {9, 2};
    case 9:
      return {8, 1};
    case 10:
      return {7, 1};
    case 11:
      return {8, 1};
    case 12:
      return {8, 3};
    case 13:  // Florida
    case 14:  // Montana
    case 20:  // New Hampshire
      return {8, 3};
    case 15:  // Oregon
      return {11, 3};
    case 16:  // Texas
    case 18:  // Iowa
    case 19:  // Nebraska
    case 22:  // Tennessee
    case 23:  // Minnesota
      return {8, 1};
    case 17:  // Delaware
      return {9, 5};
    case 21:  // New Jersey
      return {10, 5};
    default:
      return {0, 0};
  }
}

std::string EncodeUsSection(int id, const UsFields& f) {
  BitWriter w;
  auto list = [&](std::vector<int> values, int size) {
    values.resize(size, 0);
    for (int v : values) w.Write(static_cast<uint64_t>(v), 2);
  };
  const auto [sensitive, child] = UsSectionListSizes(id, f.version);
  w.Write(static_cast<uint64_t>(f.version), 6);
  // Field order of each section's core subsection, from its specification.
  switch (id) {
    case 7:  // US National
      for (int v : {f.sharing_notice, f.sale_opt_out_notice, f.sharing_opt_out_notice,
                    f.targeted_advertising_opt_out_notice,
                    f.sensitive_data_processing_opt_out_notice, f.sensitive_data_limit_use_notice,
                    f.sale_opt_out, f.sharing_opt_out, f.targeted_advertising_opt_out}) {
        w.Write(static_cast<uint64_t>(v), 2);
      }
      list(f.sensitive_data_processing, sensitive);
      list(f.known_child_sensitive_data_consents, child);
      w.Write(static_cast<uint64_t>(f.personal_data_consents), 2);
      break;
    case 8:  // California
      for (int v : {f.sale_opt_out_notice, f.sharing_opt_out_notice,
                    f.sensitive_data_limit_use_notice, f.sale_opt_out, f.sharing_opt_out}) {
        w.Write(static_cast<uint64_t>(v), 2);
      }
      list(f.sensitive_data_processing, sensitive);
      list(f.known_child_sensitive_data_consents, child);
      w.Write(static_cast<uint64_t>(f.personal_data_consents), 2);
      break;
    case 9:   // Virginia
    case 10:  // Colorado
    case 12:  // Connecticut
      for (int v : {f.sharing_notice, f.sale_opt_out_notice, f.targeted_advertising_opt_out_notice,
                    f.sale_opt_out, f.targeted_advertising_opt_out}) {
        w.Write(static_cast<uint64_t>(v), 2);
      }
      list(f.sensitive_data_processing, sensitive);
      list(f.known_child_sensitive_data_consents, child);
      break;
    case 11:  // Utah
      for (int v : {f.sharing_notice, f.sale_opt_out_notice, f.targeted_advertising_opt_out_notice,
                    f.sensitive_data_processing_opt_out_notice, f.sale_opt_out,
                    f.targeted_advertising_opt_out}) {
        w.Write(static_cast<uint64_t>(v), 2);
      }
      list(f.sensitive_data_processing, sensitive);
      list(f.known_child_sensitive_data_consents, child);
      break;
    case 14:  // Montana: a sharing notice where the others have a processing notice
      for (int v : {f.sharing_notice, f.sale_opt_out_notice, f.targeted_advertising_opt_out_notice,
                    f.sale_opt_out, f.targeted_advertising_opt_out}) {
        w.Write(static_cast<uint64_t>(v), 2);
      }
      list(f.sensitive_data_processing, sensitive);
      list(f.known_child_sensitive_data_consents, child);
      w.Write(static_cast<uint64_t>(f.additional_data_processing_consent), 2);
      break;
    case 18:  // Iowa: a sensitive-data notice, no additional-processing consent
      for (int v :
           {f.processing_notice, f.sale_opt_out_notice, f.targeted_advertising_opt_out_notice,
            f.sensitive_data_processing_opt_out_notice, f.sale_opt_out,
            f.targeted_advertising_opt_out}) {
        w.Write(static_cast<uint64_t>(v), 2);
      }
      list(f.sensitive_data_processing, sensitive);
      list(f.known_child_sensitive_data_consents, child);
      break;
    case 13:  // Florida
    case 15:  // Oregon
    case 16:  // Texas
    case 17:  // Delaware
    case 19:  // Nebraska
    case 20:  // New Hampshire
    case 21:  // New Jersey
    case 22:  // Tennessee
    case 23:  // Minnesota
      for (int v :
           {f.processing_notice, f.sale_opt_out_notice, f.targeted_advertising_opt_out_notice,
            f.sale_opt_out, f.targeted_advertising_opt_out}) {
        w.Write(static_cast<uint64_t>(v), 2);
      }
      list(f.sensitive_data_processing, sensitive);
      list(f.known_child_sensitive_data_consents, child);
      w.Write(static_cast<uint64_t>(f.additional_data_processing_consent), 2);
      break;
    default:
      throw std::invalid_argument("no US section encoding for this id");
  }
  for (int v :
       {f.mspa_covered_transaction, f.mspa_opt_out_option_mode, f.mspa_service_provider_mode}) {
    w.Write(static_cast<uint64_t>(v), 2);
  }
  std::string text = w.ToBase64Url();
  if (f.gpc.has_value()) {
    BitWriter gpc;
    gpc.Write(1, 2);
    gpc.WriteBool(*f.gpc);
    text += "." + gpc.ToBase64Url();
  }
  return text;
}

}  // namespace rtb::bidder::privacy::testing

// Money conversion for floors and bid prices, from bid.currency_rates
// (USD per one unit of each currency, e.g. "EUR": 1.08 means 1 EUR buys
// 1.08 USD). Amounts are CPM doubles; no rounding happens here, the response
// writer prints the shortest decimal that reads back as the same double.
//
// Codes are ISO 4217, three ASCII letters; lookups ignore case, since some
// exchanges send "usd". A code we have no rate for is absent (nullopt), never
// a guessed rate.
//
// Thread-safety: immutable after construction; share freely.
#ifndef RTB_BIDDER_BID_CURRENCY_H_
#define RTB_BIDDER_BID_CURRENCY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rtb::bidder {

// A currency code packed into 32 bits ("EUR" -> 'E' | 'U' << 8 | 'R' << 16),
// upper-cased; 0 when the text is not three ASCII letters.
uint32_t PackCurrencyCode(std::string_view code);

class CurrencyTable {
 public:
  // InvalidArgument for a code that is not three letters or a rate that is not
  // finite and > 0. "USD" is added with rate 1 when missing.
  static absl::StatusOr<CurrencyTable> Create(const std::map<std::string, double>& usd_per_unit);

  bool Has(std::string_view code) const { return Find(PackCurrencyCode(code)) != nullptr; }
  bool Has(uint32_t packed) const { return Find(packed) != nullptr; }

  // `amount` of `from` expressed in `to`; nullopt when either is unknown.
  std::optional<double> Convert(double amount, std::string_view from, std::string_view to) const {
    return Convert(amount, PackCurrencyCode(from), PackCurrencyCode(to));
  }
  std::optional<double> Convert(double amount, uint32_t from, uint32_t to) const;

 private:
  struct Rate {
    uint32_t code;
    double usd_per_unit;
  };
  const Rate* Find(uint32_t packed) const;

  // Sorted by code; a handful of entries, so a search beats hashing.
  std::vector<Rate> rates_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_BID_CURRENCY_H_

#include "bidder/bid/currency.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rtb::bidder {

uint32_t PackCurrencyCode(std::string_view code) {
  if (code.size() != 3) return 0;
  uint32_t packed = 0;
  for (size_t i = 0; i < 3; ++i) {
    char c = code[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - ('a' - 'A'));
    if (c < 'A' || c > 'Z') return 0;
    packed |= static_cast<uint32_t>(static_cast<unsigned char>(c)) << (8 * i);
  }
  return packed;
}

absl::StatusOr<CurrencyTable> CurrencyTable::Create(
    const std::map<std::string, double>& usd_per_unit) {
  CurrencyTable table;
  for (const auto& [code, rate] : usd_per_unit) {
    const uint32_t packed = PackCurrencyCode(code);
    if (packed == 0) {
      return absl::InvalidArgumentError(absl::StrCat("currency code \"", code, "\": not ISO 4217"));
    }
    if (!std::isfinite(rate) || rate <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("currency ", code, ": rate must be > 0"));
    }
    table.rates_.push_back({packed, rate});
  }
  const uint32_t usd = PackCurrencyCode("USD");
  if (std::none_of(table.rates_.begin(), table.rates_.end(),
                   [usd](const Rate& r) { return r.code == usd; })) {
    table.rates_.push_back({usd, 1.0});
  }
  std::sort(table.rates_.begin(), table.rates_.end(),
            [](const Rate& a, const Rate& b) { return a.code < b.code; });
  for (size_t i = 1; i < table.rates_.size(); ++i) {
    if (table.rates_[i].code == table.rates_[i - 1].code) {
      return absl::InvalidArgumentError("currency codes must be unique ignoring case");
    }
  }
  return table;
}

const CurrencyTable::Rate* CurrencyTable::Find(uint32_t packed) const {
  if (packed == 0) return nullptr;
  auto it = std::lower_bound(rates_.begin(), rates_.end(), packed,
                             [](const Rate& r, uint32_t code) { return r.code < code; });
  return it != rates_.end() && it->code == packed ? &*it : nullptr;
}

std::optional<double> CurrencyTable::Convert(double amount, uint32_t from, uint32_t to) const {
  if (from == to && from != 0) {
    if (Find(from) == nullptr) return std::nullopt;
    return amount;
  }
  const Rate* f = Find(from);
  const Rate* t = Find(to);
  if (f == nullptr || t == nullptr) return std::nullopt;
  return amount * f->usd_per_unit / t->usd_per_unit;
}

}  // namespace rtb::bidder

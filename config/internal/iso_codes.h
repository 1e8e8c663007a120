// Membership tests for the ISO code lists configuration values are checked
// against.
#ifndef RTB_CONFIG_INTERNAL_ISO_CODES_H_
#define RTB_CONFIG_INTERNAL_ISO_CODES_H_

#include <string_view>

namespace rtb::config::internal {

// An assigned ISO 3166-1 alpha-3 code, upper case ("USA").
bool IsIsoCountryAlpha3(std::string_view code);

// An ISO 4217 currency code, upper case ("EUR").
bool IsIsoCurrencyCode(std::string_view code);

}  // namespace rtb::config::internal

#endif  // RTB_CONFIG_INTERNAL_ISO_CODES_H_

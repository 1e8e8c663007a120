// The TC string decoder's fuzz entry point: tests/fuzz builds it into the
// libFuzzer target tc_string_fuzzer (Fuzz build type) and replays its
// corpus, and privacy_fuzz_test.cc calls FuzzTcString on every compiler.
//
// Whatever the bytes, the decoder returns a value or an error without reading
// outside the input (ASan checks that), and a value it returns keeps the
// format's promises: no vendor 0 or above MaxVendorId, restriction ranges in
// order, and a second decode into a reused value gives the same answer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "bidder/privacy/tc_string.h"

namespace rtb::bidder::privacy {

int FuzzTcString(const uint8_t* data, size_t size) {
  // A heap copy of exactly `size` bytes, so ASan sees a read one past it.
  auto* copy = static_cast<char*>(std::malloc(size == 0 ? 1 : size));
  if (size > 0) std::memcpy(copy, data, size);
  const std::string_view text(copy, size);
  absl::StatusOr<TcString> tc = DecodeTcString(text);
  if (tc.ok()) {
    for (const VendorSet* set : {&tc->vendor_consents, &tc->vendor_legitimate_interests}) {
      if (set->Contains(0) || set->Contains(set->max_vendor_id() + 1)) std::abort();
      for (int id : set->Ids()) {
        if (id < 1 || id > set->max_vendor_id() || !set->Contains(id)) std::abort();
      }
    }
    for (const PublisherRestriction& r : tc->publisher_restrictions) {
      if (r.vendors.first < 1 || r.vendors.last < r.vendors.first) std::abort();
    }
    if (tc->version != 2 || tc->consent_language.size() != 2) std::abort();
    TcString reused;
    reused.vendor_consents = tc->vendor_legitimate_interests;
    reused.publisher_restrictions.resize(3);
    if (!DecodeTcString(text, &reused).ok()) std::abort();
    if (reused.vendor_consents.Ids() != tc->vendor_consents.Ids() ||
        reused.publisher_restrictions != tc->publisher_restrictions ||
        reused.purpose_consents != tc->purpose_consents) {
      std::abort();
    }
  }
  std::free(copy);
  return 0;
}

}  // namespace rtb::bidder::privacy

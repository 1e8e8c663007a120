#include "bidder/bid/device_key.h"

#include <algorithm>

#include "storage/key_bytes.h"

namespace rtb::bidder {
namespace {

std::string_view Trim(std::string_view id) {
  while (!id.empty() && static_cast<unsigned char>(id.front()) <= 0x20) id.remove_prefix(1);
  while (!id.empty() && static_cast<unsigned char>(id.back()) <= 0x20) id.remove_suffix(1);
  return id;
}

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

// Case-insensitive equality with a lower-case literal.
bool EqualsLower(std::string_view id, std::string_view lower) {
  if (id.size() != lower.size()) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    if (LowerAscii(id[i]) != lower[i]) return false;
  }
  return true;
}

}  // namespace

std::string DeviceKey::Hex() const { return storage::Hex(bytes()); }

DeviceKeyHasher::DeviceKeyHasher(std::string_view secret) : hmac_(secret) {}

DeviceKey DeviceKeyHasher::Hash(std::string_view id) const {
  id = Trim(id);
  // Ids are short; normalise on the stack, and only very long ones on the heap.
  char stack_buffer[128];
  std::string heap_buffer;
  char* normalised = stack_buffer;
  if (id.size() > sizeof(stack_buffer)) {
    heap_buffer.resize(id.size());
    normalised = heap_buffer.data();
  }
  std::transform(id.begin(), id.end(), normalised, LowerAscii);
  const internal::HmacSha256::Digest digest = hmac_.Mac(std::string_view(normalised, id.size()));
  DeviceKey key;
  std::copy_n(reinterpret_cast<const char*>(digest.data()), events::kUserKeyBytes,
              key.bytes_.begin());
  return key;
}

DeviceKey DeviceKeyHasher::FrequencyCapKey(const DeviceKey& device,
                                           std::string_view qualifier) const {
  // Normalised ids never start with a byte <= 0x20 (Trim), so this message
  // is never one that Hash() MACs.
  static constexpr std::string_view kDomain("\0rtb-frequency-cap-key-v1\0", 26);
  const internal::HmacSha256::Digest digest = hmac_.Mac({kDomain, device.bytes(), qualifier});
  DeviceKey key;
  std::copy_n(reinterpret_cast<const char*>(digest.data()), events::kUserKeyBytes,
              key.bytes_.begin());
  return key;
}

std::string NormaliseDeviceId(std::string_view id) {
  id = Trim(id);
  std::string normalised(id.size(), '\0');
  std::transform(id.begin(), id.end(), normalised.begin(), LowerAscii);
  return normalised;
}

bool IsKnownInvalidDeviceId(std::string_view id) {
  id = Trim(id);
  if (id.empty()) return true;
  if (std::all_of(id.begin(), id.end(), [](char c) { return c == '0' || c == '-'; })) return true;
  for (std::string_view placeholder : {"null", "(null)", "undefined", "unknown", "none"}) {
    if (EqualsLower(id, placeholder)) return true;
  }
  return false;
}

DeviceIdentity ResolveDeviceIdentity(const openrtb::BidRequest& request,
                                     const DeviceKeyPolicy& policy, const DeviceKeyHasher& hasher) {
  DeviceIdentity identity;
  if (policy.coppa_contextual && request.regs.has_value() && request.regs->coppa.value_or(false)) {
    identity.skip = LookupSkipReason::kCoppa;
    return identity;
  }
  const openrtb::Device* device = request.device.has_value() ? &*request.device : nullptr;
  if (device != nullptr && policy.skip_lookup_on_lmt && device->lmt.value_or(false)) {
    identity.skip = LookupSkipReason::kLimitAdTracking;
    return identity;
  }
  if (device != nullptr && policy.skip_lookup_on_dnt && device->dnt.value_or(false)) {
    identity.skip = LookupSkipReason::kDoNotTrack;
    return identity;
  }
  bool any_id = false;
  auto try_id = [&](std::string_view id, DeviceIdSource source) {
    if (id.empty()) return false;
    any_id = true;
    if (IsKnownInvalidDeviceId(id)) return false;
    identity.key = hasher.Hash(id);
    identity.source = source;
    return true;
  };
  if (device != nullptr && try_id(device->ifa, DeviceIdSource::kIfa)) return identity;
  if (request.user.has_value() && try_id(request.user->buyeruid, DeviceIdSource::kBuyerUid)) {
    return identity;
  }
  identity.skip = any_id ? LookupSkipReason::kInvalidDeviceId : LookupSkipReason::kNoDeviceId;
  return identity;
}

}  // namespace rtb::bidder

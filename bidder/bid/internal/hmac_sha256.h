// HMAC-SHA256 (RFC 2104) with the key's pad blocks hashed once, at
// construction: each MAC then costs the message's SHA-256 blocks plus one,
// with no allocation. The bid path computes several per request (the device
// key, the signatures of the beacon URLs), and OpenSSL's EVP_MAC costs about
// four times as much per call because every call re-creates provider state.
//
// The key bytes are not kept; only the two hashed pad states are.
//
// Thread-safety: Mac() is const and safe to call from any number of threads.
#ifndef RTB_BIDDER_BID_INTERNAL_HMAC_SHA256_H_
#define RTB_BIDDER_BID_INTERNAL_HMAC_SHA256_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string_view>

namespace rtb::bidder::internal {

class HmacSha256 {
 public:
  static constexpr size_t kSize = 32;
  using Digest = std::array<uint8_t, kSize>;

  explicit HmacSha256(std::string_view key);
  ~HmacSha256();
  HmacSha256(HmacSha256&&) noexcept;
  HmacSha256& operator=(HmacSha256&&) noexcept;
  HmacSha256(const HmacSha256&) = delete;
  HmacSha256& operator=(const HmacSha256&) = delete;

  Digest Mac(std::string_view message) const;
  // The MAC of the concatenation of `parts`, without building it.
  Digest Mac(std::initializer_list<std::string_view> parts) const;

  // A MAC in progress: copy it to finish several messages that share a
  // prefix while hashing the prefix once.
  class Partial {
   public:
    void Update(std::string_view part);

   private:
    friend class HmacSha256;
    // Holds a SHA256_CTX (checked in the .cc); a plain copyable value.
    alignas(8) std::array<unsigned char, 128> state_;
  };
  Partial Begin() const;
  Digest Finish(Partial partial) const;

 private:
  struct PadStates;
  std::unique_ptr<PadStates> pads_;
};

// SHA-256 (no key) of the concatenation of `parts`.
HmacSha256::Digest Sha256(std::initializer_list<std::string_view> parts);

// Constant-time comparison of two byte strings of equal length; false when
// the lengths differ.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace rtb::bidder::internal

#endif  // RTB_BIDDER_BID_INTERNAL_HMAC_SHA256_H_

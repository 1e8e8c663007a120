// OpenSSL 3 marks the SHA256_* block API deprecated in favour of EVP, whose
// per-call provider overhead is what this file exists to avoid. The block API
// is still OpenSSL's SHA-256 (with its SHA-NI / AVX2 code); the tests check
// this HMAC against EVP_MAC and against `openssl dgst -hmac`.
#define OPENSSL_SUPPRESS_DEPRECATED

#include "bidder/bid/internal/hmac_sha256.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <cstring>

namespace rtb::bidder::internal {

static_assert(sizeof(SHA256_CTX) <= 128 && alignof(SHA256_CTX) <= 8);

struct HmacSha256::PadStates {
  SHA256_CTX inner;  // after hashing key ^ ipad
  SHA256_CTX outer;  // after hashing key ^ opad
};

HmacSha256::HmacSha256(std::string_view key) : pads_(std::make_unique<PadStates>()) {
  constexpr size_t kBlock = SHA256_CBLOCK;
  uint8_t block[kBlock] = {};
  if (key.size() > kBlock) {
    SHA256(reinterpret_cast<const uint8_t*>(key.data()), key.size(), block);
  } else {
    std::memcpy(block, key.data(), key.size());
  }
  uint8_t pad[kBlock];
  for (size_t i = 0; i < kBlock; ++i) pad[i] = block[i] ^ 0x36;
  SHA256_Init(&pads_->inner);
  SHA256_Update(&pads_->inner, pad, kBlock);
  for (size_t i = 0; i < kBlock; ++i) pad[i] = block[i] ^ 0x5c;
  SHA256_Init(&pads_->outer);
  SHA256_Update(&pads_->outer, pad, kBlock);
  OPENSSL_cleanse(block, sizeof(block));
  OPENSSL_cleanse(pad, sizeof(pad));
}

HmacSha256::~HmacSha256() {
  if (pads_ != nullptr) OPENSSL_cleanse(pads_.get(), sizeof(PadStates));
}
HmacSha256::HmacSha256(HmacSha256&&) noexcept = default;
HmacSha256& HmacSha256::operator=(HmacSha256&&) noexcept = default;

HmacSha256::Digest HmacSha256::Mac(std::string_view message) const { return Mac({message}); }

HmacSha256::Digest HmacSha256::Mac(std::initializer_list<std::string_view> parts) const {
  SHA256_CTX ctx = pads_->inner;
  for (std::string_view part : parts) SHA256_Update(&ctx, part.data(), part.size());
  uint8_t inner_digest[kSize];
  SHA256_Final(inner_digest, &ctx);
  ctx = pads_->outer;
  SHA256_Update(&ctx, inner_digest, kSize);
  Digest digest;
  SHA256_Final(digest.data(), &ctx);
  return digest;
}

HmacSha256::Digest Sha256(std::initializer_list<std::string_view> parts) {
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  for (std::string_view part : parts) SHA256_Update(&ctx, part.data(), part.size());
  HmacSha256::Digest digest;
  SHA256_Final(digest.data(), &ctx);
  return digest;
}

HmacSha256::Partial HmacSha256::Begin() const {
  Partial partial;
  std::memcpy(partial.state_.data(), &pads_->inner, sizeof(SHA256_CTX));
  return partial;
}

// The state is copied in and out rather than aliased, which keeps the byte
// array a byte array as far as the compiler is concerned.
void HmacSha256::Partial::Update(std::string_view part) {
  SHA256_CTX ctx;
  std::memcpy(&ctx, state_.data(), sizeof(ctx));
  SHA256_Update(&ctx, part.data(), part.size());
  std::memcpy(state_.data(), &ctx, sizeof(ctx));
}

HmacSha256::Digest HmacSha256::Finish(Partial partial) const {
  SHA256_CTX ctx;
  std::memcpy(&ctx, partial.state_.data(), sizeof(ctx));
  uint8_t inner_digest[kSize];
  SHA256_Final(inner_digest, &ctx);
  ctx = pads_->outer;
  SHA256_Update(&ctx, inner_digest, kSize);
  Digest digest;
  SHA256_Final(digest.data(), &ctx);
  return digest;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace rtb::bidder::internal

#include "pricing/bucket.h"

#include "storage/key_bytes.h"

namespace rtb::pricing {
namespace {

constexpr uint64_t kLowBits = 0x0000ffffffffffffULL;

uint64_t Clamp16(int v) { return v < 0 ? 0 : v > 0xffff ? 0xffff : static_cast<uint64_t>(v); }

}  // namespace

uint64_t ExchangeBucketBits(std::string_view exchange) {
  return storage::StableHash64(exchange) & ~kLowBits;
}

uint64_t InventoryHash(char kind, std::string_view id) {
  // The kind first, then the id: a site and an app of the same name differ.
  uint64_t h = storage::StableHash64(id);
  return storage::SplitMix64Finalize(
      h ^ (static_cast<uint64_t>(static_cast<unsigned char>(kind)) << 56));
}

uint64_t BucketOf(uint64_t exchange_bits, uint64_t inventory_hash, int media, int w, int h) {
  const uint64_t format = (Clamp16(media) << 32) | (Clamp16(w) << 16) | Clamp16(h);
  // The finaliser spreads the combination of the two hashes over all bits.
  uint64_t low =
      storage::SplitMix64Finalize(inventory_hash ^ (format * 0x9e3779b97f4a7c15ULL)) & kLowBits;
  const uint64_t bucket = (exchange_bits & ~kLowBits) | low;
  return bucket == 0 ? 1 : bucket;
}

std::string BucketText(uint64_t bucket) {
  const std::array<char, 16> digits = BucketDigits(bucket);
  return std::string(digits.data(), digits.size());
}

std::array<char, 16> BucketDigits(uint64_t bucket) {
  char bytes[8];
  storage::StoreBigEndian(bucket, 8, bytes);
  std::array<char, 16> digits;
  storage::WriteHex(std::string_view(bytes, sizeof(bytes)), digits.data());
  return digits;
}

std::optional<uint64_t> ParseBucket(std::string_view text) {
  if (text.size() != 16) return std::nullopt;
  std::optional<std::string> bytes = storage::FromHex(text);
  if (!bytes.has_value()) return std::nullopt;
  const uint64_t bucket = storage::ReadBigEndian64(*bytes);
  if (bucket == 0) return std::nullopt;
  return bucket;
}

}  // namespace rtb::pricing

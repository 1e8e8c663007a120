// What one fit produces and rtb-pacer publishes (internal/pricing_rows.h):
// the campaigns' click and conversion rates, each exchange's figures over
// the window, and the buckets' win-rate curves; and its byte layout.
//
// The whole model is one byte string, cut into chunks of at most
// kModelChunkBytes for the store (each chunk one cell), big-endian:
//
//   1 byte   layout version, 1
//   8 bytes  computed_at, ms since the Unix epoch, int64
//   4 bytes  number of campaigns C
//   C times: 1 byte id length L, L bytes campaign id,
//            8 bytes ctr (IEEE-754 binary64 bits), 8 bytes cvr,
//            8 bytes impressions, 8 bytes clicks, 8 bytes conversions
//   4 bytes  number of exchanges E
//   E times: 8 bytes exchange bits (pricing/bucket.h), 8 bytes wins,
//            8 bytes price losses, 8 bytes clearing sum (micro-USD CPM),
//            4 bytes buckets shaded
//   4 bytes  number of curves N
//   N times: 8 bytes bucket, 8 bytes samples, 2 bytes first bin,
//            2 bytes values V, V times 2 bytes F x 65535
//
// Thread-safety: pure functions.
#ifndef RTB_PRICING_INTERNAL_MODEL_CODEC_H_
#define RTB_PRICING_INTERNAL_MODEL_CODEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtb::pricing::internal {

inline constexpr size_t kModelChunkBytes = 1 << 20;

struct CampaignRates {
  std::string campaign_id;
  double ctr = 0;  // clicks per impression, shrunk toward the prior
  double cvr = 0;  // conversions per click, shrunk toward the prior
  int64_t impressions = 0;
  int64_t clicks = 0;
  int64_t conversions = 0;

  bool operator==(const CampaignRates&) const = default;
};

struct ExchangeFigures {
  uint64_t exchange_bits = 0;
  int64_t wins = 0;
  int64_t losses = 0;
  int64_t clearing_sum_micros = 0;
  int32_t buckets_shaded = 0;

  bool operator==(const ExchangeFigures&) const = default;
};

struct BucketCurve {
  uint64_t bucket = 0;
  int64_t samples = 0;
  int start = 0;
  std::vector<uint16_t> values;

  bool operator==(const BucketCurve&) const = default;
};

struct PricingModel {
  int64_t computed_at_ms = 0;
  std::vector<CampaignRates> campaigns;
  std::vector<ExchangeFigures> exchanges;
  std::vector<BucketCurve> curves;

  bool operator==(const PricingModel&) const = default;
};

std::string EncodeModel(const PricingModel& model);
// nullopt for another version or broken framing, or a curve whose values are
// not non-decreasing or reach past the price grid.
std::optional<PricingModel> DecodeModel(std::string_view bytes);

// EncodeModel cut into chunks of at most `chunk_bytes`, and back.
std::vector<std::string> EncodeModelChunks(const PricingModel& model,
                                           size_t chunk_bytes = kModelChunkBytes);

}  // namespace rtb::pricing::internal

#endif  // RTB_PRICING_INTERNAL_MODEL_CODEC_H_

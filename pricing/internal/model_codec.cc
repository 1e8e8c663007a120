#include "pricing/internal/model_codec.h"

#include <bit>
#include <cmath>

#include "pricing/internal/price_grid.h"
#include "storage/key_bytes.h"

namespace rtb::pricing::internal {
namespace {

constexpr uint8_t kLayoutVersion = 1;

void PutDouble(double v, std::string* out) {
  storage::AppendBigEndian64(std::bit_cast<uint64_t>(v), out);
}

// Reads fields off the front of a byte string; any read past the end sets
// `failed` and returns zeros.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  uint64_t Uint(size_t width) {
    if (bytes_.size() < width) {
      failed_ = true;
      return 0;
    }
    const uint64_t v = storage::ReadBigEndian(bytes_.substr(0, width));
    bytes_.remove_prefix(width);
    return v;
  }
  int64_t Int64() { return static_cast<int64_t>(Uint(8)); }
  double Double() { return std::bit_cast<double>(Uint(8)); }
  std::string_view Bytes(size_t n) {
    if (bytes_.size() < n) {
      failed_ = true;
      return {};
    }
    std::string_view v = bytes_.substr(0, n);
    bytes_.remove_prefix(n);
    return v;
  }
  bool failed() const { return failed_; }
  bool done() const { return bytes_.empty(); }

 private:
  std::string_view bytes_;
  bool failed_ = false;
};

}  // namespace

std::string EncodeModel(const PricingModel& model) {
  std::string out;
  out.push_back(static_cast<char>(kLayoutVersion));
  storage::AppendBigEndian64(static_cast<uint64_t>(model.computed_at_ms), &out);
  storage::AppendBigEndian32(static_cast<uint32_t>(model.campaigns.size()), &out);
  for (const CampaignRates& c : model.campaigns) {
    out.push_back(static_cast<char>(c.campaign_id.size()));
    out.append(c.campaign_id);
    PutDouble(c.ctr, &out);
    PutDouble(c.cvr, &out);
    storage::AppendBigEndian64(static_cast<uint64_t>(c.impressions), &out);
    storage::AppendBigEndian64(static_cast<uint64_t>(c.clicks), &out);
    storage::AppendBigEndian64(static_cast<uint64_t>(c.conversions), &out);
  }
  storage::AppendBigEndian32(static_cast<uint32_t>(model.exchanges.size()), &out);
  for (const ExchangeFigures& e : model.exchanges) {
    storage::AppendBigEndian64(e.exchange_bits, &out);
    storage::AppendBigEndian64(static_cast<uint64_t>(e.wins), &out);
    storage::AppendBigEndian64(static_cast<uint64_t>(e.losses), &out);
    storage::AppendBigEndian64(static_cast<uint64_t>(e.clearing_sum_micros), &out);
    storage::AppendBigEndian32(static_cast<uint32_t>(e.buckets_shaded), &out);
  }
  storage::AppendBigEndian32(static_cast<uint32_t>(model.curves.size()), &out);
  for (const BucketCurve& c : model.curves) {
    storage::AppendBigEndian64(c.bucket, &out);
    storage::AppendBigEndian64(static_cast<uint64_t>(c.samples), &out);
    storage::AppendBigEndian16(static_cast<uint16_t>(c.start), &out);
    storage::AppendBigEndian16(static_cast<uint16_t>(c.values.size()), &out);
    for (uint16_t v : c.values) storage::AppendBigEndian16(v, &out);
  }
  return out;
}

std::optional<PricingModel> DecodeModel(std::string_view bytes) {
  Reader in(bytes);
  if (in.Uint(1) != kLayoutVersion) return std::nullopt;
  PricingModel model;
  model.computed_at_ms = in.Int64();
  const uint64_t campaigns = in.Uint(4);
  for (uint64_t i = 0; i < campaigns && !in.failed(); ++i) {
    CampaignRates c;
    c.campaign_id = std::string(in.Bytes(in.Uint(1)));
    c.ctr = in.Double();
    c.cvr = in.Double();
    c.impressions = in.Int64();
    c.clicks = in.Int64();
    c.conversions = in.Int64();
    if (!(c.ctr >= 0 && c.ctr <= 1 && c.cvr >= 0 && c.cvr <= 1)) return std::nullopt;
    model.campaigns.push_back(std::move(c));
  }
  const uint64_t exchanges = in.Uint(4);
  for (uint64_t i = 0; i < exchanges && !in.failed(); ++i) {
    ExchangeFigures e;
    e.exchange_bits = in.Uint(8);
    e.wins = in.Int64();
    e.losses = in.Int64();
    e.clearing_sum_micros = in.Int64();
    e.buckets_shaded = static_cast<int32_t>(in.Uint(4));
    model.exchanges.push_back(e);
  }
  const uint64_t curves = in.Uint(4);
  for (uint64_t i = 0; i < curves && !in.failed(); ++i) {
    BucketCurve c;
    c.bucket = in.Uint(8);
    c.samples = in.Int64();
    c.start = static_cast<int>(in.Uint(2));
    const size_t n = in.Uint(2);
    if (n < 2 || c.start + static_cast<int>(n) - 1 > kPriceBins) return std::nullopt;
    c.values.reserve(n);
    for (size_t j = 0; j < n; ++j) {
      c.values.push_back(static_cast<uint16_t>(in.Uint(2)));
      if (j > 0 && c.values[j] < c.values[j - 1]) return std::nullopt;
    }
    model.curves.push_back(std::move(c));
  }
  if (in.failed() || !in.done()) return std::nullopt;
  return model;
}

std::vector<std::string> EncodeModelChunks(const PricingModel& model, size_t chunk_bytes) {
  const std::string bytes = EncodeModel(model);
  std::vector<std::string> chunks;
  for (size_t at = 0; at < bytes.size(); at += chunk_bytes) {
    chunks.push_back(bytes.substr(at, chunk_bytes));
  }
  return chunks;
}

}  // namespace rtb::pricing::internal

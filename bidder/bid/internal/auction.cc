#include "bidder/bid/internal/auction.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>

#include "bidder/bid/internal/bid_pricing.h"
#include "pricing/pricer.h"

namespace rtb::bidder {
namespace {

// Prices and floors go through currency conversion; a price equal to the
// floor must not fail on the last bit.
constexpr double kFloorTolerance = 1e-9;

bool MeetsFloor(double price, double floor) { return price >= floor * (1 - kFloorTolerance); }

// Uniform draws for the pacing snapshot: a cheap per-thread generator
// (xorshift64*), seeded once per thread.
double NextUniform() {
  thread_local uint64_t state = [] {
    std::random_device device;
    uint64_t seed = (static_cast<uint64_t>(device()) << 32) ^ device();
    return seed == 0 ? uint64_t{0x9e3779b97f4a7c15} : seed;
  }();
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  const uint64_t bits = state * 0x2545f4914f6cdd1dULL;
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

struct Scratch {
  CampaignSet candidates;
  RequestFacts facts;
  // (campaign index, impressions already won in this request)
  std::vector<std::pair<size_t, int>> pending;
  // (pod id, creative) of the pod slots already won in this request.
  std::vector<std::pair<std::string_view, const Creative*>> pod_slots;
};

// The pod an impression is a slot of ("" for none).
std::string_view PodOf(const openrtb::Imp& imp) {
  if (imp.video.has_value() && !imp.video->podid.empty()) return imp.video->podid;
  if (imp.audio.has_value() && !imp.audio->podid.empty()) return imp.audio->podid;
  return {};
}

bool InPod(const Scratch& scratch, std::string_view pod, const Creative& creative) {
  if (pod.empty()) return false;
  return std::any_of(scratch.pod_slots.begin(), scratch.pod_slots.end(), [&](const auto& slot) {
    return slot.first == pod && slot.second == &creative;
  });
}

int Pending(const Scratch& scratch, size_t campaign) {
  for (const auto& [index, count] : scratch.pending) {
    if (index == campaign) return count;
  }
  return 0;
}

void AddPending(Scratch* scratch, size_t campaign) {
  for (auto& [index, count] : scratch->pending) {
    if (index == campaign) {
      ++count;
      return;
    }
  }
  scratch->pending.emplace_back(campaign, 1);
}

// The first creative of `campaign` that can serve `imp`, preferring the
// impression's preferred banner size; a creative that already won a slot of
// the impression's pod sits the other slots out.
const Creative* ChooseCreative(const Campaign& campaign, const openrtb::Imp& imp,
                               const Scratch& scratch, Rejection* rejection) {
  const Creative* chosen = nullptr;
  Rejection best_rejection = Rejection::kCreative;
  const std::string_view pod = PodOf(imp);
  for (const Creative& creative : campaign.creatives) {
    if (InPod(scratch, pod, creative)) continue;
    const Rejection r = CheckCreative(creative, imp, scratch.facts);
    if (r != Rejection::kNone) {
      if (r == Rejection::kBlocked) best_rejection = Rejection::kBlocked;
      continue;
    }
    const bool preferred = creative.media == MediaType::kBanner && imp.banner.has_value() &&
                           imp.banner->w == creative.w && imp.banner->h == creative.h;
    if (preferred) return &creative;
    if (chosen == nullptr) chosen = &creative;
  }
  if (chosen == nullptr) *rejection = best_rejection;
  return chosen;
}

bool SeatListed(const std::vector<std::string>& seats, std::string_view seat) {
  return seats.empty() || std::find(seats.begin(), seats.end(), seat) != seats.end();
}

bool ListedDeal(const Campaign& campaign, const std::string& deal_id) {
  return std::find(campaign.deal_ids.begin(), campaign.deal_ids.end(), deal_id) !=
         campaign.deal_ids.end();
}

// True when `a` beats `b` (see the header: value, then deal, then order).
bool Beats(const ImpBid& a, const ImpBid& b) {
  if (a.value != b.value) return a.value > b.value;
  if ((a.deal != nullptr) != (b.deal != nullptr)) return a.deal != nullptr;
  return a.campaign->index < b.campaign->index;
}

}  // namespace

void AuctionResult::Clear() {
  currency.clear();
  bids.clear();
  no_currency = false;
  no_candidates = true;
  rejection = Rejection::kNone;
  outage_decisions.clear();
  dsa_skipped = 0;
}

Auction::Auction(const CampaignIndex& index, const CurrencyTable& currencies,
                 const PacingSnapshot& pacing, const pricing::Pricer* pricer)
    : index_(index),
      currencies_(currencies),
      pacing_(pacing),
      pricer_(pricer),
      usd_(PackCurrencyCode("USD")) {}

namespace {

// The response currency of `request` (packed), 0 when none is acceptable.
uint32_t ResponseCurrency(const openrtb::BidRequest& request, const CurrencyTable& currencies,
                          uint32_t usd) {
  if (request.cur.empty()) return usd;
  for (const std::string& code : request.cur) {
    const uint32_t packed = PackCurrencyCode(code);
    if (currencies.Has(packed)) return packed;
  }
  return 0;
}

// A secure impression that the exchange's beacons cannot serve (step 0).
bool RefusedAsInsecure(const openrtb::Imp& imp, bool secure_beacons) {
  return !secure_beacons && imp.secure.value_or(false);
}

}  // namespace

AuctionPreview Auction::Preview(const openrtb::BidRequest& request, bool secure_beacons,
                                std::vector<size_t>* capped) const {
  AuctionPreview preview;
  preview.currency_acceptable = ResponseCurrency(request, currencies_, usd_) != 0;
  thread_local CampaignSet candidates;
  if (capped != nullptr) capped->clear();
  for (const openrtb::Imp& imp : request.imp) {
    index_.Candidates(request, imp, &candidates);
    if (RefusedAsInsecure(imp, secure_beacons) && !candidates.empty()) {
      preview.insecure_skipped = true;
      continue;
    }
    candidates.ForEach([&](size_t i) {
      preview.any_candidates = true;
      const Campaign& campaign = index_.campaign(i);
      if (!campaign.required_segments.empty()) preview.needs_segments = true;
      if (campaign.frequency_cap.capped()) {
        preview.needs_frequency_caps = true;
        if (capped != nullptr && std::find(capped->begin(), capped->end(), i) == capped->end()) {
          capped->push_back(i);
        }
      }
      if (pricer_ != nullptr && campaign.goal.type != config::CampaignGoal::kCpm) {
        preview.needs_history = true;
      }
    });
    if (capped == nullptr && preview.needs_segments && preview.needs_frequency_caps &&
        preview.needs_history) {
      break;
    }
  }
  preview.needs_profile = preview.needs_segments || preview.needs_frequency_caps;
  return preview;
}

namespace {

// Where a deal campaign may bid on `imp`: the first offered deal it lists
// whose wseat admits `seat` and whose floor `price` meets; else the reason
// none did.
struct DealChoice {
  const openrtb::Deal* deal = nullptr;
  Rejection rejection = Rejection::kNone;
  double floor = 0;  // the deal's, in the response currency
};

DealChoice ChooseDeal(const Campaign& campaign, const openrtb::Imp& imp, std::string_view seat,
                      double price, const CurrencyTable& currencies, uint32_t currency) {
  bool seat_refused = false;
  bool floor_refused = false;
  if (imp.pmp.has_value()) {
    for (const openrtb::Deal& offered : imp.pmp->deals) {
      if (!ListedDeal(campaign, offered.id)) continue;
      if (!SeatListed(offered.wseat, seat)) {
        seat_refused = true;
        continue;
      }
      std::optional<double> floor = 0.0;
      if (offered.bidfloor > 0) {
        floor =
            currencies.Convert(offered.bidfloor, PackCurrencyCode(offered.bidfloorcur), currency);
      }
      if (!floor.has_value() || !MeetsFloor(price, *floor)) {
        floor_refused = true;
        continue;
      }
      return {&offered, Rejection::kNone, *floor};
    }
  }
  return {nullptr, floor_refused  ? Rejection::kFloor
                   : seat_refused ? Rejection::kSeat
                                  : Rejection::kTargeting};
}

// One impression's round of the auction: what each candidate is checked
// against, computed once for the impression.
class ImpressionRound {
 public:
  ImpressionRound(const AuctionInput& input, const Profile& profile, const Scratch& scratch,
                  const CurrencyTable& currencies, const PacingSnapshot& pacing,
                  const pricing::Pricer* pricer, uint32_t currency, size_t imp_index)
      : input_(input),
        imp_(input.request->imp[imp_index]),
        imp_index_(imp_index),
        profile_(profile),
        scratch_(scratch),
        currencies_(currencies),
        pacing_(pacing),
        pricer_(pricer),
        currency_(currency),
        uniform_(NextUniform()),
        now_ms_(absl::ToUnixMillis(input.now)),
        dsa_(input.request->regs.has_value() && input.request->regs->dsa.has_value()
                 ? &*input.request->regs->dsa
                 : nullptr) {
    if (imp_.bidfloor > 0) {
      open_floor_ = currencies.Convert(imp_.bidfloor, PackCurrencyCode(imp_.bidfloorcur), currency);
    }
  }

  // kNone with `*bid` filled when `campaign` may bid, else the first rule it
  // failed, in the order of bidder/bid/internal/auction.h.
  Rejection Consider(const Campaign& campaign, ImpBid* bid, AuctionResult* result) const {
    if (!campaign.schedule.MayBidAt(input_.now)) return Rejection::kSchedule;
    const std::string_view seat =
        campaign.seat.empty() ? input_.exchange_seat : std::string_view(campaign.seat);
    if (Rejection r = CheckCampaign(campaign, seat, scratch_.facts, profile_);
        r != Rejection::kNone) {
      return r;
    }
    if ((campaign.rewarded == config::RewardedPolicy::kOnly && !imp_.rwdd.value_or(false)) ||
        (campaign.rewarded == config::RewardedPolicy::kNever && imp_.rwdd.value_or(false))) {
      return Rejection::kTargeting;
    }
    const privacy::DsaDecision dsa = dsa_ == nullptr
                                         ? privacy::DsaDecision{}
                                         : privacy::DecideDsa(dsa_->dsarequired, dsa_->pubrender,
                                                              dsa_->datatopub, campaign.dsa_offer);
    if (!dsa.may_bid) {
      ++result->dsa_skipped;
      return Rejection::kDsa;
    }
    Rejection creative_rejection = Rejection::kNone;
    const Creative* creative = ChooseCreative(campaign, imp_, scratch_, &creative_rejection);
    if (creative == nullptr) return creative_rejection;

    // The value: max_bid_cpm, or what the campaign goal makes an
    // impression worth (pricing/pricer.h), never more.
    const double value = pricer_ != nullptr ? pricer_->Value(campaign.index, campaign.goal,
                                                             campaign.max_bid_cpm, input_.history)
                                            : campaign.max_bid_cpm;
    const std::optional<double> price =
        currencies_.Convert(value, campaign.currency_code, currency_);
    if (!price.has_value()) return Rejection::kFloor;
    const openrtb::Deal* deal = nullptr;
    double floor = 0;
    if (!campaign.deal_ids.empty()) {
      const DealChoice choice = ChooseDeal(campaign, imp_, seat, *price, currencies_, currency_);
      if (choice.deal == nullptr) return choice.rejection;
      deal = choice.deal;
      floor = choice.floor;
    } else if (!open_floor_.has_value() || !MeetsFloor(*price, *open_floor_)) {
      return Rejection::kFloor;
    } else {
      floor = *open_floor_;
    }

    if (input_.profile_unavailable) {
      const bool allowed = campaign.bids_without_profile;
      result->outage_decisions.emplace_back(campaign.index, !allowed);
      if (!allowed) return Rejection::kStoreOutage;
    }
    if (campaign.frequency_cap.Reached(profile_, campaign.id, input_.now,
                                       Pending(scratch_, campaign.index))) {
      return Rejection::kFrequencyCap;
    }
    if (!pacing_.MayBid(campaign.index, uniform_, now_ms_)) return Rejection::kPacing;

    bid->imp_index = imp_index_;
    bid->campaign = &campaign;
    bid->creative = creative;
    bid->deal = deal;
    bid->seat = seat;
    bid->price = *price;
    bid->dsa = dsa;
    bid->value = *price;
    bid->floor = std::min(floor, *price);
    return Rejection::kNone;
  }

 private:
  const AuctionInput& input_;
  const openrtb::Imp& imp_;
  const size_t imp_index_;
  const Profile& profile_;
  const Scratch& scratch_;
  const CurrencyTable& currencies_;
  const PacingSnapshot& pacing_;
  const pricing::Pricer* pricer_;
  const uint32_t currency_;
  const double uniform_;
  const int64_t now_ms_;     // input.now
  const openrtb::Dsa* dsa_;  // regs.ext.dsa; null when absent
  // Floor of the open auction in the response currency; nullopt when it is
  // in a currency we cannot convert.
  std::optional<double> open_floor_ = 0.0;
};

}  // namespace

void Auction::Run(const AuctionInput& input, AuctionResult* result) const {
  result->Clear();
  const openrtb::BidRequest& request = *input.request;
  static const Profile kEmptyProfile;
  const Profile& profile = input.profile != nullptr ? *input.profile : kEmptyProfile;

  const uint32_t currency = ResponseCurrency(request, currencies_, usd_);
  if (currency == 0) {
    result->no_currency = true;
    return;
  }
  result->currency.resize(3);
  for (size_t i = 0; i < 3; ++i) {
    result->currency[i] = static_cast<char>((currency >> (8 * i)) & 0xff);
  }

  thread_local Scratch scratch;
  scratch.facts.Reset(request);
  scratch.pending.clear();
  scratch.pod_slots.clear();

  // Built at the first bid to price (the inventory is hashed once).
  std::optional<ImpressionPricing> pricing;
  for (size_t imp_index = 0; imp_index < request.imp.size(); ++imp_index) {
    index_.Candidates(request, request.imp[imp_index], &scratch.candidates);
    if (scratch.candidates.empty()) continue;
    result->no_candidates = false;
    if (RefusedAsInsecure(request.imp[imp_index], input.secure_beacons)) {
      result->rejection = std::max(result->rejection, Rejection::kInsecure);
      continue;
    }

    const ImpressionRound round(input, profile, scratch, currencies_, pacing_, pricer_, currency,
                                imp_index);
    ImpBid best;
    bool have_best = false;
    scratch.candidates.ForEach([&](size_t campaign_index) {
      ImpBid bid;
      if (Rejection r = round.Consider(index_.campaign(campaign_index), &bid, result);
          r != Rejection::kNone) {
        result->rejection = std::max(result->rejection, r);
        return;
      }
      if (!have_best || Beats(bid, best)) {
        best = bid;
        have_best = true;
      }
    });
    if (have_best) {
      if (pricer_ != nullptr) {
        if (!pricing.has_value()) {
          pricing.emplace(request, pricer_->ExchangeBits(input.exchange), input.exchange,
                          currencies_.Convert(1.0, currency, usd_).value_or(1.0),
                          absl::ToUnixMillis(input.now));
        }
        best.shade = pricing->Request(*best.creative, best.deal, best.value, best.floor,
                                      NextUniform(), NextUniform());
        const pricing::ShadeResult shaded = pricer_->Shade(best.shade);
        best.price = shaded.price;
        best.outcome = shaded.outcome;
      }
      AddPending(&scratch, best.campaign->index);
      if (const std::string_view pod = PodOf(request.imp[imp_index]); !pod.empty()) {
        scratch.pod_slots.emplace_back(pod, best.creative);
      }
      result->bids.push_back(best);
    }
  }
}

}  // namespace rtb::bidder

// The bid handler's per-thread response model (bidder/bid/bid_handler.cc).
#ifndef RTB_BIDDER_BID_INTERNAL_RESPONSE_SCRATCH_H_
#define RTB_BIDDER_BID_INTERNAL_RESPONSE_SCRATCH_H_

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "bidder/openrtb/openrtb.h"

namespace rtb::bidder::internal {

// The thread's response model, reused from one response to the next: its
// seats are kept aside with their bids, which later responses clear and
// fill in place (openrtb::ClearForReuse), so filling a bid with ids, URLs
// and markup allocates nothing once warm, and no bid is moved.
class ResponseScratch {
 public:
  // The model, emptied, for the next response.
  openrtb::BidResponse& Start() {
    for (openrtb::SeatBid& seat : response_.seatbid) {
      if (spare_seats_.size() == kSpare) break;
      spare_seats_.push_back(std::move(seat));
    }
    response_.seatbid.clear();
    bids_used_.clear();
    response_.nbr.reset();
    return response_;
  }
  // An empty bid in `seat`'s entry, with the memory of an earlier bid of a
  // seat when there is one.
  openrtb::Bid& AddBid(std::string_view seat) {
    const size_t index = SeatIndex(seat);
    std::vector<openrtb::Bid>& bids = response_.seatbid[index].bid;
    size_t& used = bids_used_[index];
    if (used == bids.size()) {
      bids.emplace_back();
    } else {
      openrtb::ClearForReuse(&bids[used]);
    }
    return bids[used++];
  }
  // The model with the kept bids no bid of this response took dropped.
  const openrtb::BidResponse& Finish() {
    for (size_t i = 0; i < response_.seatbid.size(); ++i) {
      response_.seatbid[i].bid.resize(bids_used_[i]);
    }
    return response_;
  }

 private:
  // The seat's position in the response, added when it has none yet.
  size_t SeatIndex(std::string_view seat) {
    for (size_t i = 0; i < response_.seatbid.size(); ++i) {
      if (response_.seatbid[i].seat == seat) return i;
    }
    openrtb::SeatBid& added = response_.seatbid.emplace_back();
    if (!spare_seats_.empty()) {
      added = std::move(spare_seats_.back());
      spare_seats_.pop_back();
    }
    added.seat = seat;
    bids_used_.push_back(0);
    return response_.seatbid.size() - 1;
  }

  // Enough for the seats of any common response; more are allocated anew.
  static constexpr size_t kSpare = 16;
  openrtb::BidResponse response_;
  std::vector<size_t> bids_used_;  // per seat of response_
  std::vector<openrtb::SeatBid> spare_seats_;
};

}  // namespace rtb::bidder::internal

#endif  // RTB_BIDDER_BID_INTERNAL_RESPONSE_SCRATCH_H_

// Validation of the `campaigns` section: each campaign's identity, budget,
// pacing, bid, goal, schedule, targeting, DSA block and creatives (media,
// markup, native assets), and the ids unique across the list.
#ifndef RTB_CONFIG_INTERNAL_CAMPAIGN_VALIDATION_H_
#define RTB_CONFIG_INTERNAL_CAMPAIGN_VALIDATION_H_

#include "config/config.h"
#include "config/internal/checker.h"
#include "config/internal/error_list.h"

namespace rtb::config::internal {

// One campaign's own rules; `at` is where it sits ("campaigns[3]", or ""
// for a campaign on its own).
void ValidateCampaign(const CampaignConfig& campaign, const BidderConfig& config,
                      const Checker& at);

// Every campaign of `config`, and their ids unique.
void ValidateCampaigns(const BidderConfig& config, ErrorList* errors);

}  // namespace rtb::config::internal

#endif  // RTB_CONFIG_INTERNAL_CAMPAIGN_VALIDATION_H_

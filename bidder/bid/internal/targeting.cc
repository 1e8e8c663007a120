#include "bidder/bid/internal/targeting.h"

#include <algorithm>

#include "bidder/bid/internal/media_fit.h"
#include "bidder/bid/internal/native_markup.h"

namespace rtb::bidder {
namespace {

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerAscii(a[i]) != LowerAscii(b[i])) return false;
  }
  return true;
}

// `code` is `parent` or one of its subcategories ("IAB7" covers "IAB7-39").
bool CoveredBy(std::string_view code, std::string_view parent) {
  if (code.size() < parent.size() || code.compare(0, parent.size(), parent) != 0) return false;
  return code.size() == parent.size() || code[parent.size()] == '-';
}

// Host of an http(s) URL, lower case, without port; "" when none.
std::string HostOf(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  if (!rest.empty() && rest.front() == '[') return "";  // IP literal: no domain to match
  rest = rest.substr(0, rest.find(':'));
  std::string host(rest.size(), '\0');
  std::transform(rest.begin(), rest.end(), host.begin(), LowerAscii);
  return host;
}

void AddCategories(const std::vector<std::string>& from, std::vector<std::string_view>* to) {
  for (const std::string& c : from) to->push_back(c);
}

// The creative's language is among the request's (see RequestFacts).
bool LanguageAccepted(const Creative& creative, const std::vector<std::string_view>& languages) {
  if (languages.empty()) return true;
  return std::any_of(languages.begin(), languages.end(), [&](std::string_view language) {
    return EqualsIgnoreCase(language, creative.language);
  });
}

bool BannerFits(const Creative& creative, const openrtb::Banner& banner) {
  if (banner.w.has_value() && banner.h.has_value() && *banner.w == creative.w &&
      *banner.h == creative.h) {
    return true;
  }
  return std::any_of(banner.format.begin(), banner.format.end(), [&](const openrtb::Format& f) {
    return f.w.has_value() && f.h.has_value() && *f.w == creative.w && *f.h == creative.h;
  });
}

}  // namespace

void RequestFacts::Reset(const openrtb::BidRequest& r) {
  request = &r;
  content_categories.clear();
  domain.clear();
  taxonomy = RequestTaxonomy::Of(r);
  languages.clear();
  for (const std::string& language : r.wlang) languages.push_back(language);
  for (const std::string& tag : r.wlangb) {
    languages.push_back(std::string_view(tag).substr(0, tag.find('-')));
  }
  std::string_view raw_domain;
  if (r.site.has_value()) {
    raw_domain = r.site->domain;
    AddCategories(r.site->cat, &content_categories);
    AddCategories(r.site->sectioncat, &content_categories);
    AddCategories(r.site->pagecat, &content_categories);
  } else if (r.app.has_value()) {
    raw_domain = r.app->domain;
    AddCategories(r.app->cat, &content_categories);
    AddCategories(r.app->sectioncat, &content_categories);
    AddCategories(r.app->pagecat, &content_categories);
  }
  if (!raw_domain.empty()) {
    domain.resize(raw_domain.size());
    std::transform(raw_domain.begin(), raw_domain.end(), domain.begin(), LowerAscii);
  } else if (r.site.has_value() && !r.site->page.empty()) {
    domain = HostOf(r.site->page);
  }
  while (!domain.empty() && domain.back() == '.') domain.pop_back();
}

bool DomainMatches(std::string_view domain, std::string_view entry) {
  if (entry.empty() || domain.size() < entry.size()) return false;
  const std::string_view tail = domain.substr(domain.size() - entry.size());
  if (!EqualsIgnoreCase(tail, entry)) return false;
  return domain.size() == entry.size() || domain[domain.size() - entry.size() - 1] == '.';
}

bool CategoryBlocked(std::string_view category, const std::vector<std::string>& bcat) {
  return std::any_of(bcat.begin(), bcat.end(),
                     [category](const std::string& b) { return CoveredBy(category, b); });
}

bool ContentCategoryMatches(std::string_view content, std::string_view target) {
  return CoveredBy(content, target);
}

Rejection CheckCampaign(const Campaign& campaign, std::string_view seat, const RequestFacts& facts,
                        const Profile& profile) {
  const openrtb::BidRequest& request = *facts.request;
  if (!request.wseat.empty() &&
      std::find(request.wseat.begin(), request.wseat.end(), seat) == request.wseat.end()) {
    return Rejection::kSeat;
  }
  if (std::find(request.bseat.begin(), request.bseat.end(), seat) != request.bseat.end()) {
    return Rejection::kSeat;
  }
  for (const std::string& advertiser : campaign.advertiser_domains) {
    for (const std::string& blocked : request.badv) {
      if (DomainMatches(advertiser, blocked)) return Rejection::kBlocked;
    }
  }
  if (CategoriesBlocked(campaign.categories, facts.taxonomy, request.bcat)) {
    return Rejection::kBlocked;
  }
  if (!campaign.content_categories.empty()) {
    bool matched = false;
    for (std::string_view content : facts.content_categories) {
      for (const std::string& target : campaign.content_categories) {
        if (ContentCategoryMatches(content, target)) {
          matched = true;
          break;
        }
      }
      if (matched) break;
    }
    if (!matched) return Rejection::kTargeting;
  }
  if (!campaign.domains_allow.empty()) {
    if (facts.domain.empty() ||
        std::none_of(
            campaign.domains_allow.begin(), campaign.domains_allow.end(),
            [&](const std::string& entry) { return DomainMatches(facts.domain, entry); })) {
      return Rejection::kTargeting;
    }
  }
  if (!facts.domain.empty() &&
      std::any_of(campaign.domains_deny.begin(), campaign.domains_deny.end(),
                  [&](const std::string& entry) { return DomainMatches(facts.domain, entry); })) {
    return Rejection::kTargeting;
  }
  for (const std::string& segment : campaign.required_segments) {
    if (!profile.HasSegment(segment)) return Rejection::kSegments;
  }
  return Rejection::kNone;
}

Rejection CheckCreative(const Creative& creative, const openrtb::Imp& imp,
                        const RequestFacts& facts) {
  const openrtb::BidRequest& request = *facts.request;
  bool fits = false;
  const std::vector<int32_t>* battr = nullptr;
  switch (creative.media) {
    case MediaType::kBanner:
      fits = imp.banner.has_value() && BannerFits(creative, *imp.banner) &&
             ApisSupported(creative.api, imp.banner->api);
      if (fits) battr = &imp.banner->battr;
      break;
    case MediaType::kVideo:
      fits = imp.video.has_value() && VideoFits(creative, *imp.video);
      if (fits) battr = &imp.video->battr;
      break;
    case MediaType::kAudio:
      fits = imp.audio.has_value() && AudioFits(creative, *imp.audio);
      if (fits) battr = &imp.audio->battr;
      break;
    case MediaType::kNative:
      fits = imp.native.has_value() && imp.native->request.has_value() &&
             ApisSupported(creative.api, imp.native->api) &&
             MatchNative(creative, *imp.native->request).has_value();
      if (fits) battr = &imp.native->battr;
      break;
  }
  if (fits && imp.secure.value_or(false) && !creative.secure) fits = false;
  if (fits && !LanguageAccepted(creative, facts.languages)) fits = false;
  if (!fits) return Rejection::kCreative;
  if (AttributeBlocked(creative.attr, *battr)) return Rejection::kBlocked;
  if (CategoriesBlocked(creative.categories, facts.taxonomy, request.bcat) ||
      !CategoriesAllowed(creative.categories, facts.taxonomy, request.acat)) {
    return Rejection::kBlocked;
  }
  if (!creative.promoted_app.empty() && std::find(request.bapp.begin(), request.bapp.end(),
                                                  creative.promoted_app) != request.bapp.end()) {
    return Rejection::kBlocked;
  }
  return Rejection::kNone;
}

}  // namespace rtb::bidder

#include "bidder/http/internal/router.h"

#include <algorithm>

#include "absl/strings/string_view.h"

namespace rtb::bidder::internal {

namespace http = boost::beast::http;

Router::Router() : labels_{"unmatched", "invalid"} {}

bool Router::Add(http::verb method, std::string path, bool prefix, HttpHandler handler) {
  if (frozen_) return false;
  int id = -1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].path == path && entries_[i].prefix == prefix) id = static_cast<int>(i) + 2;
  }
  if (id < 0) {
    id = static_cast<int>(entries_.size()) + 2;
    entries_.push_back(Entry{.path = path, .prefix = prefix});
    labels_.push_back(prefix ? path + "*" : path);
    if (!prefix) exact_.emplace(path, id);
  }
  Entry& entry = entries_[id - 2];
  for (const auto& [m, h] : entry.methods) {
    if (m == method) return false;
  }
  entry.methods.emplace_back(method, std::move(handler));
  return true;
}

void Router::Freeze() {
  frozen_ = true;
  prefixes_.clear();
  for (size_t i = 0; i < entries_.size(); ++i) {
    Entry& entry = entries_[i];
    entry.allow.clear();
    for (const auto& [m, h] : entry.methods) {
      if (!entry.allow.empty()) entry.allow += ", ";
      const auto name = http::to_string(m);
      entry.allow.append(name.data(), name.size());
    }
    if (entry.prefix) prefixes_.push_back(static_cast<int>(i) + 2);
  }
  std::stable_sort(prefixes_.begin(), prefixes_.end(), [this](int a, int b) {
    return entries_[a - 2].path.size() > entries_[b - 2].path.size();
  });
}

Router::Match Router::MatchIn(const Entry& entry, int id, http::verb method) const {
  Match match;
  match.route_id = id;
  for (const auto& [m, h] : entry.methods) {
    if (m == method) {
      match.kind = Kind::kFound;
      match.handler = &h;
      return match;
    }
  }
  match.kind = Kind::kWrongMethod;
  match.allow = entry.allow;
  return match;
}

Router::Match Router::Find(http::verb method, std::string_view path) const {
  if (auto it = exact_.find(absl::string_view(path.data(), path.size())); it != exact_.end()) {
    return MatchIn(entries_[it->second - 2], it->second, method);
  }
  for (int id : prefixes_) {
    const Entry& entry = entries_[id - 2];
    if (path.starts_with(entry.path)) return MatchIn(entry, id, method);
  }
  return Match{};
}

}  // namespace rtb::bidder::internal
